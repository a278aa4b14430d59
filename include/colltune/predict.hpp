// colltune's forecasts for C++ programs: colltune/predict.h behind a class that throws
// colltune::PredictError (with the status and the one line) where the C functions return codes.
#pragma once

#include <colltune/predict.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace colltune {

class PredictError : public std::runtime_error {
 public:
  PredictError(int status, const std::string& what) : std::runtime_error(what), status(status) {}
  int status;
};

class Predictor {
 public:
  explicit Predictor(const std::string& table, const std::string& comp_model = "") {
    const int rc = colltune_predictor_open(table.c_str(),
                                           comp_model.empty() ? nullptr : comp_model.c_str(), &p_);
    if (rc != COLLTUNE_PREDICT_OK) {
      const std::string why = p_ ? colltune_predictor_error(p_) : "colltune: out of memory";
      colltune_predictor_close(p_);
      throw PredictError(rc, why);
    }
  }
  ~Predictor() { colltune_predictor_close(p_); }
  Predictor(const Predictor&) = delete;
  Predictor& operator=(const Predictor&) = delete;

  void add_model(const std::string& comp_model) {
    check(colltune_predictor_add_model(p_, comp_model.c_str()));
  }
  void set_eager(double bytes) { check(colltune_predictor_set_eager(p_, bytes)); }
  // "" for none.
  void set_links(const std::string& links_file) {
    check(colltune_predictor_set_links(p_, links_file.empty() ? nullptr : links_file.c_str()));
  }
  double link_age(const std::string& from, const std::string& to) {
    double s = 0;
    check(colltune_predict_link_age(p_, from.c_str(), to.c_str(), &s));
    return s;
  }
  double comm(const std::string& from, const std::string& to, double bytes) {
    double s = 0;
    int combined = 0;
    check(colltune_predict_comm(p_, from.c_str(), to.c_str(), bytes, &s, &combined));
    return s;
  }
  struct Coll {
    double seconds;
    std::string algorithm;
  };
  Coll coll(const std::string& op, int root, double bytes,
            const std::vector<std::string>& members = {}) {
    const auto ids = c_strings(members);
    char algorithm[64] = "";
    double s = 0;
    check(colltune_predict_coll(p_, op.c_str(), root, bytes, ids.data(),
                                static_cast<int>(ids.size()), &s, algorithm, sizeof algorithm));
    return {s, algorithm};
  }
  // One registry algorithm's forecast, and whether the library would pick it.
  struct CollOf {
    double seconds;
    bool picked;
  };
  CollOf coll_algorithm(const std::string& op, const std::string& algorithm, int root, double bytes,
                        const std::vector<std::string>& members = {}) {
    const auto ids = c_strings(members);
    double s = 0;
    int picked = 0;
    check(colltune_predict_coll_algorithm(p_, op.c_str(), algorithm.c_str(), root, bytes,
                                          ids.data(), static_cast<int>(ids.size()), &s, &picked));
    return {s, picked != 0};
  }
  double comp_memory(const std::string& kernel, const std::vector<double>& sizes) {
    double b = 0;
    check(colltune_predict_comp_memory(p_, kernel.c_str(), sizes.data(),
                                       static_cast<int>(sizes.size()), &b));
    return b;
  }
  struct Best {
    int grid_p, grid_q, block;
    double seconds;
  };
  Best best(const std::string& routine, const std::vector<double>& sizes, int processes,
            const std::vector<int>& blocks, const std::vector<std::string>& members = {},
            const std::string& form = "LUN", double memory = 0) {
    const auto ids = c_strings(members);
    Best b{};
    check(colltune_predict_best(
        p_, routine.c_str(), form.c_str(), sizes.data(), static_cast<int>(sizes.size()), processes,
        blocks.data(), static_cast<int>(blocks.size()), ids.data(), static_cast<int>(ids.size()),
        memory, &b.grid_p, &b.grid_q, &b.block, &b.seconds));
    return b;
  }
  double comp(const std::string& kernel, const std::vector<double>& sizes) {
    double s = 0;
    check(colltune_predict_comp(p_, kernel.c_str(), sizes.data(), static_cast<int>(sizes.size()),
                                &s));
    return s;
  }
  double routine(const std::string& routine, const std::vector<double>& sizes, int block,
                 int grid_p, int grid_q, const std::vector<std::string>& members = {},
                 const std::string& form = "LUN") {
    const auto ids = c_strings(members);
    double s = 0;
    check(colltune_predict_routine(p_, routine.c_str(), form.c_str(), sizes.data(),
                                   static_cast<int>(sizes.size()), block, grid_p, grid_q,
                                   ids.data(), static_cast<int>(ids.size()), &s));
    return s;
  }

 private:
  static std::vector<const char*> c_strings(const std::vector<std::string>& v) {
    std::vector<const char*> out;
    for (const std::string& s : v) out.push_back(s.c_str());
    return out;
  }
  void check(int rc) const {
    if (rc != COLLTUNE_PREDICT_OK) throw PredictError(rc, colltune_predictor_error(p_));
  }
  colltune_predictor* p_ = nullptr;
};

}  // namespace colltune

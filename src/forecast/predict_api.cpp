// The C API of colltune's forecasts (include/colltune/predict.h): the forecast library behind
// error codes; no exception leaves a function. Answers are remembered per predictor.
#include <colltune/predict.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../algorithms/registry.hpp"
#include "../table/model_table.hpp"
#include "../table/yaml_util.hpp"
#include "../vocabulary.hpp"
#include "coll.hpp"
#include "comm.hpp"
#include "comp.hpp"
#include "comp_yaml.hpp"
#include "links.hpp"
#include "links_yaml.hpp"
#include "routine.hpp"

struct colltune_predictor {
  std::string table_file;
  colltune::ModelTable table;
  colltune::forecast::LinkGraph links;
  std::vector<colltune::forecast::CompModel> comps;
  std::string error;
  double eager = 0;  // the MPI's rendezvous threshold, bytes (routine forecasts)
  struct Answer {
    double seconds = 0;
    int flag = 0;  // comm: combined; coll: picked
    std::string algorithm;
    double bytes = 0;  // comp: the operands' memory
  };
  std::unordered_map<std::string, Answer> cache;  // query -> answer
  // Links re-measured after calibration (colltune_predictor_set_links): read again when the
  // file changes, looked at no more than once a second; the calibrated rates to restore.
  std::string links_file;
  std::filesystem::file_time_type links_mtime{};
  std::chrono::steady_clock::time_point links_checked{};
  colltune::model::LmoParams calibrated;
};

namespace {

namespace fc = colltune::forecast;

#define COLLTUNE_API extern "C" __attribute__((visibility("default")))

int fail(colltune_predictor* p, int status, const std::string& why) {
  p->error = why;
  return status;
}

// Runs `body` (returning a status), turning any exception into COLLTUNE_PREDICT_FAILED or, for
// bad input files, COLLTUNE_PREDICT_BAD_FILE, with its line kept.
template <class F>
int guarded(colltune_predictor* p, F&& body) {
  if (!p) return COLLTUNE_PREDICT_BAD_ARGUMENT;
  try {
    p->error.clear();
    return body();
  } catch (const colltune::InputError& e) {
    return fail(p, COLLTUNE_PREDICT_BAD_FILE, e.what());
  } catch (const std::bad_alloc&) {
    return fail(p, COLLTUNE_PREDICT_FAILED, "colltune: out of memory");
  } catch (const std::exception& e) {
    return fail(p, COLLTUNE_PREDICT_FAILED, e.what());
  } catch (...) {
    return fail(p, COLLTUNE_PREDICT_FAILED, "colltune: unknown failure");
  }
}

// The members' identity indexes (none: the calibrated ranks); false after saying which is wrong.
bool members_of(colltune_predictor* p, const char* const* members, int n, std::vector<int>* out) {
  if (n <= 0) {
    *out = p->table.calibrated_ranks;
    if (out->empty()) {
      p->error = p->table_file + ": calibration.rank_identity: absent (give the members)";
      return false;
    }
    return true;
  }
  out->clear();
  for (int i = 0; i < n; ++i) {
    const int id = members && members[i] ? p->links.find(members[i]) : -1;
    if (id < 0) {
      p->error = std::string("members: invalid value '") +
                 (members && members[i] ? members[i] : "") + "' (valid: the identities of " +
                 p->table_file + ")";
      return false;
    }
    out->push_back(id);
  }
  return true;
}

// The links and the model from the table and, if any, the links file as it is now; every
// remembered answer forgotten. Throws InputError.
void load_links(colltune_predictor* p) {
  std::vector<fc::LinkMeasurement> fresh;
  if (!p->links_file.empty()) {
    p->links_mtime = std::filesystem::last_write_time(p->links_file);
    fresh = colltune::load_links(p->links_file);
  }
  p->links = fc::graph_of(*p->table.platform_model, p->table.calibrated_ranks);
  fc::date_links(p->links, p->table.finished);
  fc::apply(p->links, fresh);
  p->table.platform_model->params = p->calibrated;
  fc::apply(*p->table.platform_model, fresh);
  p->links_checked = std::chrono::steady_clock::now();
  p->cache.clear();
}

// Before every query: a links file changed since it was read is read again (FAST's cache of
// network measurements: an answer lives until a link under it is measured again).
void check_links(colltune_predictor* p) {
  if (p->links_file.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - p->links_checked < std::chrono::seconds(1)) return;
  p->links_checked = now;
  std::error_code ec;
  const auto mtime = std::filesystem::last_write_time(p->links_file, ec);
  if (!ec && mtime != p->links_mtime) load_links(p);
}

std::string key(const std::vector<std::string>& parts) {
  std::string k;
  for (const std::string& s : parts) (k += s) += '\x1f';
  return k;
}

std::string list(const char* const* xs, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) (out += xs && xs[i] ? xs[i] : "") += ',';
  return out;
}

std::string list(const double* xs, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) (out += std::to_string(xs[i])) += ',';
  return out;
}

}  // namespace

COLLTUNE_API int colltune_predictor_open(const char* table, const char* comp_model,
                                         colltune_predictor** out) {
  if (!out) return COLLTUNE_PREDICT_BAD_ARGUMENT;
  *out = new (std::nothrow) colltune_predictor;
  colltune_predictor* p = *out;
  if (!p) return COLLTUNE_PREDICT_FAILED;
  if (!table) return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT, "table: NULL (valid: a file)");
  return guarded(p, [&] {
    p->table_file = table;
    p->table = colltune::load_model_table(table);
    if (!p->table.platform_model) {
      return fail(p, COLLTUNE_PREDICT_BAD_FILE,
                  p->table_file + ": model: absent (a table colltune-calibrate wrote has one)");
    }
    p->calibrated = p->table.platform_model->params;
    load_links(p);
    if (comp_model) p->comps.push_back(colltune::load_comp_model(comp_model));
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

COLLTUNE_API int colltune_predictor_add_model(colltune_predictor* p, const char* comp_model) {
  return guarded(p, [&] {
    if (!comp_model) return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT, "model: NULL (valid: a file)");
    p->comps.push_back(colltune::load_comp_model(comp_model));
    p->cache.clear();
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

COLLTUNE_API int colltune_predictor_set_eager(colltune_predictor* p, double bytes) {
  return guarded(p, [&] {
    if (!(bytes >= 0)) return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT, "eager: negative or NaN");
    p->eager = bytes;
    p->cache.clear();
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

COLLTUNE_API int colltune_predictor_set_links(colltune_predictor* p, const char* links_file) {
  return guarded(p, [&] {
    if (!p->table.platform_model) {
      return fail(p, COLLTUNE_PREDICT_BAD_FILE, p->table_file + ": not open");
    }
    const std::string before = p->links_file;
    p->links_file = links_file ? links_file : "";
    try {
      load_links(p);
    } catch (...) {
      p->links_file = before;
      throw;
    }
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

COLLTUNE_API int colltune_predict_link_age(colltune_predictor* p, const char* from, const char* to,
                                           double* seconds) {
  return guarded(p, [&] {
    if (!from || !to || !seconds) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT, "link_age: from, to and seconds must be given");
    }
    check_links(p);
    const int a = p->links.find(from), b = p->links.find(to);
    if (a < 0 || b < 0) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                  std::string(a < 0 ? "from" : "to") + ": invalid value '" + (a < 0 ? from : to) +
                      "' (valid: the identities of " + p->table_file + ")");
    }
    const fc::Link l = fc::comm(p->links, a, b, 0);
    if (l.source == fc::LinkSource::kNone) {
      return fail(p, COLLTUNE_PREDICT_NO_PATH,
                  std::string("no measured path joins ") + from + " and " + to);
    }
    *seconds = fc::age(p->links, l, static_cast<double>(std::time(nullptr)));
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

COLLTUNE_API void colltune_predictor_close(colltune_predictor* p) { delete p; }

COLLTUNE_API const char* colltune_predictor_error(const colltune_predictor* p) {
  return p ? p->error.c_str() : "colltune: no predictor";
}

COLLTUNE_API int colltune_predict_comm(colltune_predictor* p, const char* from, const char* to,
                                       double bytes, double* seconds, int* combined) {
  return guarded(p, [&] {
    if (!from || !to || !seconds || !(bytes >= 0)) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                  "comm: from, to and seconds must be given, bytes >= 0");
    }
    check_links(p);
    const std::string k = key({"comm", from, to, std::to_string(bytes)});
    if (const auto hit = p->cache.find(k); hit != p->cache.end()) {
      *seconds = hit->second.seconds;
      if (combined) *combined = hit->second.flag;
      return static_cast<int>(COLLTUNE_PREDICT_OK);
    }
    const int a = p->links.find(from), b = p->links.find(to);
    if (a < 0 || b < 0) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                  std::string(a < 0 ? "from" : "to") + ": invalid value '" + (a < 0 ? from : to) +
                      "' (valid: the identities of " + p->table_file + ")");
    }
    const fc::Link l = fc::comm(p->links, a, b, bytes);
    if (l.source == fc::LinkSource::kNone) {
      return fail(p, COLLTUNE_PREDICT_NO_PATH,
                  std::string("no measured path joins ") + from + " and " + to);
    }
    const int flag = l.source == fc::LinkSource::kCombined;
    p->cache[k] = {l.at(bytes), flag, ""};
    *seconds = l.at(bytes);
    if (combined) *combined = flag;
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

namespace {

// A collective's forecast: the library's pick (only NULL) or one registry algorithm's.
int coll_query(colltune_predictor* p, const char* op, const char* only, int root, double bytes,
               const char* const* members, int n_members, double* seconds, char* algorithm,
               size_t algorithm_size, int* picked) {
  return guarded(p, [&] {
    const auto o = op ? colltune::op_from_name(op) : std::nullopt;
    if (!o || !seconds || !(bytes >= 0)) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                  "op: invalid value (valid: bcast, scatter, gather); seconds must be given, "
                  "bytes >= 0");
    }
    const colltune::Algorithm* a = nullptr;
    if (only) {
      std::string names;
      for (const colltune::Algorithm* x : colltune::algorithms_of(*o)) {
        names += (names.empty() ? "" : ", ") + std::string(x->name);
        if (x->name == std::string_view(only)) a = x;
      }
      if (!a) {
        return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                    std::string("algorithm: invalid value '") + only + "' (valid: " + names + ")");
      }
    }
    check_links(p);
    const std::string k = key({"coll", op, only ? only : "", std::to_string(root),
                               std::to_string(bytes), list(members, n_members)});
    auto hit = p->cache.find(k);
    if (hit == p->cache.end()) {
      std::vector<int> ids;
      if (!members_of(p, members, n_members, &ids))
        return static_cast<int>(COLLTUNE_PREDICT_BAD_ARGUMENT);
      if (root < 0 || root >= static_cast<int>(ids.size())) {
        return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                    "root: invalid value " + std::to_string(root) + " (valid: 0 to " +
                        std::to_string(ids.size() - 1) + ")");
      }
      const double sizes[] = {bytes};
      colltune_predictor::Answer ans;
      fc::ModelAtSize sized(*p->table.platform_model, p->links);
      for (const fc::CollRow& r :
           fc::coll(*p->table.platform_model, *o, ids, root, sizes, a, &sized)) {
        if (a || r.picked) ans = {r.seconds, r.picked ? 1 : 0, std::string(r.algorithm->name)};
      }
      hit = p->cache.emplace(k, ans).first;
    }
    *seconds = hit->second.seconds;
    if (picked) *picked = hit->second.flag;
    if (algorithm && algorithm_size > 0) {
      std::strncpy(algorithm, hit->second.algorithm.c_str(), algorithm_size - 1);
      algorithm[algorithm_size - 1] = '\0';
    }
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

}  // namespace

COLLTUNE_API int colltune_predict_coll(colltune_predictor* p, const char* op, int root,
                                       double bytes, const char* const* members, int n_members,
                                       double* seconds, char* algorithm, size_t algorithm_size) {
  return coll_query(p, op, nullptr, root, bytes, members, n_members, seconds, algorithm,
                    algorithm_size, nullptr);
}

COLLTUNE_API int colltune_predict_coll_algorithm(colltune_predictor* p, const char* op,
                                                 const char* algorithm, int root, double bytes,
                                                 const char* const* members, int n_members,
                                                 double* seconds, int* picked) {
  if (!algorithm) {
    return p ? fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT, "algorithm: absent")
             : static_cast<int>(COLLTUNE_PREDICT_BAD_ARGUMENT);
  }
  return coll_query(p, op, algorithm, root, bytes, members, n_members, seconds, nullptr, 0, picked);
}

namespace {

// A kernel's forecast (seconds and the operands' bytes), refused when they exceed the memory
// available now.
int comp_query(colltune_predictor* p, const char* kernel, const double* sizes, int n_sizes,
               double* seconds, double* bytes) {
  return guarded(p, [&] {
    const auto k = kernel ? fc::kernel_from_name(kernel) : std::nullopt;
    if (!k || !sizes || n_sizes != fc::kernel_vars(*k) || (!seconds && !bytes)) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                  "kernel and sizes: invalid (valid: dgemm M,N,K; dtrsm, add M,N; daxpy N), "
                  "and the result must be given");
    }
    for (int i = 0; i < n_sizes; ++i) {
      if (!(sizes[i] >= 1)) return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT, "sizes: each >= 1");
    }
    const fc::CompModel* m = fc::for_occupancy(p->comps, 1);
    if (!m || !m->find(*k)) {
      return fail(p, COLLTUNE_PREDICT_BAD_FILE,
                  std::string("kernels.") + kernel + ": absent (open with a computation model)");
    }
    const std::string ck = key({"comp", kernel, list(sizes, n_sizes)});
    auto hit = p->cache.find(ck);
    if (hit == p->cache.end()) {
      const std::vector<double> s(sizes, sizes + n_sizes);
      const fc::CompForecast f = fc::comp(*m, *k, s);
      const double available = fc::memory_available();
      if (available > 0 && f.bytes > available) {
        return fail(p, COLLTUNE_PREDICT_NO_MEMORY,
                    std::string(kernel) + " needs " + std::to_string(f.bytes) + " bytes, " +
                        std::to_string(available) + " available");
      }
      hit = p->cache.emplace(ck, colltune_predictor::Answer{f.seconds, 0, "", f.bytes}).first;
    }
    if (seconds) *seconds = hit->second.seconds;
    if (bytes) *bytes = hit->second.bytes;
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

}  // namespace

COLLTUNE_API int colltune_predict_comp(colltune_predictor* p, const char* kernel,
                                       const double* sizes, int n_sizes, double* seconds) {
  return comp_query(p, kernel, sizes, n_sizes, seconds, nullptr);
}

COLLTUNE_API int colltune_predict_comp_memory(colltune_predictor* p, const char* kernel,
                                              const double* sizes, int n_sizes, double* bytes) {
  return comp_query(p, kernel, sizes, n_sizes, nullptr, bytes);
}

namespace {

// A routine query's arguments checked (one line and the status on failure, 0 when valid).
int routine_args(colltune_predictor* p, const std::string& r, const std::string& f,
                 const double* sizes, int n_sizes) {
  const bool gemm = r == "pdgemm";
  if ((!gemm && r != "pdtrsm") || !sizes || n_sizes != (gemm ? 3 : 2)) {
    return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                "routine: invalid (valid: pdgemm with M,N,K or pdtrsm with M,N; block, grid "
                ">= 1)");
  }
  for (int i = 0; i < n_sizes; ++i) {
    if (!(sizes[i] > 32)) {
      return fail(p, COLLTUNE_PREDICT_NOT_MODELLED,
                  "sizes of 32 or less (ScaLAPACK keeps the caller's BLACS topology there)");
    }
  }
  if (!gemm && (f.size() != 3 || (f[0] != 'L' && f[0] != 'R') || (f[1] != 'U' && f[1] != 'L') ||
                (f[2] != 'N' && f[2] != 'T'))) {
    return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                "form: invalid value '" + f + "' (valid: side L|R, uplo U|L, trans N|T)");
  }
  return COLLTUNE_PREDICT_OK;
}

}  // namespace

COLLTUNE_API int colltune_predict_routine(colltune_predictor* p, const char* routine,
                                          const char* form, const double* sizes, int n_sizes,
                                          int block, int grid_p, int grid_q,
                                          const char* const* members, int n_members,
                                          double* seconds) {
  return guarded(p, [&] {
    const std::string r = routine ? routine : "";
    const bool gemm = r == "pdgemm";
    const std::string f = form ? form : "LUN";
    if (!seconds || block < 1 || grid_p < 1 || grid_q < 1) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                  "routine: invalid (valid: pdgemm with M,N,K or pdtrsm with M,N; block, grid "
                  ">= 1)");
    }
    if (const int rc = routine_args(p, r, f, sizes, n_sizes); rc != COLLTUNE_PREDICT_OK) return rc;
    check_links(p);
    const std::string k =
        key({r, f, list(sizes, n_sizes), std::to_string(block), std::to_string(grid_p),
             std::to_string(grid_q), list(members, n_members)});
    if (const auto hit = p->cache.find(k); hit != p->cache.end()) {
      *seconds = hit->second.seconds;
      return static_cast<int>(COLLTUNE_PREDICT_OK);
    }
    std::vector<int> ids;
    if (!members_of(p, members, n_members, &ids))
      return static_cast<int>(COLLTUNE_PREDICT_BAD_ARGUMENT);
    const fc::Grid g{grid_p, grid_q};
    if (grid_p * grid_q > static_cast<int>(ids.size())) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                  "grid: more processes than the " + std::to_string(ids.size()) + " members");
    }
    const fc::Trsm t{f[0], f[1], f[2]};
    if (!gemm) {
      if (const std::string why = fc::pdtrsm_unmodelled(g, t, sizes[0], sizes[1], block);
          !why.empty()) {
        return fail(p, COLLTUNE_PREDICT_NOT_MODELLED, "pdtrsm: " + why);
      }
    }
    const fc::CompModel* m = fc::for_occupancy(p->comps, fc::busiest_host(ids, g));
    if (!m || !m->find(fc::Kernel::kDgemm) || (!gemm && !m->find(fc::Kernel::kDtrsm))) {
      return fail(p, COLLTUNE_PREDICT_BAD_FILE,
                  "kernels.dgemm, kernels.dtrsm: absent (open with a computation model)");
    }
    const fc::RoutineForecast out =
        gemm ? fc::pdgemm(p->links, ids, *m, g, sizes[0], sizes[1], sizes[2], block, p->eager)
             : fc::pdtrsm(p->links, ids, *m, g, t, sizes[0], sizes[1], block, p->eager);
    p->cache[k] = {out.seconds, 0, ""};
    *seconds = out.seconds;
    return static_cast<int>(COLLTUNE_PREDICT_OK);
  });
}

COLLTUNE_API int colltune_predict_best(colltune_predictor* p, const char* routine, const char* form,
                                       const double* sizes, int n_sizes, int processes,
                                       const int* blocks, int n_blocks, const char* const* members,
                                       int n_members, double memory, int* grid_p, int* grid_q,
                                       int* block, double* seconds) {
  return guarded(p, [&] {
    const std::string r = routine ? routine : "";
    const std::string f = form ? form : "LUN";
    if (!grid_p || !grid_q || !block || !seconds || processes < 1 || !blocks || n_blocks < 1 ||
        !(memory >= 0)) {
      return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT,
                  "best: processes >= 1, at least one block, memory >= 0 (0: no limit), and "
                  "every result pointer, must be given");
    }
    std::vector<double> Rs;
    for (int i = 0; i < n_blocks; ++i) {
      if (blocks[i] < 1) return fail(p, COLLTUNE_PREDICT_BAD_ARGUMENT, "blocks: each >= 1");
      Rs.push_back(blocks[i]);
    }
    if (const int rc = routine_args(p, r, f, sizes, n_sizes); rc != COLLTUNE_PREDICT_OK) return rc;
    check_links(p);
    std::vector<int> ids;
    if (!members_of(p, members, n_members, &ids))
      return static_cast<int>(COLLTUNE_PREDICT_BAD_ARGUMENT);
    const int P = std::min(processes, static_cast<int>(ids.size()));
    const bool missing = std::any_of(p->comps.begin(), p->comps.end(), [&](const auto& c) {
      return !c.find(fc::Kernel::kDgemm) || (r == "pdtrsm" && !c.find(fc::Kernel::kDtrsm));
    });
    if (p->comps.empty() || missing) {
      return fail(p, COLLTUNE_PREDICT_BAD_FILE,
                  "kernels.dgemm, kernels.dtrsm: absent (open with a computation model)");
    }
    const std::vector<fc::BestCase> cases =
        r == "pdgemm" ? fc::best_pdgemm(p->links, ids, p->comps, P, sizes[0], sizes[1], sizes[2],
                                        Rs, p->eager)
                      : fc::best_pdtrsm(p->links, ids, p->comps, P, fc::Trsm{f[0], f[1], f[2]},
                                        sizes[0], sizes[1], Rs, p->eager);
    for (const fc::BestCase& b : cases) {  // fastest first
      if (memory > 0 && b.forecast.bytes > memory) continue;
      *grid_p = b.grid.p;
      *grid_q = b.grid.q;
      *block = static_cast<int>(b.R);
      *seconds = b.forecast.seconds;
      return static_cast<int>(COLLTUNE_PREDICT_OK);
    }
    return fail(p, cases.empty() ? COLLTUNE_PREDICT_NOT_MODELLED : COLLTUNE_PREDICT_NO_MEMORY,
                cases.empty()
                    ? "best: no grid of at most " + std::to_string(P) +
                          " processes is modelled for " + r + " " + f
                    : "best: no grid fits " + std::to_string(memory) + " bytes per process");
  });
}

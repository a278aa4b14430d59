#include "comp_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "../table/atomic_file.hpp"
#include "../table/yaml_util.hpp"

namespace colltune {

namespace {

constexpr int kSchema = 1;

void emit_error(YAML::Emitter& out, const char* key, const forecast::FitError& e) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "max"
      << YAML::Value << e.max << YAML::Key << "mean" << YAML::Value << e.mean << YAML::EndMap;
}

void emit_samples(YAML::Emitter& out, const char* key, const std::vector<forecast::Sample>& s) {
  out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const forecast::Sample& x : s) {
    out << YAML::Flow << YAML::BeginSeq;
    for (const double v : x.x) out << v;
    out << x.y << YAML::EndSeq;
  }
  out << YAML::EndSeq;
}

}  // namespace

std::string emit_comp_model(const forecast::CompModel& m) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::Comment(
      "colltune-predict benchmark: computation model of this host (docs/forecast.md)");
  out << YAML::BeginMap;
  out << YAML::Key << "colltune_comp" << YAML::Value << kSchema;
  out << YAML::Key << "host" << YAML::Value << m.host;
  out << YAML::Key << "blas" << YAML::Value << m.blas;
  out << YAML::Key << "occupancy" << YAML::Value << m.occupancy;
  out << YAML::Key << "kernels" << YAML::Value << YAML::BeginMap;
  for (const forecast::KernelModel& k : m.kernels) {
    out << YAML::Key << forecast::kernel_name(k.kernel) << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "sizes" << YAML::Value << forecast::kernel_sizes(k.kernel);
    out << YAML::Key << "range" << YAML::Value << YAML::Flow << YAML::BeginSeq << k.lo << k.hi
        << YAML::EndSeq;
    out << YAML::Key << "degree" << YAML::Value << k.time.degree;
    out << YAML::Key << "terms" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& t : k.time.terms) {
      out << YAML::Flow << YAML::BeginSeq;
      for (const int e : t) out << e;
      out << YAML::EndSeq;
    }
    out << YAML::EndSeq;
    out << YAML::Key << "coef" << YAML::Value << YAML::Flow << k.time.coef;
    emit_error(out, "selection_error", k.selection);
    emit_error(out, "validation_error", k.validation);
    emit_samples(out, "fitted", k.fitted);
    emit_samples(out, "validated", k.validated);
    out << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

forecast::CompModel parse_comp_model(const std::string& text, const std::string& file) {
  const YamlReader r(file);
  const YAML::Node root = r.load_string(text);
  return rethrow_yaml_errors(file, [&] {
    r.require_map(root, "(top level)");
    r.check_keys(root, "(top level)", {"colltune_comp", "host", "blas", "occupancy", "kernels"});
    if (!root["colltune_comp"] || r.scalar(root["colltune_comp"], "colltune_comp") != "1") {
      r.fail(root["colltune_comp"] ? root["colltune_comp"] : root, "colltune_comp",
             "not a computation model of this version (valid: 1; rerun colltune-predict "
             "benchmark)");
    }
    forecast::CompModel m;
    m.host = root["host"] ? r.scalar(root["host"], "host") : "";
    m.blas = root["blas"] ? r.scalar(root["blas"], "blas") : "";
    if (root["occupancy"]) {
      const std::string o = r.scalar(root["occupancy"], "occupancy");
      char* end = nullptr;
      const long v = std::strtol(o.c_str(), &end, 10);
      if (o.empty() || *end != '\0' || v < 1 || v > 4096) {
        r.fail(root["occupancy"], "occupancy", "'" + o + "' is not a whole number from 1 to 4096");
      }
      m.occupancy = static_cast<int>(v);
    }
    const YAML::Node ks = root["kernels"];
    if (!ks) r.fail(root, "kernels", "absent");
    r.require_map(ks, "kernels");
    std::vector<std::string> names;
    for (const forecast::Kernel k : forecast::kKernels)
      names.emplace_back(forecast::kernel_name(k));
    r.check_keys(ks, "kernels", names);
    constexpr double kBig = std::numeric_limits<double>::max();
    auto real = [&](const YAML::Node& n, const std::string& field, double lo, double hi) {
      const std::string s = r.scalar(n, field);
      char* end = nullptr;
      const double x = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || !std::isfinite(x) || x < lo || x > hi) {
        char range[64] = "";  // finite numbers need no range said
        if (hi < kBig) std::snprintf(range, sizeof range, " from %g to %g", lo, hi);
        if (hi == kBig && lo == 0) std::snprintf(range, sizeof range, " >= 0");
        r.fail(n, field, "'" + s + "' is not a finite number" + range);
      }
      return x;
    };
    for (const auto& kv : ks) {
      const std::string name = kv.first.as<std::string>();
      const std::string f = "kernels." + name;
      const YAML::Node k = kv.second;
      r.require_map(k, f);
      r.check_keys(k, f,
                   {"sizes", "range", "degree", "terms", "coef", "selection_error",
                    "validation_error", "fitted", "validated"});
      forecast::KernelModel km;
      km.kernel = *forecast::kernel_from_name(name);
      const int vars = forecast::kernel_vars(km.kernel);
      for (const char* need : {"range", "terms", "coef"}) {
        if (!k[need]) r.fail(k, f + "." + need, "absent");
      }
      r.require_seq(k["range"], f + ".range");
      if (k["range"].size() != 2) r.fail(k["range"], f + ".range", "needs [lo, hi]");
      km.lo = real(k["range"][0], f + ".range", 1, 1e12);
      km.hi = real(k["range"][1], f + ".range", km.lo, 1e12);
      r.require_seq(k["terms"], f + ".terms");
      r.require_seq(k["coef"], f + ".coef");
      if (k["terms"].size() != k["coef"].size() || k["terms"].size() == 0) {
        r.fail(k["coef"], f + ".coef", "needs one coefficient per term");
      }
      for (std::size_t i = 0; i < k["terms"].size(); ++i) {
        const YAML::Node t = k["terms"][i];
        r.require_seq(t, f + ".terms");
        if (static_cast<int>(t.size()) != vars) {
          r.fail(t, f + ".terms",
                 "each term needs " + std::to_string(vars) + " exponents (" +
                     forecast::kernel_sizes(km.kernel) + ")");
        }
        std::vector<int> e;
        int degree = 0;
        for (const auto& x : t) {
          e.push_back(static_cast<int>(real(x, f + ".terms", 0, 6)));
          degree += e.back();
        }
        km.time.terms.push_back(e);
        km.time.coef.push_back(real(k["coef"][i], f + ".coef", -kBig, kBig));
        km.time.degree = std::max(km.time.degree, degree);
      }
      for (const auto& [key, err] :
           {std::pair{"selection_error", &km.selection}, {"validation_error", &km.validation}}) {
        if (!k[key]) continue;
        r.require_map(k[key], f + "." + key);
        r.check_keys(k[key], f + "." + key, {"max", "mean"});
        if (k[key]["max"]) err->max = real(k[key]["max"], f + "." + key + ".max", 0, kBig);
        if (k[key]["mean"]) err->mean = real(k[key]["mean"], f + "." + key + ".mean", 0, kBig);
      }
      for (const auto& [key, out] :
           {std::pair{"fitted", &km.fitted}, {"validated", &km.validated}}) {
        if (!k[key]) continue;
        r.require_seq(k[key], f + "." + key);
        for (const auto& row : k[key]) {
          r.require_seq(row, f + "." + key);
          if (static_cast<int>(row.size()) != vars + 1) {
            r.fail(row, f + "." + key, "each sample needs its sizes and its seconds");
          }
          forecast::Sample s;
          for (int v = 0; v < vars; ++v) s.x.push_back(real(row[v], f + "." + key, 1, 1e12));
          s.y = real(row[vars], f + "." + key, 0, kBig);
          out->push_back(s);
        }
      }
      m.kernels.push_back(std::move(km));
    }
    return m;
  });
}

forecast::CompModel load_comp_model(const std::string& file) {
  const MappedString text = read_text_file(file);
  return parse_comp_model(std::string(text.data(), text.size()), file);
}

void save_comp_model(const forecast::CompModel& m, const std::string& file) {
  write_file_atomically(file, emit_comp_model(m));
}

}  // namespace colltune

#include "model_yaml.hpp"

#include <cmath>
#include <map>
#include <unordered_set>

namespace colltune::model {

namespace {

YAML::Node estimate_node(const Estimate& e) {
  YAML::Node n(YAML::NodeType::Sequence);
  n.SetStyle(YAML::EmitterStyle::Flow);
  n.push_back(e.value);
  n.push_back(e.ci);
  return n;
}

YAML::Node curve_node(const Curve& c) {
  YAML::Node n(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < c.m.size(); ++i) {
    YAML::Node pt(YAML::NodeType::Sequence);
    pt.SetStyle(YAML::EmitterStyle::Flow);
    pt.push_back(c.m[i]);
    pt.push_back(c.y[i]);
    n.push_back(pt);
  }
  return n;
}

YAML::Node curves_node(const std::array<std::map<std::string, Curve>, kNumOps>& curves) {
  YAML::Node n(YAML::NodeType::Map);
  for (int op = 0; op < kNumOps; ++op) {
    YAML::Node per(YAML::NodeType::Map);
    for (const auto& [name, c] : curves[op]) per[name] = curve_node(c);
    n[std::string(op_name(static_cast<Op>(op)))] = per;
  }
  return n;
}

}  // namespace

std::string fingerprint(const PlatformModel& pm) {
  std::string s = YAML::Dump(to_yaml(pm, false));
  const auto& ib = pm.params.inv_beta;
  s.reserve(s.size() + ib.size() * 2 * sizeof(double));
  for (const Estimate& e : ib) {
    s.append(reinterpret_cast<const char*>(&e.value), sizeof e.value);
    s.append(reinterpret_cast<const char*>(&e.ci), sizeof e.ci);
  }
  return s;
}

YAML::Node to_yaml(const PlatformModel& pm, bool links) {
  YAML::Node n(YAML::NodeType::Map);
  YAML::Node ids(YAML::NodeType::Sequence);
  ids.SetStyle(YAML::EmitterStyle::Flow);
  for (const auto& s : pm.identities) ids.push_back(s);
  n["identities"] = ids;
  YAML::Node c(YAML::NodeType::Sequence), t(YAML::NodeType::Sequence), ib(YAML::NodeType::Sequence);
  const int k = pm.params.size();
  for (int i = 0; i < k; ++i) {
    c.push_back(estimate_node(pm.params.C[i]));
    t.push_back(estimate_node(pm.params.t[i]));
    if (!links) continue;
    YAML::Node row(YAML::NodeType::Sequence);
    row.SetStyle(YAML::EmitterStyle::Flow);
    for (int j = 0; j < k; ++j) {
      row.push_back(estimate_node(pm.params.inv_beta[static_cast<std::size_t>(i) * k + j]));
    }
    ib.push_back(row);
  }
  n["C"] = c;
  n["t"] = t;
  n["inv_beta"] = ib;
  for (const auto& [key, v] : {std::pair{"o", &pm.params.o}, std::pair{"port", &pm.params.port},
                               std::pair{"port_in", &pm.params.port_in}}) {
    if (v->empty()) continue;
    YAML::Node seq(YAML::NodeType::Sequence);
    for (int i = 0; i < k; ++i) seq.push_back(estimate_node((*v)[i]));
    n[key] = seq;
  }
  YAML::Node th(YAML::NodeType::Map);
  th["S"] = estimate_node(pm.S);
  th["M1"] = estimate_node(pm.M1);
  th["M2"] = estimate_node(pm.M2);
  th["kappa1"] = estimate_node(pm.kappa1);
  th["kappa2"] = estimate_node(pm.kappa2);
  n["thresholds"] = th;
  n["message_bytes"] = pm.message_m;
  if (std::isfinite(pm.params.eager)) n["eager_bytes"] = pm.params.eager;  // absent: every size
  n["correction"] = curves_node(pm.correction);
  bool other = false;
  for (const auto& per : pm.correction_other_root) other = other || !per.empty();
  if (other) n["correction_other_root"] = curves_node(pm.correction_other_root);
  if (pm.correction_roots[0] >= 0 && pm.correction_roots[1] >= 0) {
    YAML::Node roots(YAML::NodeType::Sequence);
    roots.SetStyle(YAML::EmitterStyle::Flow);
    for (int i : pm.correction_roots)
      roots.push_back(pm.identities.at(static_cast<std::size_t>(i)));
    n["correction_roots"] = roots;
  }
  bool third = false;
  for (const auto& per : pm.correction_unlike_root) third = third || !per.empty();
  if (third && pm.unlike_roots[2] >= 0) {
    YAML::Node u(YAML::NodeType::Map), roots(YAML::NodeType::Sequence);
    roots.SetStyle(YAML::EmitterStyle::Flow);
    for (int i : pm.unlike_roots) roots.push_back(pm.identities.at(static_cast<std::size_t>(i)));
    u["roots"] = roots;
    u["curves"] = curves_node(pm.correction_unlike_root);
    n["correction_unlike_root"] = u;
  }
  n["error"] = curves_node(pm.error);
  n["margin"] = pm.margin;
  YAML::Node nat(YAML::NodeType::Map);
  for (int op = 0; op < kNumOps; ++op) {
    nat[std::string(op_name(static_cast<Op>(op)))] = std::string(native_kind_name(pm.native[op]));
  }
  n["native"] = nat;
  return n;
}

namespace {

// A finite number in [lo, hi] (hi may be infinite: .inf is then accepted).
double real(const YamlReader& y, const YAML::Node& n, const std::string& f, double lo, double hi) {
  double v = 0;
  if (!n || !n.IsScalar() || !YAML::convert<double>::decode(n, v) || std::isnan(v)) {
    y.fail(n, f, "expected a number");
  }
  if (v < lo || v > hi) {
    y.fail(n, f,
           "out of range (valid: " + std::to_string(lo) + " to " +
               (std::isinf(hi) ? std::string(".inf") : std::to_string(hi)) + ")");
  }
  return v;
}

// Delays and per-byte costs are seconds; a second per message or per byte is absurd. Only
// 1/beta may be negative (senders' costs that overlap the transfer, src/model/estimate.cpp).
constexpr double kAbsurdSeconds = 1.0;

Estimate estimate(const YamlReader& y, const YAML::Node& n, const std::string& f, double lo,
                  double hi) {
  y.require_seq(n, f);
  if (n.size() != 2) y.fail(n, f, "expected [value, confidence half-width]");
  return {real(y, n[0], f + "[0]", lo, hi), real(y, n[1], f + "[1]", 0, HUGE_VAL)};
}

// Values in [lo, 1e6]: corrections (measured / predicted) are positive, errors may be 0.
std::array<std::map<std::string, Curve>, kNumOps> curves(const YamlReader& y, const YAML::Node& n,
                                                         const std::string& f, double lo) {
  std::array<std::map<std::string, Curve>, kNumOps> out;
  if (!n) return out;
  y.require_map(n, f);
  y.check_keys(n, f, {"bcast", "scatter", "gather"});
  for (const auto& kv : n) {
    const Op op = *op_from_name(kv.first.Scalar());
    const std::string g = f + "." + kv.first.Scalar();
    y.require_map(kv.second, g);
    for (const auto& a : kv.second) {
      const std::string name = a.first.Scalar(), h = g + "." + name;
      if (retired_algorithm(op, name)) continue;
      if (!find_algorithm(op, name)) {
        y.fail(a.first, h, "unknown algorithm (valid: " + algorithm_choices(op) + ")");
      }
      y.require_seq(a.second, h);
      Curve c;
      for (std::size_t i = 0; i < a.second.size(); ++i) {
        const std::string p = h + "[" + std::to_string(i) + "]";
        const YAML::Node pt = a.second[i];
        y.require_seq(pt, p);
        if (pt.size() != 2) y.fail(pt, p, "expected [bytes, value]");
        const double m = real(y, pt[0], p + "[0]", 1, static_cast<double>(kAbsurdBytes));
        if (!c.m.empty() && m <= c.m.back()) y.fail(pt, p, "sizes must increase");
        c.m.push_back(m);
        c.y.push_back(real(y, pt[1], p + "[1]", lo, 1e6));
      }
      out[static_cast<int>(op)][name] = std::move(c);
    }
  }
  return out;
}

// A correction below this would make its algorithm look free: a ratio measured / predicted a
// million times off is no model (the upper bound, 1e6, is the same the other way).
constexpr double kLeastCorrection = 1e-6;

// A sequence of as many of pm's identities as `out` holds, their indices into `out`; `what`
// names them for the error ("two identities (...)").
template <std::size_t N>
void identity_list(const YamlReader& y, const PlatformModel& pm, const YAML::Node& n,
                   const std::string& f, const std::string& what, std::array<int, N>& out) {
  y.require_seq(n, f);
  if (n.size() != N) y.fail(n, f, "must name " + what);
  for (std::size_t i = 0; i < N; ++i) {
    const std::string g = f + "[" + std::to_string(i) + "]";
    const std::string id = y.scalar(n[i], g);
    out[i] = pm.find_identity(id);
    if (out[i] < 0) y.fail(n[i], g, "'" + id + "' is not one of model.identities");
  }
}
}  // namespace

PlatformModel parse_platform_model(const YamlReader& y, const YAML::Node& n, int schema) {
  PlatformModel pm;
  const std::string f = "model";
  y.require_map(n, f);
  y.check_keys(n, f,
               {"identities", "C", "t", "inv_beta", "o", "port", "port_in", "thresholds",
                "message_bytes", "eager_bytes", "correction", "correction_other_root",
                "correction_roots", "correction_unlike_root", "error", "margin", "native"});
  for (const char* key : {"identities", "C", "t", "inv_beta", "thresholds"}) {
    if (!n[key]) y.fail(n, f + "." + key, "missing");
  }
  y.require_seq(n["identities"], f + ".identities");
  std::unordered_set<std::string> seen;  // duplicates in O(k), not O(k^2)
  for (std::size_t i = 0; i < n["identities"].size(); ++i) {
    const std::string id =
        y.scalar(n["identities"][i], f + ".identities[" + std::to_string(i) + "]");
    if (!seen.insert(id).second)
      y.fail(n["identities"][i], f + ".identities", "'" + id + "' listed twice");
    pm.identities.push_back(id);
  }
  const std::size_t k = pm.identities.size();
  if (k == 0) y.fail(n["identities"], f + ".identities", "must list at least one identity");
  pm.params.host = host_groups(pm.identities);
  for (const char* key : {"C", "t", "inv_beta", "o", "port", "port_in"}) {
    if (!n[key]) continue;  // o, port and port_in are optional (none: LMO as published)
    y.require_seq(n[key], f + "." + key);
    if (n[key].size() != k) {
      y.fail(
          n[key], f + "." + key,
          "has " + std::to_string(n[key].size()) + " entries, identities has " + std::to_string(k));
    }
  }
  for (std::size_t i = 0; i < k; ++i) {
    const std::string s = "[" + std::to_string(i) + "]";
    // Every prediction must be positive: C > 0 (two processes of one identity exchange an
    // empty message in 2 C), t >= 0 (calibration clamps it, and kappa, at 0).
    pm.params.C.push_back(estimate(y, n["C"][i], f + ".C" + s, -kAbsurdSeconds, kAbsurdSeconds));
    if (pm.params.C[i].value <= 0) {
      y.fail(n["C"][i][0], f + ".C" + s + "[0]", "must be positive (an empty message's delay)");
    }
    pm.params.t.push_back(estimate(y, n["t"][i], f + ".t" + s, 0, kAbsurdSeconds));
    if (n["port"]) {
      pm.params.port.push_back(estimate(y, n["port"][i], f + ".port" + s, 0, kAbsurdSeconds));
    }
    if (n["port_in"]) {
      pm.params.port_in.push_back(
          estimate(y, n["port_in"][i], f + ".port_in" + s, 0, kAbsurdSeconds));
    }
    if (n["o"]) {
      pm.params.o.push_back(
          estimate(y, n["o"][i], f + ".o" + s, 0, std::max(0.0, pm.params.C[i].value)));
    }
    const YAML::Node row = n["inv_beta"][i];
    y.require_seq(row, f + ".inv_beta" + s);
    if (row.size() != k) y.fail(row, f + ".inv_beta" + s, "must have one entry per identity");
    for (std::size_t j = 0; j < k; ++j) {
      pm.params.inv_beta.push_back(estimate(y, row[j],
                                            f + ".inv_beta" + s + "[" + std::to_string(j) + "]",
                                            -kAbsurdSeconds, kAbsurdSeconds));
    }
  }
  fill_host_links(&pm.params);
  const YAML::Node th = n["thresholds"];
  y.require_map(th, f + ".thresholds");
  y.check_keys(th, f + ".thresholds", {"S", "M1", "M2", "kappa1", "kappa2"});
  auto thr = [&](const char* key, double lo, double hi) {
    if (!th[key]) y.fail(th, f + ".thresholds." + key, "missing");
    return estimate(y, th[key], f + ".thresholds." + key, lo, hi);
  };
  pm.S = thr("S", 0, HUGE_VAL);
  pm.M1 = thr("M1", 0, HUGE_VAL);
  pm.M2 = thr("M2", 0, HUGE_VAL);
  pm.kappa1 = thr("kappa1", 0, kAbsurdSeconds);
  pm.kappa2 = thr("kappa2", 0, kAbsurdSeconds);
  if (pm.M1.value > pm.M2.value) y.fail(th["M1"], f + ".thresholds.M1", "must not exceed M2");
  pm.params.S = pm.S.value;
  pm.params.M1 = pm.M1.value;
  pm.params.M2 = pm.M2.value;
  pm.params.kappa1 = pm.kappa1.value;
  pm.params.kappa2 = pm.kappa2.value;
  if (n["message_bytes"]) {
    pm.message_m =
        real(y, n["message_bytes"], f + ".message_bytes", 0, static_cast<double>(kAbsurdBytes));
  }
  if (n["eager_bytes"]) {  // absent (older tables): every message eager, as they were predicted
    pm.params.eager =
        real(y, n["eager_bytes"], f + ".eager_bytes", 0, static_cast<double>(kAbsurdBytes));
  }
  pm.correction = curves(y, n["correction"], f + ".correction", kLeastCorrection);
  pm.correction_other_root =
      curves(y, n["correction_other_root"], f + ".correction_other_root", kLeastCorrection);
  if (const YAML::Node roots = n["correction_roots"]) {  // absent (older tables): by position
    identity_list(y, pm, roots, f + ".correction_roots",
                  "two identities (rank 0's, the second root's)", pm.correction_roots);
  }
  if (const YAML::Node u = n["correction_unlike_root"]) {  // absent: no third root swept
    const std::string g = f + ".correction_unlike_root";
    y.require_map(u, g);
    y.check_keys(u, g, {"roots", "curves"});
    if (!u["roots"]) y.fail(u, g + ".roots", "missing");
    identity_list(y, pm, u["roots"], g + ".roots",
                  "three identities (rank 0's, the last rank's, the third root's)",
                  pm.unlike_roots);
    pm.correction_unlike_root = curves(y, u["curves"], g + ".curves", kLeastCorrection);
  }
  pm.error = curves(y, n["error"], f + ".error", 0);
  if (n["margin"]) pm.margin = real(y, n["margin"], f + ".margin", 0, 10);
  if (const YAML::Node nat = n["native"]) {  // absent (older tables): MPICH's selection
    y.require_map(nat, f + ".native");
    y.check_keys(nat, f + ".native", {"bcast", "scatter", "gather"});
    std::string valid;
    for (NativeKind k : kNativeKinds) {
      valid += (valid.empty() ? "" : ", ") + std::string(native_kind_name(k));
    }
    for (const auto& kv : nat) {
      const std::string g = f + ".native." + kv.first.Scalar();
      auto k = parse_native_kind(y.scalar(kv.second, g));
      if (!k || (schema < 3 && *k == NativeKind::kOmpi)) {
        y.fail(kv.second, g, "unknown model of native (valid: " + valid + ")");
      }
      const Op op = *op_from_name(kv.first.Scalar());
      if (schema < 3 && op == Op::kGather && *k == NativeKind::kMpich) k = NativeKind::kBinomial;
      pm.native[static_cast<int>(op)] = *k;
    }
  }
  return pm;
}

}  // namespace colltune::model

// Fitting (no MPI): thresholds from the sweeps, which model of native fits, per-identity
// parameters, validation on held-out sizes (fit.hpp).
#include "fit.hpp"

#include <gsl/gsl_fit.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

#include "../model/breaks.hpp"

namespace colltune::calibrate {

using model::Estimate;
using model::PlatformModel;

std::string fmt(double v, int prec) {
  std::ostringstream s;
  s.precision(prec);
  s << v;
  return s.str();
}

namespace {

const Sweep& find_sweep(const std::vector<Sweep>& v, Op op, std::string_view alg) {
  for (const Sweep& s : v) {
    if (s.op == op && s.alg->name == alg && s.root == 0) return s;
  }
  return v.front();  // the registry always has linear (checked by the caller)
}

// Training rows of a sweep: (m, y).
void training(const Sweep& s, const std::vector<double>& y, std::vector<double>* xm,
              std::vector<double>* ym) {
  for (std::size_t i = 0; i < s.m.size(); ++i) {
    if (!s.held_out[i]) {
      xm->push_back(s.m[i]);
      ym->push_back(y[i]);
    }
  }
}

// A threshold between the last training row below the break and the break's first row.
Estimate threshold_at(const std::vector<double>& x, double first) {
  const auto it = std::find(x.begin(), x.end(), first);
  if (it == x.end() || it == x.begin()) return {model::kNever, 0};
  const double prev = *(it - 1);
  return {std::sqrt(prev * first), (first - prev) / 2};
}

// A sweep's typical precision: the median relative half-width of its training rows' intervals
// (0 without rows).
double typical_precision(const Sweep& s) {
  std::vector<double> rel;
  for (std::size_t i = 0; i < s.m.size(); ++i) {
    if (!s.held_out[i] && s.time[i] > 0) rel.push_back(s.ci[i] / s.time[i]);
  }
  if (rel.empty()) return 0;
  std::nth_element(rel.begin(), rel.begin() + rel.size() / 2, rel.end());
  return rel[rel.size() / 2];
}

// Breaks in the ratio of linear `op`'s measured time to its prediction by `p` (thresholds
// unset) over log2 of the size, on the training sizes: (those sizes, first size of each new
// segment). The model's own max-to-max switches (a different process setting the time) are
// no break here; serialization and protocol changes are. Residuals within the measurements'
// own precision (the median relative half-width of the rows' intervals, at least the default
// floor) are noise: on a noisy network 10 repetitions leave +-5%, which is no threshold.
struct RatioBreaks {
  std::vector<double> xm;  // the training sizes
  std::vector<double> at;  // the first size of each segment after a break
};
RatioBreaks ratio_breaks(const std::vector<Sweep>& sw, Op op, const model::LmoParams& p,
                         std::span<const int> members) {
  const Sweep& s = find_sweep(sw, op, "linear");
  std::vector<double> xm, ym, r, lx;
  training(s, s.time, &xm, &ym);
  for (std::size_t i = 0; i < xm.size(); ++i) {
    r.push_back(ym[i] / model::predict(op, *s.alg->shape, p, members, 0, xm[i]));
    lx.push_back(std::log2(xm[i]));
  }
  model::BreakOptions bo;
  bo.noise_floor = std::max(bo.noise_floor, typical_precision(s));
  const model::Breaks b = model::find_breaks(lx, r, bo);
  RatioBreaks out;
  for (std::size_t i = 1; i < b.segments.size(); ++i) {
    out.at.push_back(xm[b.segments[i].first]);
  }
  out.xm = std::move(xm);
  return out;
}

}  // namespace

// How well LMO parameters p predict the training rows of every modelled sweep on the whole
// communicator, of gather (gather true) or of bcast and scatter: the mean
// |ln(predicted / measured)|. Chooses among the passes' M, and whether S and gather's
// escalations fit.
double fit_error(const std::vector<Sweep>& sw, const model::LmoParams& p,
                 std::span<const int> members, bool gather) {
  double sum = 0;
  int rows = 0;
  for (const Sweep& s : sw) {
    if ((s.op == Op::kGather) != gather || !s.alg->shape || s.root != 0) continue;
    for (std::size_t i = 0; i < s.m.size(); ++i) {
      if (s.held_out[i] || s.time[i] <= 0) continue;
      const double pred = model::predict(s.op, *s.alg->shape, p, members, 0, s.m[i]);
      sum += pred > 0 ? std::abs(std::log(pred / s.time[i])) : 10;
      ++rows;
    }
  }
  return rows ? sum / rows : 0;
}

ScatterBreak scatter_threshold(const std::vector<Sweep>& sw, const model::LmoParams& p,
                               std::span<const int> members) {
  ScatterBreak out;
  if (members.size() <= 2) return out;
  const RatioBreaks b = ratio_breaks(sw, Op::kScatter, p, members);
  if (b.at.empty()) return out;
  out.first = threshold_at(b.xm, b.at.front());
  model::LmoParams with = p, without = p;
  with.S = out.first.value;
  without.S = model::kNever;
  if (fit_error(sw, with, members) < fit_error(sw, without, members)) out.S = out.first;
  return out;
}

// Per-rank parameters averaged into per-identity ones; a link between two processes of one
// identity is measured when it has two, else the identity's fastest link (LmoParams::ib_alike).
model::LmoParams by_identity(const model::LmoParams& p, const std::vector<int>& of_rank, int k) {
  const int n = p.size();
  std::vector<int> count(k, 0);
  for (int i = 0; i < n; ++i) ++count[of_rank[i]];
  // A per-process vector (C, t, o, port) averaged per identity; empty stays empty.
  auto average = [&](const std::vector<Estimate>& v) {
    std::vector<Estimate> out(v.empty() ? 0 : k);
    for (int i = 0; i < n && !v.empty(); ++i) {
      out[of_rank[i]].value += v[i].value / count[of_rank[i]];
      out[of_rank[i]].ci += v[i].ci / count[of_rank[i]];
    }
    return out;
  };
  model::LmoParams q;
  q.C = average(p.C);
  q.t = average(p.t);
  q.o = average(p.o);
  q.port = average(p.port);
  q.port_in = average(p.port_in);
  q.inv_beta.assign(static_cast<std::size_t>(k) * k, {});
  std::vector<int> links(static_cast<std::size_t>(k) * k, 0);
  Estimate all{};
  int nall = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const Estimate& e = p.inv_beta[static_cast<std::size_t>(i) * n + j];
      const std::size_t ab = static_cast<std::size_t>(of_rank[i]) * k + of_rank[j];
      q.inv_beta[ab].value += e.value;
      q.inv_beta[ab].ci += e.ci;
      ++links[ab];
      all.value += e.value;
      all.ci += e.ci;
      ++nall;
    }
  }
  for (std::size_t ab = 0; ab < links.size(); ++ab) {
    Estimate& f = q.inv_beta[ab];
    if (links[ab] > 0) {
      f.value /= links[ab];
      f.ci /= links[ab];
    } else if (nall > 0) {
      f = {all.value / nall, all.ci / nall};
    }
  }
  for (int a = 0; a < k; ++a) {  // an identity's own link, unmeasured: its fastest one
    const std::size_t aa = static_cast<std::size_t>(a) * k + a;
    if (links[aa] == 0) q.inv_beta[aa].value = q.ib_alike(a);
  }
  return q;
}

namespace {

// Slope of r over x (GSL least squares) with its 95% half-width; 0 with fewer than 3 rows.
Estimate residual_slope(const std::vector<double>& x, const std::vector<double>& r) {
  if (x.size() < 3) return {0, 0};
  double c0, c1, cov00, cov01, cov11, ssr;
  gsl_fit_linear(x.data(), 1, r.data(), 1, x.size(), &c0, &c1, &cov00, &cov01, &cov11, &ssr);
  // An extra cost is never negative: a negative slope means the model already over-predicts
  // there (e.g. flows that share a link, not LMO), which the correction curves handle; kappa
  // must not drive predictions below zero.
  return {std::max(c1, 0.0), 1.96 * std::sqrt(std::max(cov11, 0.0))};
}

GatherThresholds with_kappas(const std::vector<Sweep>& sw, model::LmoParams p,
                             std::span<const int> members, Estimate m1, Estimate m2) {
  GatherThresholds g;
  g.M1 = m1;
  g.M2 = m2;
  g.apply(&p);  // no kappas yet
  const Sweep& s = find_sweep(sw, Op::kGather, "linear");
  std::vector<double> lo_x, lo_r, hi_x, hi_r;
  for (std::size_t i = 0; i < s.m.size(); ++i) {
    if (s.held_out[i]) continue;
    const double miss =
        s.time[i] - model::predict(Op::kGather, *s.alg->shape, p, members, 0, s.m[i]);
    if (s.m[i] < m1.value) {
      lo_x.push_back(s.m[i]);
      lo_r.push_back(miss);
    } else if (s.m[i] > m2.value) {
      hi_x.push_back(s.m[i]);
      hi_r.push_back(miss);
    }
  }
  g.kappa1 = residual_slope(lo_x, lo_r);
  g.kappa2 = residual_slope(hi_x, hi_r);
  return g;
}

}  // namespace

// M1 and M2 at the first and last break of the linear gather's measured / predicted (LMO's
// escalations: TCP incast serializes large messages into the root, docs/model.md), when
// predicting with them fits the gather sweeps better by kEscalationGain at least than without
// them, kappa1 over every size or below the first break only (a root whose own link binds its
// gather fits them alike); else none, and kappa1 over every size. A switch that shares the root's
// port fairly among its senders also makes a break (where the port takes over from the senders'
// latency), but serializing the senders' own transfers there over-predicts up to twice, and a
// correction measured at root 0 then does not carry to other roots.
GatherThresholds gather_thresholds(const std::vector<Sweep>& sw, const model::LmoParams& p,
                                   std::span<const int> members) {
  const Estimate never{model::kNever, 0};
  GatherThresholds none = with_kappas(sw, p, members, never, never);
  const RatioBreaks b = ratio_breaks(sw, Op::kGather, p, members);
  if (b.at.empty()) return none;
  none.first = threshold_at(b.xm, b.at.front());
  GatherThresholds esc = with_kappas(sw, p, members, none.first, threshold_at(b.xm, b.at.back()));
  esc.first = none.first;
  // The alternative with kappa1 below the break and nothing above: what is left for the
  // escalations to fit better is the serialization above M2 (and kappa2), not the small sizes.
  GatherThresholds below = with_kappas(sw, p, members, none.first, never);
  model::LmoParams with = p, without = p, small = p;
  esc.apply(&with);
  none.apply(&without);
  below.apply(&small);
  const double plain =
      std::min(fit_error(sw, without, members, true), fit_error(sw, small, members, true));
  return fit_error(sw, with, members, true) < (1 - kEscalationGain) * plain ? esc : none;
}

namespace {

// Native's training rows of op, at every root swept, each with the fixed binomial and linear
// algorithms' times where they were swept at the same root and size.
std::vector<model::NativeRow> native_rows(const std::vector<Sweep>& sw, int op) {
  std::vector<model::NativeRow> rows;
  auto fixed = [&](std::string_view name, int root, double m, double* out) {
    for (const Sweep& s : sw) {
      if (static_cast<int>(s.op) != op || s.root != root || s.alg->name != name) continue;
      for (std::size_t i = 0; i < s.m.size(); ++i) {
        if (s.m[i] == m && s.time[i] > 0) *out = s.time[i];
      }
    }
  };
  for (const Sweep& s : sw) {
    if (static_cast<int>(s.op) != op || !s.alg->native()) continue;
    for (std::size_t i = 0; i < s.m.size(); ++i) {
      if (s.held_out[i]) continue;
      model::NativeRow r{s.root, s.m[i], s.time[i]};
      fixed("binomial", s.root, s.m[i], &r.binomial);
      fixed("linear", s.root, s.m[i], &r.linear);
      rows.push_back(r);
    }
  }
  return rows;
}

}  // namespace

// Sets pm->native[op] to the model of native that fits native's training rows at every root
// swept best (model::identify_native). Returns a report line per op with every model's fit.
std::string identify_native(const std::vector<Sweep>& sw, std::span<const int> members,
                            PlatformModel* pm) {
  std::string out;
  for (int op = 0; op < kNumOps; ++op) {
    const std::vector<model::NativeRow> rows = native_rows(sw, op);
    const model::NativeFit f =
        model::identify_native(static_cast<Op>(op), pm->params, members, rows);
    pm->native[op] = f.best;
    std::string fits;
    for (std::size_t k = 0; k < f.fit.size(); ++k) {
      fits += std::string(k ? ", " : "") +
              std::string(model::native_kind_name(model::kNativeKinds[k])) + " " + fmt(f.fit[k], 3);
    }
    out += "native " + std::string(op_name(static_cast<Op>(op))) + " follows " +
           std::string(model::native_kind_name(f.best)) +
           " (mean |ln(predicted / measured)| of each model: " + fits + ")\n";
  }
  return out;
}

ToldSizes native_telling_sizes(const std::vector<Sweep>& sw, std::span<const int> members,
                               const PlatformModel& pm, int reps, double left) {
  ToldSizes at{};
  const int n = static_cast<int>(members.size());
  const std::array<int, 2> roots = {0, n - 1};
  for (int op = 0; op < kNumOps; ++op) {
    const std::vector<model::NativeRow> rows = native_rows(sw, op);
    double top = 0;
    for (const model::NativeRow& r : rows) {
      if (r.root == 0) top = std::max(top, r.m);
    }
    if (top <= 0) continue;
    std::vector<double> sizes;
    for (int k = 0; k <= 62; ++k) {
      const double m = sweep_size(k);
      if (m * n > kMaxBytesTotal) break;
      if (m > top) sizes.push_back(m);
    }
    const model::NativeFit f =
        model::identify_native(static_cast<Op>(op), pm.params, members, rows);
    const model::Telling t =
        model::telling_sizes(static_cast<Op>(op), pm.params, members, f, roots, sizes);
    for (std::size_t k = 0; k < t.sizes.size() && k < at[op].size(); ++k) {
      const double cost = 2 * reps * t.seconds[k];  // uncorrected: a model may be 2x fast
      if (cost > left) break;
      at[op][k] = t.sizes[k];
      left -= cost;
    }
  }
  return at;
}

// Phase 5: held-out sizes, predicted against measured, per op and algorithm.
Validation validate(const PlatformModel& pm, const model::LmoParams& p,
                    const std::vector<Sweep>& sw, std::span<const int> members, int n) {
  Validation v;
  v.node = YAML::Node(YAML::NodeType::Map);
  YAML::Node cases(YAML::NodeType::Sequence), summary(YAML::NodeType::Sequence);
  std::ostringstream rep;
  rep << "validation on held-out sizes (" << n << " processes, root 0 unless said)\n";
  rep << "op       algorithm          median_err  max_err  cases\n";
  // Per op and algorithm, per size: the largest error at any root swept.
  std::array<std::map<std::string, std::map<double, double>>, kNumOps> worst;
  for (const Sweep& s : sw) {
    std::vector<double> errs;
    std::map<double, double>& ev = worst[static_cast<int>(s.op)][std::string(s.alg->name)];
    // A held-out row's own uncertainty counts up to its sweep's typical one: one noisy series
    // of repetitions is no error of the model (docs/calibration.md, "validated error").
    const double typical = typical_precision(s);
    for (std::size_t i = 0; i < s.m.size(); ++i) {
      if (!s.held_out[i]) continue;
      const double pred = model::predict_algorithm(pm, p, *s.alg, members, s.root, s.m[i]);
      const double err = std::fabs(pred - s.time[i]) / s.time[i];
      errs.push_back(err);
      double& e = ev[s.m[i]];
      e = std::max(e, err + std::min(s.ci[i] / s.time[i], typical));
      YAML::Node row(YAML::NodeType::Sequence);
      row.SetStyle(YAML::EmitterStyle::Flow);
      row.push_back(std::string(op_name(s.op)));
      row.push_back(s.label());
      row.push_back(s.m[i]);
      row.push_back(pred);
      row.push_back(s.time[i]);
      cases.push_back(row);
    }
    if (errs.empty()) continue;
    std::vector<double>& sorted = errs;
    std::sort(sorted.begin(), sorted.end());
    const double med = sorted.size() % 2
                           ? sorted[sorted.size() / 2]
                           : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    YAML::Node row(YAML::NodeType::Map);
    row.SetStyle(YAML::EmitterStyle::Flow);
    row["op"] = std::string(op_name(s.op));
    row["algorithm"] = s.label();
    row["median"] = med;
    row["max"] = sorted.back();
    row["cases"] = static_cast<int>(errs.size());
    summary.push_back(row);
    char line[128];
    std::snprintf(line, sizeof line, "%-8s %-17s %10.2f%% %7.2f%% %6zu\n",
                  std::string(op_name(s.op)).c_str(), s.label().c_str(), 100 * med,
                  100 * sorted.back(), errs.size());
    rep << line;
  }
  for (int op = 0; op < kNumOps; ++op) {
    for (const auto& [name, by_m] : worst[op]) {
      model::Curve& c = v.error[op][name];
      for (const auto& [m, e] : by_m) {
        c.m.push_back(m);
        c.y.push_back(e);
      }
    }
  }
  v.node["summary"] = summary;
  v.node["cases"] = cases;  // [op, algorithm, bytes, predicted s, measured s]
  v.report = rep.str();
  return v;
}

// Orders a sweep's rows by size (stable).
void sort_by_size(Sweep* s) {
  std::vector<std::size_t> ix(s->m.size());
  for (std::size_t i = 0; i < ix.size(); ++i) ix[i] = i;
  std::stable_sort(ix.begin(), ix.end(), [&](auto a, auto b) { return s->m[a] < s->m[b]; });
  Sweep o = *s;
  for (std::size_t i = 0; i < ix.size(); ++i) {
    o.m[i] = s->m[ix[i]], o.time[i] = s->time[ix[i]], o.ci[i] = s->ci[ix[i]];
    o.held_out[i] = s->held_out[ix[i]];
  }
  *s = std::move(o);
}

// Whether most sweeps step between rows a and b: grow faster than the sizes or shrink, by more
// than 5% and than both rows' relative half-widths.
bool steps_between(const std::vector<Sweep>& sw, std::size_t a, std::size_t b) {
  std::size_t steps = 0;
  for (const Sweep& s : sw) {
    const double ta = s.time[a], tb = s.time[b];
    if (ta <= 0 || tb <= 0) continue;
    const double tol = std::max(0.05, s.ci[a] / ta + s.ci[b] / tb);
    if (tb / ta > s.m[b] / s.m[a] * (1 + tol) || tb < ta * (1 - tol)) ++steps;
  }
  return 2 * steps >= sw.size();
}

// Sum over the sweeps of |ln(time b / time a)|: the half of a bracket that holds a step has more.
double change_between(const std::vector<Sweep>& sw, std::size_t a, std::size_t b) {
  double sum = 0;
  for (const Sweep& s : sw) {
    if (s.time[a] > 0 && s.time[b] > 0) sum += std::abs(std::log(s.time[b] / s.time[a]));
  }
  return sum;
}

}  // namespace colltune::calibrate

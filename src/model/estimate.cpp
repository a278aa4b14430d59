#include "estimate.hpp"

#include <gsl/gsl_cdf.h>

#include <algorithm>
#include <cmath>

namespace colltune::model {

namespace {

// Mean and confidence half-width of samples (Student t).
Estimate interval(const std::vector<double>& v, double confidence) {
  Estimate e;
  if (v.empty()) return e;
  double sum = 0;
  for (double x : v) sum += x;
  e.value = sum / v.size();
  if (v.size() < 2) return e;
  double ss = 0;
  for (double x : v) ss += (x - e.value) * (x - e.value);
  const double sd = std::sqrt(ss / (v.size() - 1));
  e.ci = gsl_cdf_tdist_Pinv(0.5 + confidence / 2, v.size() - 1) * sd / std::sqrt(v.size());
  return e;
}

}  // namespace

std::vector<std::array<int, 3>> lmo_triplets(int n, int per_root) {
  std::vector<std::array<int, 3>> out;
  const int others = n - 1;
  for (int i = 0; i < n && n >= 3; ++i) {
    // Pairs {i + a, i + a + d} of the others, nearest first: distinct, C(n - 1, 2) at most.
    int taken = 0;
    for (int d = 1; d < others && taken < per_root; ++d) {
      for (int a = 1; a + d <= others && taken < per_root; ++a, ++taken) {
        out.push_back({i, (i + a) % n, (i + a + d) % n});
      }
    }
  }
  return out;
}

void faster_first(const LmoMeasurements& x, std::vector<std::array<int, 3>>* triplets) {
  for (auto& [i, j, k] : *triplets) {
    if (x.full(i, k).value < x.full(i, j).value) std::swap(j, k);
  }
}

std::vector<std::vector<int>> fan_out_groups(const LmoMeasurements& x, int peers) {
  const int n = x.n;
  std::vector<std::vector<int>> out;
  if (n < 3) return out;
  const int k = std::min(peers, n - 1);
  for (int i = 0; i < n; ++i) {
    std::vector<int> others;
    for (int d = 1; d < n; ++d) others.push_back((i + d) % n);
    std::stable_sort(others.begin(), others.end(),
                     [&](int a, int b) { return x.full(i, a).value < x.full(i, b).value; });
    std::vector<int> g{i};
    g.insert(g.end(), others.begin(), others.begin() + k);
    out.push_back(std::move(g));
  }
  return out;
}

namespace {

// A fan-out only says something where the model misses it by more than the measurement's
// interval and 2% (else any noise would set a port that just binds).
constexpr double kFanOutFloor = 0.02;
bool misses(double predicted, const Estimate& measured) {
  return std::fabs(measured.value - predicted) >
         std::max(measured.ci, kFanOutFloor * measured.value);
}

// The value v in [0, hi] of *v at which f's predicted time reaches `time`, the time being
// nondecreasing in v: bisection (`grow`: hi may double until it is reached).
// `model`: fan_out_time or fan_in_time.
using GroupModel = double (*)(const LmoParams&, int, std::span<const int>, double);
double solve(double* v, double hi, bool grow, const LmoParams& p, const LmoMeasurements::FanOut& f,
             GroupModel model, double time) {
  auto at = [&](double x) {
    *v = x;
    return model(p, f.i, f.peers, f.bytes);
  };
  double lo = 0;
  if (at(lo) >= time) return lo;
  for (int it = 0; grow && it < 60 && at(hi) < time; ++it) hi *= 2;
  if (at(hi) < time) return hi;
  for (int it = 0; it < 100 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = (lo + hi) / 2;
    (at(mid) < time ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Fits the per-process parameter `slot` (o, port or port_in) to the experiments `xs` (fan-outs
// or fan-ins, as `model` predicts them) of `empty` size: a process keeps none[i] unless the
// model with it misses an experiment; then the value in [0, hi[i]] that meets it. Averaged
// over the process's experiments, with an interval.
template <typename Slot>
void fit_groups(LmoParams& p, int n, const std::vector<LmoMeasurements::FanOut>& xs,
                GroupModel model, bool empty, const std::vector<double>& none,
                const std::vector<double>& hi, bool grow, Slot slot, double confidence) {
  std::vector<std::vector<double>> vs(n);
  std::vector<double> width(n, 0);
  for (int i = 0; i < n; ++i) slot(p, i)->value = none[i];
  for (const auto& f : xs) {
    if (f.peers.empty() || (f.bytes == 0) != empty) continue;
    double* v = &slot(p, f.i)->value;
    if (!misses(model(p, f.i, f.peers, f.bytes), f.time)) {
      vs[f.i].push_back(none[f.i]);
      continue;
    }
    const double up = solve(v, hi[f.i], grow, p, f, model, f.time.value + f.time.ci);
    const double down =
        solve(v, hi[f.i], grow, p, f, model, std::max(0.0, f.time.value - f.time.ci));
    vs[f.i].push_back(solve(v, hi[f.i], grow, p, f, model, f.time.value));
    width[f.i] += (up - down) / 2;
    *v = none[f.i];
  }
  for (int i = 0; i < n; ++i) {
    if (vs[i].empty()) continue;
    *slot(p, i) = interval(vs[i], confidence);
    slot(p, i)->ci += width[i] / vs[i].size();
  }
}

}  // namespace

LmoParams estimate_lmo(const LmoMeasurements& x, double confidence) {
  const int n = x.n;
  LmoParams p;
  p.C.assign(n, {});
  p.t.assign(n, {});
  p.inv_beta.assign(static_cast<std::size_t>(n) * n, {});
  if (n < 2) return p;
  auto T0 = [&](int i, int j) { return x.empty(i, j).value; };

  // C_i = (T_ij + T_ik - T_jk) / 4 for every triplet; its mean over all pairs {j, k} of the
  // others is ((n - 2) A_i - (B - A_i)) / (4 P), A_i = sum_j T_ij, B = sum over all pairs,
  // P = C(n - 1, 2).
  if (n == 2) {
    p.C[0] = p.C[1] = {T0(0, 1) / 4, x.empty(0, 1).ci / 4};
  } else {
    std::vector<double> A(n, 0);
    double B = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        A[i] += T0(i, j);
        A[j] += T0(i, j);
        B += T0(i, j);
      }
    }
    const double pairs = (n - 1.0) * (n - 2.0) / 2;
    for (int i = 0; i < n; ++i) {
      p.C[i].value = ((n - 2) * A[i] - (B - A[i])) / (4 * pairs);
      // Its interval, propagated from the measurements' (independent): T_ij weighs
      // (n - 1) / (4P), every other T_jk -1 / (4P).
      double var = 0;
      for (int j = 0; j < n; ++j) {
        for (int k = j + 1; k < n; ++k) {
          const double w = (j == i || k == i) ? (n - 1) / (4 * pairs) : -1 / (4 * pairs);
          var += w * w * x.empty(j, k).ci * x.empty(j, k).ci;
        }
      }
      p.C[i].ci = std::sqrt(var);
    }
  }
  // Noise can put a fast process's C below 0; every message costs something (tables refuse
  // C <= 0: it would predict free messages).
  for (Estimate& c : p.C) c.value = std::max(c.value, 1e-9);

  // t_i: each one-to-two experiment rooted at i gives s_i = C_i + t_i M by inverting
  // one_to_two_time (nondecreasing in s_i) with the measured roundtrips; an experiment whose
  // time does not grow with s_i there (the slower peer served first) tells nothing and is
  // skipped. Its error bound: the measurements' and C_i's half-widths over M.
  std::vector<std::vector<double>> ts(n);
  std::vector<double> bound(n, 0);
  for (const auto& e : x.one_to_two) {
    const double ci = p.C[e.i].value, rj = x.full(e.i, e.j).value, rk = x.full(e.i, e.k).value;
    auto f = [&](double s) { return one_to_two_time(s, ci, rj, rk); };
    double lo = 0, hi = e.time.value;
    for (int it = 0; it < 100 && hi - lo > 1e-15 * e.time.value; ++it) {
      const double mid = (lo + hi) / 2;
      (f(mid) < e.time.value ? lo : hi) = mid;
    }
    const double s = (lo + hi) / 2, d = 1e-3 * e.time.value;
    if (f(s + d) - f(std::max(0.0, s - d)) < d) continue;  // flat: no information on s_i
    ts[e.i].push_back((s - ci) / x.m);
    bound[e.i] += (e.time.ci + x.full(e.i, e.k).ci + p.C[e.i].ci) / x.m;
  }
  // A time is never negative: with M small against the noise of C_i the mean can be.
  for (int i = 0; i < n; ++i) {
    p.t[i] = interval(ts[i], confidence);
    if (!ts[i].empty()) p.t[i].ci += bound[i] / ts[i].size();
    p.t[i].value = std::max(0.0, p.t[i].value);
  }

  // 1 / beta_ij = (T_ij(M) - T_ij(0)) / M - t_i - t_j: the fixed delays (and any per-message
  // constant, e.g. an envelope) cancel in the difference of the pair's roundtrips. It may be
  // negative (senders' costs that overlap the transfer, e.g. shaping at both ends of a
  // pipelined path), but a message's per-byte time t_i + 1 / beta_ij + t_j never is.
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const Estimate& tm = x.full(i, j);
      const Estimate& t0 = x.empty(i, j);
      Estimate& ib = p.inv_beta[static_cast<std::size_t>(i) * n + j];
      ib.value = std::max(0.0, (tm.value - t0.value) / x.m) - p.t[i].value - p.t[j].value;
      ib.ci = (tm.ci + t0.ci) / x.m + p.t[i].ci + p.t[j].ci;
    }
  }

  // o: what empty fan-outs take, within [0, C_i] (LMO's o = C where it meets them).
  if (!x.fan_out.empty()) {
    std::vector<double> c(n);
    for (int i = 0; i < n; ++i) c[i] = p.C[i].value;
    p.o = p.C;
    fit_groups(
        p, n, x.fan_out, fan_out_time, true, c, c, false,
        [](LmoParams& q, int i) { return &q.o[i]; }, confidence);
  }
  // The ports: what the M-byte fan-outs (fan-ins) take beyond the model without one.
  const auto fit_port = [&](LmoParams& q, const std::vector<LmoMeasurements::FanOut>& xs,
                            GroupModel model, std::vector<Estimate> LmoParams::*field) {
    if (xs.empty()) return;
    (q.*field).assign(n, {});
    fit_groups(
        q, n, xs, model, false, std::vector<double>(n, 0), std::vector<double>(n, 1e-9), true,
        [field](LmoParams& r, int i) { return &(r.*field)[i]; }, confidence);
  };
  const auto fit_ports = [&](LmoParams& q) {
    fit_port(q, x.fan_out, fan_out_time, &LmoParams::port);
    fit_port(q, x.fan_in, fan_in_time, &LmoParams::port_in);
  };
  // t_i into 1 / beta_ij of i's every link both ways (one message costs what it did).
  const auto onto_links = [&](LmoParams& q, int i) {
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      for (const std::size_t ij :
           {static_cast<std::size_t>(i) * n + j, static_cast<std::size_t>(j) * n + i}) {
        q.inv_beta[ij].value += q.t[i].value;
        q.inv_beta[ij].ci += q.t[i].ci;
      }
    }
    q.t[i] = {};
  };
  fit_ports(p);
  // A process whose concurrent transfers share a port beyond its serialized t both ways (its
  // fan-outs and its fan-ins) has its per-byte cost on its link: t_i moves onto its links and
  // the ports are fitted again without it. Else a slow host's link counts twice in what it
  // receives, as t and as its port (docs/model.md, "Per-byte costs on links").
  if (!x.fan_out.empty() && !x.fan_in.empty()) {
    bool moved = false;
    for (int i = 0; i < n; ++i) {
      if (p.t[i].value <= 0 || p.port[i].value <= 0 || p.port_in[i].value <= 0) continue;
      onto_links(p, i);
      moved = true;
    }
    if (moved) fit_ports(p);
    // Where LMO's serialized t meets the fan-outs and fan-ins, a port of the same rate shared
    // by the concurrent transfers would meet their totals too; when the sends were issued tells
    // the two apart (serialized, after o_i + t_i M each; shared, after o_i each). t moves where
    // the issue times fit it on the links better and LMO misses them.
    LmoParams q = p;
    std::vector<const LmoMeasurements::FanOut*> open(n, nullptr);
    for (const auto& f : x.fan_out) {
      if (f.bytes > 0 && f.issued.value >= 0 && !f.peers.empty() && p.t[f.i].value > 0) {
        open[f.i] = &f;
      }
    }
    bool any = false;
    for (int i = 0; i < n; ++i) {
      if (open[i]) onto_links(q, i), any = true;
    }
    if (any) {
      fit_ports(q);
      moved = false;
      for (int i = 0; i < n; ++i) {
        const LmoMeasurements::FanOut* f = open[i];
        if (!f) continue;
        const double lmo = fan_out_issued_time(p, i, f->peers, f->bytes);
        const double link = fan_out_issued_time(q, i, f->peers, f->bytes);
        if (misses(lmo, f->issued) &&
            std::fabs(link - f->issued.value) < std::fabs(lmo - f->issued.value)) {
          onto_links(p, i);
          moved = true;
        }
      }
      if (moved) fit_ports(p);
    }
  }
  return p;
}

}  // namespace colltune::model

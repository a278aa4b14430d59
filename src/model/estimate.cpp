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

  // t_i = (T_i(M) - max(T_ij(M), T_ik(M)) - 2 C_i) / M over the experiments rooted at i.
  std::vector<std::vector<double>> ts(n);
  for (const auto& e : x.one_to_two) {
    const double slower = std::max(x.full(e.i, e.j).value, x.full(e.i, e.k).value);
    ts[e.i].push_back((e.time.value - slower - 2 * p.C[e.i].value) / x.m);
  }
  for (int i = 0; i < n; ++i) p.t[i] = interval(ts[i], confidence);

  // 1 / beta_ij = (T_ij(M) - 2 C_i - 2 C_j) / M - t_i - t_j.
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const Estimate& tm = x.full(std::min(i, j), std::max(i, j));
      Estimate& ib = p.inv_beta[static_cast<std::size_t>(i) * n + j];
      ib.value =
          (tm.value - 2 * p.C[i].value - 2 * p.C[j].value) / x.m - p.t[i].value - p.t[j].value;
      ib.ci = (tm.ci + 2 * p.C[i].ci + 2 * p.C[j].ci) / x.m + p.t[i].ci + p.t[j].ci;
    }
  }
  return p;
}

}  // namespace colltune::model

#include "routine.hpp"

#include <algorithm>
#include <cmath>

namespace colltune::forecast {

double numroc(double n, double nb, int iproc, int nprocs) {
  const double blocks = std::floor(n / nb);
  double local = std::floor(blocks / nprocs) * nb;
  const double extra = blocks - std::floor(blocks / nprocs) * nprocs;  // blocks mod nprocs
  if (iproc < extra) {
    local += nb;
  } else if (iproc == extra) {
    local += n - blocks * nb;  // the last, partial block
  }
  return local;
}

RoutineForecast pdgemm(const LinkGraph& links, std::span<const int> ranks, const CompModel& comp,
                       Grid g, double M, double N, double K, double R) {
  RoutineForecast f;
  const int np = g.p * g.q;
  std::vector<double> clock(np, 0), busy(np, 0);
  auto proc = [&](int r, int c) { return r * g.q + c; };
  // The increasing ring of `members` (process indexes, the owner first) passing on `bytes`.
  auto ring = [&](const std::vector<int>& members, double bytes) {
    for (std::size_t h = 1; h < members.size(); ++h) {
      const int s = members[h - 1], d = members[h];
      const double arrive =
          std::max(clock[s], clock[d]) + comm(links, ranks[s], ranks[d], bytes).at(bytes);
      clock[s] = clock[d] = arrive;
    }
  };
  std::vector<double> mloc(g.p), nloc(g.q);
  for (int r = 0; r < g.p; ++r) mloc[r] = numroc(M, R, r, g.p);
  for (int c = 0; c < g.q; ++c) nloc[c] = numroc(N, R, c, g.q);
  const int steps = static_cast<int>(std::ceil(K / R));
  for (int k = 0; k < steps; ++k) {
    const double w = std::min(R, K - k * R);
    const int ck = k % g.q, rk = k % g.p;
    for (int r = 0; r < g.p; ++r) {  // A's block column along each process row
      std::vector<int> members;
      for (int j = 0; j < g.q; ++j) members.push_back(proc(r, (ck + j) % g.q));
      ring(members, 8 * mloc[r] * w);
    }
    for (int c = 0; c < g.q; ++c) {  // B's block row along each process column
      std::vector<int> members;
      for (int i = 0; i < g.p; ++i) members.push_back(proc((rk + i) % g.p, c));
      ring(members, 8 * w * nloc[c]);
    }
    for (int r = 0; r < g.p; ++r) {
      for (int c = 0; c < g.q; ++c) {
        if (mloc[r] == 0 || nloc[c] == 0) continue;
        const CompForecast t = forecast::comp(comp, Kernel::kDgemm, {mloc[r], nloc[c], w});
        clock[proc(r, c)] += t.seconds;
        busy[proc(r, c)] += t.seconds;
        f.extrapolated = f.extrapolated || t.outside;
      }
    }
  }
  for (int r = 0; r < g.p; ++r) {
    for (int c = 0; c < g.q; ++c) {
      const double kloc_a = numroc(K, R, c, g.q), kloc_b = numroc(K, R, r, g.p);
      f.bytes = std::max(f.bytes, 8 * (mloc[r] * kloc_a + kloc_b * nloc[c] + mloc[r] * nloc[c] +
                                       mloc[r] * R + R * nloc[c]));
    }
  }
  f.seconds = *std::max_element(clock.begin(), clock.end());
  f.compute = *std::max_element(busy.begin(), busy.end());
  return f;
}

std::vector<BestCase> best_pdgemm(const LinkGraph& links, std::span<const int> ranks,
                                  const CompModel& comp, int P, double M, double N, double K,
                                  std::span<const double> Rs) {
  std::vector<BestCase> out;
  for (int p = 1; p <= P; ++p) {
    for (int q = 1; p * q <= P && p * q <= static_cast<int>(ranks.size()); ++q) {
      for (const double R : Rs) {
        out.push_back({Grid{p, q}, R, pdgemm(links, ranks, comp, Grid{p, q}, M, N, K, R)});
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const BestCase& a, const BestCase& b) {
    return a.forecast.seconds < b.forecast.seconds;
  });
  return out;
}

}  // namespace colltune::forecast

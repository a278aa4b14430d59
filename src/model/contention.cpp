#include "contention.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace colltune::model {
namespace {

double per_byte(const LmoMeasurements& x, int i, int j) {
  return (x.full(i, j).value - x.empty(i, j).value) / x.m;
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

// What a star of private links gives each pair: the larger of the two processes' fastest
// per-byte time to any peer (star(i, j) = max(fastest[i], fastest[j])).
struct Star {
  std::vector<double> fastest;
  explicit Star(const LmoMeasurements& x) : fastest(x.n, std::numeric_limits<double>::infinity()) {
    for (int i = 0; i < x.n; ++i) {
      for (int j = 0; j < x.n; ++j) {
        if (i != j) fastest[i] = std::min(fastest[i], std::max(per_byte(x, i, j), 0.0));
      }
    }
  }
  double operator()(int i, int j) const { return std::max(fastest[i], fastest[j]); }
};

}  // namespace

std::vector<std::pair<int, int>> contended_pairs(const LmoMeasurements& x) {
  const int n = x.n;
  std::vector<std::pair<int, int>> out;
  if (n < 3 || x.m <= 0) return out;
  const Star star(x);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (per_byte(x, i, j) > kContended * star(i, j)) {
        out.emplace_back(i, j);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [n](auto a, auto b) {
    return mix(static_cast<std::uint64_t>(a.first) * n + a.second) <
           mix(static_cast<std::uint64_t>(b.first) * n + b.second);
  });
  return out;
}

void settle_contended(LmoMeasurements* x, const std::vector<std::pair<int, int>>& suspects,
                      const std::vector<AloneRoundtrip>& alone) {
  const int n = x->n;
  auto& c = x->contention;
  c = {};
  c.suspects = static_cast<int>(suspects.size());
  if (suspects.empty()) return;
  std::vector<char> measured(static_cast<std::size_t>(n) * n, 0);
  std::vector<double> over_parallel, over_star;
  for (const AloneRoundtrip& r : alone) {
    const double parallel = per_byte(*x, r.i, r.j);
    x->full(r.i, r.j) = x->full(r.j, r.i) = r.time;
    measured[static_cast<std::size_t>(r.i) * n + r.j] = 1;
    if (parallel > 0) over_parallel.push_back(std::max(per_byte(*x, r.i, r.j), 0.0) / parallel);
  }
  // The star from every pair as now known (a process's fastest pair may be one measured alone).
  const Star star(*x);
  for (const AloneRoundtrip& r : alone) {
    if (const double s = star(r.i, r.j); s > 0) {
      over_star.push_back(std::max(per_byte(*x, r.i, r.j), 0.0) / s);
    }
  }
  c.alone = static_cast<int>(alone.size());
  if (over_parallel.empty() || over_star.empty()) return;
  c.alone_over_parallel = quantile(over_parallel, 0.5);
  c.alone_over_star = quantile(over_star, 0.5);
  c.alone_over_star_p90 = quantile(over_star, 0.9);
  if (c.alone_over_parallel >= kConfirmed) return;
  for (auto [i, j] : suspects) {
    if (measured[static_cast<std::size_t>(i) * n + j]) continue;
    const double s = star(i, j);
    const double rate = s * c.alone_over_star;
    if (rate >= per_byte(*x, i, j)) continue;
    const Estimate e{x->empty(i, j).value + x->m * rate,
                     x->full(i, j).ci + x->m * s * (c.alone_over_star_p90 - c.alone_over_star)};
    x->full(i, j) = x->full(j, i) = e;
    ++c.estimated;
  }
}

}  // namespace colltune::model

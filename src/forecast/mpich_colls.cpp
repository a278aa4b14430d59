#include "mpich_colls.hpp"

#include <algorithm>
#include <cmath>

namespace colltune::forecast {
namespace {

int pof2_below(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// The slowest message of a round where rank r of [0, n) sends m bytes to partner(r).
template <typename F>
double round_of(int n, double m, const PairCost& T, F partner) {
  double worst = 0;
  for (int r = 0; r < n; ++r) {
    const int q = partner(r);
    if (q >= 0 && q < n && q != r) worst = std::max(worst, T(r, q, m));
  }
  return worst;
}

// The step that folds ranks [p, n) into [0, n - p) (and unfolds them after): m bytes each.
double fold(int n, int p, double m, const PairCost& T) {
  double worst = 0;
  for (int r = p; r < n; ++r) worst = std::max(worst, T(r, r - p, m));
  return worst;
}

}  // namespace

double mpich_barrier(int n, const PairCost& T) {
  double s = 0;
  for (int k = 1; k < n; k *= 2) s += round_of(n, 0, T, [&](int r) { return (r + k) % n; });
  return s;
}

double mpich_reduce(int n, double m, const PairCost& T) {
  double s = 0;
  for (int k = 1; k < n; k *= 2) {
    // Round k: ranks with bit k set (and lower bits clear) send to r - k.
    s += round_of(n, m, T, [&](int r) { return (r % (2 * k) == k) ? r - k : -1; });
  }
  return s;
}

double mpich_allreduce(int n, double m, const PairCost& T) {
  if (n <= 1) return 0;
  const int p = pof2_below(n);
  double s = n > p ? 2 * fold(n, p, m, T) : 0;
  if (m <= 2048) {
    for (int k = 1; k < p; k *= 2) s += round_of(p, m, T, [&](int r) { return r ^ k; });
    return s;
  }
  double part = m;
  for (int k = 1; k < p; k *= 2) {  // halving, then doubling back: the same partners and sizes
    part /= 2;
    s += 2 * round_of(p, part, T, [&](int r) { return r ^ k; });
  }
  return s;
}

double mpich_alltoall(int n, double m, const PairCost& T) {
  if (n <= 1) return 0;
  double s = 0;
  if (m <= 256 && n >= 8) {
    for (int k = 1; k < n; k *= 2) {
      int blocks = 0;  // destinations whose offset has bit k: sent in this round
      for (int j = 0; j < n; ++j) blocks += (j & k) != 0;
      s += round_of(n, m * blocks, T, [&](int r) { return (r + k) % n; });
    }
    return s;
  }
  const int rounds = n - 1;
  const int evaluated = n > 4096 ? 64 : rounds;
  for (int e = 0; e < evaluated; ++e) {
    const int k = 1 + static_cast<int>(static_cast<long long>(e) * rounds / evaluated);
    s += round_of(n, m, T, [&](int r) { return (r + k) % n; });
  }
  return s * rounds / evaluated;
}

}  // namespace colltune::forecast

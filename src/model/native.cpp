#include "native.hpp"

#include <algorithm>
#include <cmath>

#include "../shapes.hpp"

namespace colltune::model {

namespace {

// Every process r exchanges c bytes with partner(r) at once; the step ends when the slowest
// message has been received: max_r p2p(r, partner(r), c).
template <typename Partner>
double exchange_step(const LmoParams& p, std::span<const int> members, double c, Partner partner) {
  const int n = static_cast<int>(members.size());
  double step = 0;
  for (int r = 0; r < n; ++r) {
    step = std::max(step, p.p2p(members[r], members[partner(r)], c));
  }
  return step;
}

double bcast_scatter_allgather(const LmoParams& p, std::span<const int> members, int root,
                               double m) {
  const int n = static_cast<int>(members.size());
  const double c = std::ceil(m / n);
  double t = predict(Op::kScatter, kShape_binomial, p, members, root, c);
  const bool pof2 = (n & (n - 1)) == 0;
  if (pof2 && m < kMpichBcastLong) {  // recursive doubling: log2 n steps of doubling blocks
    for (int mask = 1; mask < n; mask <<= 1) {
      t += exchange_step(p, members, c * mask, [&](int r) { return r ^ mask; });
    }
  } else {  // ring: n - 1 steps of one block to the right neighbour
    t += (n - 1) * exchange_step(p, members, c, [&](int r) { return (r + 1) % n; });
  }
  return t;
}

}  // namespace

const Shape* native_shape(Op op, int n, double m) {
  if (op == Op::kBcast && m >= kMpichBcastShort && n >= kMpichBcastMinProcs) return nullptr;
  return &kShape_binomial;
}

double predict_native(Op op, const LmoParams& p, std::span<const int> members, int root, double m) {
  const Shape* s = native_shape(op, static_cast<int>(members.size()), m);
  return s ? predict(op, *s, p, members, root, m) : bcast_scatter_allgather(p, members, root, m);
}

}  // namespace colltune::model

// binomial: node vr has parent vr - lowbit(vr) and owns [vr, vr + min(lowbit(vr), n - vr));
// its children are vr + m for the powers of two m below lowbit(vr) (the root: below n), largest
// subtree first; ceil(log2 n) rounds.
#include "../binomial_math.hpp"
#include "shapes.hpp"

namespace colltune {

namespace {

// The largest child offset of vr: the highest power of two m < top_mask(vr) with vr + m < n.
int first_offset(int vr, int n) {
  int m = tree::top_mask(vr, n) >> 1;
  while (m > 0 && vr + m >= n) m >>= 1;
  return m;
}

}  // namespace

const Shape kShape_binomial = {
    "binomial",
    [](int vr, int) { return tree::parent(vr); },
    [](int vr, int n) { return tree::subtree_size(vr, n); },
    [](int vr, int n, int k) {
      const int m = k < 31 ? first_offset(vr, n) >> k : 0;
      return m > 0 ? vr + m : -1;
    },
};

}  // namespace colltune

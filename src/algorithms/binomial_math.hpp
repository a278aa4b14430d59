// Binomial tree arithmetic on relative ranks (vr = (rank - root + n) mod n), root is vr 0.
// Node vr != 0 has parent vr - lowbit(vr) and owns the contiguous relative range
// [vr, vr + subtree_size(vr, n)). Its children are vr + m for m = lowbit(vr)/2, ..., 1 (root:
// m = highest power of two below n, ..., 1) with vr + m < n; child vr + m owns
// [vr + m, min(vr + 2m, n)).
#pragma once

namespace colltune::tree {

inline int relative(int rank, int root, int n) { return (rank - root + n) % n; }
inline int absolute(int vr, int root, int n) { return (vr + root) % n; }

inline int lowbit(int v) { return v & -v; }

// Span of the first child mask: lowbit(vr) for a non-root, the least power of two >= n for root.
inline int top_mask(int vr, int n) {
  if (vr != 0) return lowbit(vr);
  int m = 1;
  while (m < n) m <<= 1;
  return m;
}

inline int parent(int vr) { return vr == 0 ? -1 : vr - lowbit(vr); }

inline int subtree_size(int vr, int n) {
  if (vr == 0) return n;
  const int span = lowbit(vr);
  return span < n - vr ? span : n - vr;
}

// Calls f(child_vr, child_subtree_size) for each child, largest subtree first.
template <typename F>
void for_each_child_desc(int vr, int n, F&& f) {
  for (int m = top_mask(vr, n) >> 1; m > 0; m >>= 1) {
    if (vr + m < n) f(vr + m, subtree_size(vr + m, n));
  }
}

// Calls f(child_vr, child_subtree_size) for each child, smallest subtree first.
template <typename F>
void for_each_child_asc(int vr, int n, F&& f) {
  const int top = top_mask(vr, n);
  for (int m = 1; m < top; m <<= 1) {
    if (vr + m < n) f(vr + m, subtree_size(vr + m, n));
  }
}

}  // namespace colltune::tree

// A tree algorithm's schedule as data: who sends what to whom, in which order. The executors
// (src/algorithms/<op>/tree.cpp), the cost model (src/model/) and the simulators all read this one
// description; none keeps a second copy of its arithmetic.
//
// Ranks are relative to the root (vr = (rank - root + n) mod n; the root is 0). Process vr
// owns the blocks of relative ranks [vr, vr + subtree(vr, n)), a contiguous range. Top-down ops
// (bcast, scatter): a process receives from its parent (all its subtree's data), then sends to
// its children one after another in issue order, each child its whole subtree. Bottom-up
// (gather): a process receives every child's subtree, then sends its own to its parent.
#pragma once

#include <string_view>

namespace colltune {

struct Shape {
  std::string_view name;
  int (*parent)(int vr, int n);        // -1 for the root
  int (*subtree)(int vr, int n);       // processes in vr's subtree, vr included
  int (*child)(int vr, int n, int k);  // k-th child in issue order; -1 past the last
};

// Calls f(child, child_subtree) for each child of vr in issue order.
template <typename F>
void for_each_child(const Shape& s, int vr, int n, F&& f) {
  for (int k = 0;; ++k) {
    const int c = s.child(vr, n, k);
    if (c < 0) return;
    f(c, s.subtree(c, n));
  }
}

inline int child_count(const Shape& s, int vr, int n) {
  int k = 0;
  while (s.child(vr, n, k) >= 0) ++k;
  return k;
}

}  // namespace colltune

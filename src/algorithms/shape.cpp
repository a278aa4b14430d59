#include "shape.hpp"

#include <algorithm>
#include <stdexcept>

namespace colltune {

namespace {

// Fills sub, first and rank_order of a tree whose parent, kids (by position, preorder) and rank
// are set.
void finish(BuiltTree& t) {
  const int n = t.size();
  t.sub.assign(n, 1);
  for (int p = n - 1; p > 0; --p) t.sub[t.parent[p]] += t.sub[p];
  t.pos.assign(n, -1);
  t.rank_order = true;
  for (int p = 0; p < n; ++p) {
    t.pos[t.rank[p]] = p;
    t.rank_order = t.rank_order && t.rank[p] == p;
  }
}

}  // namespace

BuiltTree lay_out(int root, const std::vector<std::vector<int>>& children) {
  const int n = static_cast<int>(children.size());
  BuiltTree t;
  t.parent.reserve(n);
  t.rank.reserve(n);
  t.first.reserve(n + 1);
  t.kids.reserve(n > 0 ? n - 1 : 0);
  if (n == 0) return t;
  // Preorder: a stack of (rank, parent position); children pushed in reverse issue order.
  std::vector<std::pair<int, int>> stack = {{root, -1}};
  std::vector<std::vector<int>> kids_of(n);  // per position, its children's positions
  while (!stack.empty()) {
    const auto [r, parent] = stack.back();
    stack.pop_back();
    const int p = static_cast<int>(t.rank.size());
    if (p >= n) throw std::logic_error("lay_out: a rank is reached twice");
    t.rank.push_back(r);
    t.parent.push_back(parent);
    if (parent >= 0) kids_of[parent].push_back(p);
    for (auto it = children[r].rbegin(); it != children[r].rend(); ++it) stack.push_back({*it, p});
  }
  if (static_cast<int>(t.rank.size()) != n) throw std::logic_error("lay_out: unreachable ranks");
  for (int p = 0; p < n; ++p) {
    t.first.push_back(static_cast<int>(t.kids.size()));
    t.kids.insert(t.kids.end(), kids_of[p].begin(), kids_of[p].end());
  }
  t.first.push_back(static_cast<int>(t.kids.size()));
  finish(t);
  return t;
}

std::vector<int> fastest_first(const TreeCosts& c, int root, double m) {
  std::vector<std::pair<double, int>> keyed;
  for (int j = 0; j < c.size(); ++j) {
    if (j != root) keyed.push_back({c.occupy(j, m) + c.deliver(root, j, m), j});
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<int> out;
  out.reserve(keyed.size());
  for (const auto& kj : keyed) out.push_back(kj.second);
  return out;
}

BuiltTree lay_out(const Shape& s, const std::vector<int>& rank_of_pos) {
  const int n = static_cast<int>(rank_of_pos.size());
  BuiltTree t;
  t.rank = rank_of_pos;
  t.parent.resize(n);
  t.first.reserve(n + 1);
  for (int p = 0; p < n; ++p) {
    t.parent[p] = s.parent(p, n);
    t.first.push_back(static_cast<int>(t.kids.size()));
    for_each_child(s, p, n, [&](int c, int) { t.kids.push_back(c); });
  }
  t.first.push_back(static_cast<int>(t.kids.size()));
  finish(t);
  return t;
}

}  // namespace colltune

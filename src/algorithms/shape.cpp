#include "shape.hpp"

#include <algorithm>
#include <stdexcept>

namespace colltune {

namespace {

// Fills sub, pos and rank_order of a tree whose parent and rank (by position, preorder) are
// set.
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

BuiltTree lay_out(int n, int root, std::span<const std::pair<int, int>> edges) {
  BuiltTree t;
  if (n == 0) return t;
  // Each rank's children in issue order: a stable counting sort of the edges by parent.
  std::vector<int> start(n + 1, 0), child(edges.size());
  for (const auto& [from, to] : edges) {
    if (from < 0 || from >= n || to < 0 || to >= n) {
      throw std::logic_error("lay_out: a rank outside the communicator");
    }
    ++start[from + 1];
  }
  for (int r = 0; r < n; ++r) start[r + 1] += start[r];
  {
    std::vector<int> next(start.begin(), start.end() - 1);
    for (const auto& [from, to] : edges) child[next[from]++] = to;
  }
  // Preorder: a stack of (rank, parent position); children pushed in reverse issue order.
  t.parent.reserve(n);
  t.rank.reserve(n);
  std::vector<char> reached(n, 0);
  std::vector<std::pair<int, int>> stack = {{root, -1}};
  while (!stack.empty()) {
    const auto [r, parent] = stack.back();
    stack.pop_back();
    if (reached[r]) throw std::logic_error("lay_out: a rank is reached twice");
    reached[r] = 1;
    const int p = static_cast<int>(t.rank.size());
    t.rank.push_back(r);
    t.parent.push_back(parent);
    for (int k = start[r + 1] - 1; k >= start[r]; --k) stack.push_back({child[k], p});
  }
  if (static_cast<int>(t.rank.size()) != n) throw std::logic_error("lay_out: unreachable ranks");
  finish(t);
  t.first.reserve(n + 1);
  t.kids.reserve(n - 1);
  for (int p = 0; p < n; ++p) {
    t.first.push_back(static_cast<int>(t.kids.size()));
    const int r = t.rank[p];
    for (int k = start[r]; k < start[r + 1]; ++k) t.kids.push_back(t.pos[child[k]]);
  }
  t.first.push_back(static_cast<int>(t.kids.size()));
  return t;
}

BuiltTree lay_out(int root, const std::vector<std::vector<int>>& children) {
  std::vector<std::pair<int, int>> edges;
  for (std::size_t r = 0; r < children.size(); ++r) {
    for (const int c : children[r]) edges.push_back({static_cast<int>(r), c});
  }
  return lay_out(static_cast<int>(children.size()), root, edges);
}

const std::vector<int>& fastest_first(const TreeCosts& c, int root, double m) {
  if (c.ff_root_ == root && c.ff_m_ == m) return c.ff_;
  std::vector<std::pair<double, int>> keyed;
  keyed.reserve(c.size());
  for (int j = 0; j < c.size(); ++j) {
    if (j != root) keyed.push_back({c.occupy(j, m) + c.deliver(root, j, m), j});
  }
  std::sort(keyed.begin(), keyed.end());
  c.ff_.clear();
  for (const auto& kj : keyed) c.ff_.push_back(kj.second);
  c.ff_root_ = root;
  c.ff_m_ = m;
  return c.ff_;
}

bool Hosts::two_levels() const {
  if (ranks.size() < 2) return false;
  for (const auto& h : ranks) {
    if (h.size() > 1) return true;
  }
  return false;
}

Hosts hosts_of(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  std::vector<std::pair<int, int>> by;  // (host, rank)
  by.reserve(n);
  for (int r = 0; r < n; ++r) by.push_back({c.host(r), r});
  std::sort(by.begin(), by.end());
  Hosts h;
  std::vector<int> of_rank(n);
  for (std::size_t i = 0; i < by.size(); ++i) {
    if (i == 0 || by[i].first != by[i - 1].first) h.ranks.emplace_back();
    h.ranks.back().push_back(by[i].second);
  }
  // Hosts in order of their smallest rank (the same on every rank whatever the host values).
  std::sort(h.ranks.begin(), h.ranks.end(),
            [](const std::vector<int>& a, const std::vector<int>& b) { return a[0] < b[0]; });
  for (std::size_t k = 0; k < h.ranks.size(); ++k) {
    for (const int r : h.ranks[k]) of_rank[r] = static_cast<int>(k);
  }
  h.leader.assign(h.ranks.size(), -1);
  h.root_host = of_rank[root];
  h.leader[h.root_host] = root;
  if (h.two_levels()) {
    for (const int r : fastest_first(c, root, m)) {
      if (h.leader[of_rank[r]] < 0) h.leader[of_rank[r]] = r;
    }
  } else {
    for (std::size_t k = 0; k < h.ranks.size(); ++k) {
      if (h.leader[k] < 0) h.leader[k] = h.ranks[k][0];
    }
  }
  return h;
}

std::vector<int> Hosts::leaders() const {
  std::vector<int> out = {leader[root_host]};
  for (const int l : leader) {
    if (l != out[0]) out.push_back(l);
  }
  return out;
}

void append_edges(const BuiltTree& t, std::span<const int> of,
                  std::vector<std::pair<int, int>>* edges) {
  for (int p = 0; p < t.size(); ++p) {
    for (int i = t.first[p]; i < t.first[p + 1]; ++i) {
      edges->push_back({of[t.rank[p]], of[t.rank[t.kids[i]]]});
    }
  }
}

BuiltTree lay_out(const Shape& s, int n, int root) {
  std::vector<int> rank_of_pos(n);
  for (int p = 0; p < n; ++p) rank_of_pos[p] = (p + root) % n;
  return lay_out(s, rank_of_pos);
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

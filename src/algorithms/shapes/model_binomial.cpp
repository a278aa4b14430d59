// model_binomial (scatter, gather): the binomial shape (src/algorithms/shapes/binomial.cpp) with
// the fastest processes where the largest subtrees are, so that slow links carry only their own
// block: positions by subtree size (largest first, then in issue order), other ranks by their
// own sending time plus their delivery from the root (fastest first). Same rounds as binomial.
#include <algorithm>

#include "shapes.hpp"

namespace colltune {

BuiltTree kBuild_model_binomial(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  const std::vector<int> ranks = fastest_first(c, root, m);
  std::vector<std::pair<int, int>> slots;  // (-subtree, position) of positions 1..n-1
  for (int p = 1; p < n; ++p) slots.push_back({-kShape_binomial.subtree(p, n), p});
  std::sort(slots.begin(), slots.end());
  std::vector<int> rank_of_pos(n, root);
  for (std::size_t k = 0; k < slots.size(); ++k) rank_of_pos[slots[k].second] = ranks[k];
  return lay_out(kShape_binomial, rank_of_pos);
}

}  // namespace colltune

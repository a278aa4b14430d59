// model_linear (scatter): the root sends every other process its block directly, the longest
// delivery first, so that the slowest transfers overlap the root's later sends (the finish time
// max_k (k-th send's start + its delivery) is smallest in that order when sends take turns).
#include <algorithm>

#include "shapes.hpp"

namespace colltune {

BuiltTree kBuild_model_linear(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  std::vector<std::pair<double, int>> order;  // (-delivery, rank)
  for (int j = 0; j < n; ++j) {
    if (j != root) order.push_back({-c.deliver(root, j, m), j});
  }
  std::sort(order.begin(), order.end());
  std::vector<std::vector<int>> children(n);
  for (const auto& [d, j] : order) children[root].push_back(j);
  return lay_out(root, children);
}

}  // namespace colltune

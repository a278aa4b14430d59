// node_star (scatter, gather): two levels of stars. The root exchanges with every other host's
// leader (the host's fastest rank: hosts_of) the blocks of that whole host, one message each,
// the longest delivery first (model_linear's order), then with the other ranks of its own host;
// each leader exchanges its host's blocks with the host's other ranks (ascending). A host's
// link carries its blocks once, in one message. One host, or one rank per host: linear.
#include <algorithm>

#include "shapes.hpp"

namespace colltune {

BuiltTree kBuild_node_star(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  const Hosts h = hosts_of(c, root, m);
  if (!h.two_levels()) return lay_out(kShape_linear, n, root);
  std::vector<std::vector<int>> children(n);
  std::vector<std::pair<double, int>> order;  // (-delivery of the host's blocks, leader)
  for (std::size_t k = 0; k < h.ranks.size(); ++k) {
    const int l = h.leader[k];
    if (static_cast<int>(k) == h.root_host) continue;
    const double blocks = static_cast<double>(h.ranks[k].size()) * m;
    order.push_back({-c.deliver(root, l, blocks), l});
    for (const int r : h.ranks[k]) {
      if (r != l) children[l].push_back(r);
    }
  }
  std::sort(order.begin(), order.end());
  for (const auto& [d, l] : order) children[root].push_back(l);
  for (const int r : h.ranks[h.root_host]) {
    if (r != root) children[root].push_back(r);
  }
  return lay_out(root, children);
}

}  // namespace colltune

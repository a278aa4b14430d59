// node_tree (bcast): two levels. The message first crosses the hosts along an ECEF tree among
// the hosts' leaders (the root on its host, elsewhere the host's fastest rank: hosts_of), built
// by ecef's builder on the leaders' costs; then each leader passes it on inside its host along
// an ECEF tree of the host's ranks (the same builder on their costs: a flat fan-out where the
// host's sends do not serialize, a binomial-like tree where they do), after its sends to other
// hosts. Only leaders send across hosts, one message per host reached: a host's link
// carries one copy in and as many out as its leader has children abroad. One host, or one rank
// per host: binomial from the root.
#include "shapes.hpp"

namespace colltune {

BuiltTree kBuild_node_tree(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  const Hosts h = hosts_of(c, root, m);
  if (!h.two_levels()) return lay_out(kShape_binomial, n, root);
  const std::vector<int> leaders = h.leaders();
  const SubsetCosts among(c, leaders);
  std::vector<std::pair<int, int>> edges;
  edges.reserve(n);
  append_edges(kBuild_ecef(among, 0, m), leaders, &edges);
  for (std::size_t k = 0; k < h.ranks.size(); ++k) {
    std::vector<int> local = {h.leader[k]};
    for (const int r : h.ranks[k]) {
      if (r != h.leader[k]) local.push_back(r);
    }
    if (local.size() > 1) append_edges(kBuild_ecef(SubsetCosts(c, local), 0, m), local, &edges);
  }
  return lay_out(n, root, edges);
}

}  // namespace colltune

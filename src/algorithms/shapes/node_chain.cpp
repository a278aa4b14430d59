// node_chain (bcast, large messages): two levels, pipelined. A chain among the hosts' leaders
// (chain's builder on the leaders' costs: the root, then the leaders fastest first, and its
// segment size per message size), and inside each host a chain from its leader through the
// host's other ranks ascending, the leader's next host first. Every segment is forwarded as it
// arrives, so each host's link carries each byte once in and once out. One host, or one rank
// per host: binomial from the root, its stand-in (chain is the flat candidate).
#include "shapes.hpp"

namespace colltune {

BuiltTree kBuild_node_chain(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  const Hosts h = hosts_of(c, root, m);
  if (!h.two_levels()) return lay_out(kShape_binomial, n, root);
  const std::vector<int> leaders = h.leaders();
  const SubsetCosts among(c, leaders);
  const BuiltTree across = kBuild_chain(among, 0, m);
  std::vector<std::pair<int, int>> edges;
  edges.reserve(n);
  append_edges(across, leaders, &edges);
  for (std::size_t k = 0; k < h.ranks.size(); ++k) {
    int prev = h.leader[k];
    for (const int r : h.ranks[k]) {
      if (r == h.leader[k]) continue;
      edges.push_back({prev, r});
      prev = r;
    }
  }
  BuiltTree t = lay_out(n, root, edges);
  t.segment = across.segment;
  t.segment_from = across.segment_from;
  return t;
}

}  // namespace colltune

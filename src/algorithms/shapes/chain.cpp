// chain (bcast): a pipelined chain, root first, then the other processes fastest first
// (fastest_first); the message travels in segments, each forwarded as it arrives. The segment
// size is the one of 4 KiB .. 32 KiB that minimizes, on the builder's costs, the first
// segment's trip down the chain plus (k - 1) periods, the period being the slowest stage (a
// process's turn at sending a segment, or a link's per-byte delivery of it).
#include <algorithm>
#include <cmath>

#include "shapes.hpp"

namespace colltune {

namespace {
// Segments stay below the sizes where MPI libraries switch a send to rendezvous (SimGrid's
// detached-send threshold is 64 KiB): a larger segment waits for its receive to be posted,
// which a relay does only after its previous segment, and the pipeline stalls hop by hop.
constexpr double kLargestSegment = 32768;
}  // namespace

BuiltTree kBuild_chain(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  std::vector<int> order = {root};
  for (const int j : fastest_first(c, root, m)) order.push_back(j);
  std::vector<std::pair<int, int>> edges;
  std::vector<double> fixed;  // per hop: deliver(from, to, 0)
  edges.reserve(order.size());
  fixed.reserve(order.size());
  for (std::size_t i = 1; i < order.size(); ++i) {
    edges.push_back({order[i - 1], order[i]});
    fixed.push_back(c.deliver(order[i - 1], order[i], 0));
  }
  BuiltTree t = lay_out(n, root, edges);
  double best = 0;
  for (double seg = 4096; seg <= kLargestSegment; seg *= 2) {
    const double k = std::ceil(m / seg), s = m / k;
    double first = 0, period = 0;
    for (std::size_t h = 0; h < edges.size(); ++h) {
      const auto [from, to] = edges[h];
      const double d = c.deliver(from, to, s);
      first += d;
      period = std::max({period, c.occupy(from, s), d - fixed[h]});
    }
    const double time = first + (k - 1) * period;
    if (t.segment == 0 || time < best) best = time, t.segment = static_cast<std::uint64_t>(seg);
  }
  return t;
}

}  // namespace colltune

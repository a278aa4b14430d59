// chain (bcast): a pipelined chain, root first, then the other processes fastest first
// (fastest_first, at the size the tree is built for); the message travels in segments, each
// forwarded as it arrives. The segment size, chosen per message size (BuiltTree::segment_from,
// one per grid size 2^k), is the one of 4 KiB .. 32 KiB, or the whole message, that minimizes,
// on the builder's costs, the first segment's trip down the chain plus (k - 1) periods, the
// period being the slowest stage (a process's turn at sending a segment, or a link's delivery
// of it: per byte when segments are eager, whole when they wait for their receive,
// TreeCosts::waits).
#include <algorithm>
#include <array>
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
  const std::vector<int>& ranks = fastest_first(c, root, m);
  std::vector<std::pair<int, int>> edges;
  edges.reserve(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i)
    edges.push_back({i ? ranks[i - 1] : root, ranks[i]});
  BuiltTree t = lay_out(n, root, edges);
  // Every candidate segment size at once, hop by hop (each hop's link read while it is near).
  constexpr int kSegments = 4;  // 4 KiB .. 32 KiB
  std::array<double, kSegments> s{}, first{}, period{};
  // A segment that waits for its receive crosses a hop after the previous one, latency and
  // all; an eager one overlaps it.
  std::array<bool, kSegments> waits{};
  for (int q = 0; q < kSegments; ++q) {
    s[q] = std::ldexp(kLargestSegment, q - 3);
    waits[q] = c.waits(s[q]);
  }
  double fixed_trip = 0;  // the chain's trip at 0 bytes
  for (const auto& [from, to] : edges) {
    const double fixed = c.deliver(from, to, 0);
    fixed_trip += fixed;
    for (int q = 0; q < kSegments; ++q) {
      const double d = c.deliver(from, to, s[q]);
      first[q] += d;
      period[q] = std::max({period[q], c.occupy(from, s[q]), waits[q] ? d : d - fixed});
    }
  }
  // The segment for x bytes: the fastest of those below x, or the whole message (its trip
  // interpolated from 0 to the next candidate's, returned as that candidate: x <= it).
  auto segment_at = [&](double x) {
    double best = 0;
    std::uint64_t seg = 0;
    for (int q = 0; q < kSegments; ++q) {
      const double time = s[q] < x ? first[q] + (std::ceil(x / s[q]) - 1) * period[q]
                                   : fixed_trip + (first[q] - fixed_trip) * x / s[q];
      if (seg == 0 || time < best) best = time, seg = static_cast<std::uint64_t>(s[q]);
      if (s[q] >= x) break;
    }
    return seg;
  };
  // Per grid size 2^k (standing for sizes from grid_lo(k) up), 4 KiB .. 256 MiB.
  for (int k = 12; k <= 28; ++k) {
    const std::uint64_t from = k == 12 ? 0 : grid_lo(k);
    const std::uint64_t seg = segment_at(std::ldexp(1.0, k));
    if (t.segment_from.empty() || t.segment_from.back().second != seg)
      t.segment_from.push_back({from, seg});
  }
  t.segment = t.segment_for(static_cast<std::uint64_t>(std::ceil(m)));
  return t;
}

}  // namespace colltune

// Schedules of parallel point-to-point experiments: every process in at most one experiment per
// round, so rounds run in parallel on switched networks (docs/benchmarking.md).
#pragma once

#include <array>
#include <utility>
#include <vector>

namespace colltune::bench {

// Round-robin tournament (circle method): every pair {i, j}, i < j, of n processes exactly
// once, in n - 1 rounds (n even) or n rounds (n odd, one process idle per round).
std::vector<std::vector<std::pair<int, int>>> pair_rounds(int n);

// Triplets (i; j, k) for one-to-two experiments, packed greedily into rounds of disjoint
// triplets. `all`: every ordered root i with every unordered pair {j, k} of the others;
// otherwise the C(n,3) unordered triplets with their smallest member as root.
std::vector<std::vector<std::array<int, 3>>> triplet_rounds(int n, bool all);

// Any list of groups of n processes (triplets (i; j, k), fan-outs (i; peers...)), packed
// greedily, in list order, into rounds of disjoint groups (e.g. the O(n^2) subset of
// model::lmo_triplets for calibration).
template <typename Group>
std::vector<std::vector<Group>> pack_rounds(int n, const std::vector<Group>& pending) {
  std::vector<std::vector<Group>> rounds;
  std::vector<char> done(pending.size(), 0);
  std::size_t left = pending.size();
  while (left > 0) {
    std::vector<char> busy(n, 0);
    std::vector<Group> round;
    for (std::size_t g = 0; g < pending.size(); ++g) {
      if (done[g]) continue;
      bool free = true;
      for (int p : pending[g]) free = free && !busy[p];
      if (!free) continue;
      for (int p : pending[g]) busy[p] = 1;
      done[g] = 1;
      --left;
      round.push_back(pending[g]);
    }
    rounds.push_back(std::move(round));
  }
  return rounds;
}

}  // namespace colltune::bench

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

// Any list of triplets (i; j, k) of n processes, packed greedily into rounds of disjoint ones
// (e.g. the O(n^2) subset of model::lmo_triplets for calibration).
std::vector<std::vector<std::array<int, 3>>> pack_rounds(
    int n, const std::vector<std::array<int, 3>>& triplets);

}  // namespace colltune::bench

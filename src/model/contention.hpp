// Roundtrips that calibration ran beside others (parallel rounds of disjoint pairs) and that
// shared a link with them (racks behind one uplink): found from the measurements, measured
// again alone, the rest estimated (docs/calibration.md, phase 2). No MPI.
#pragma once

#include <utility>
#include <vector>

#include "estimate.hpp"

namespace colltune::model {

// A pair's per-byte time, (T_ij(M) - T_ij(0)) / M from its roundtrips' means, is suspect where
// it exceeds kContended times the star's: the larger of i's and j's fastest
// per-byte time to any peer (on a star of private links, what the slower of the two allows).
inline constexpr double kContended = 1.25;
// The pairs measured alone confirm contention where their median alone / parallel per-byte
// time is below this.
inline constexpr double kConfirmed = 0.8;

// The suspect pairs (i < j), in an order of which every prefix is a uniform sample (a fixed
// hash of the pair): the same on every rank that has the same measurements.
std::vector<std::pair<int, int>> contended_pairs(const LmoMeasurements& x);

// T_ij(M) of a pair measured alone.
struct AloneRoundtrip {
  int i, j;
  Estimate time;
};

// `suspects`: every pair found suspect, `alone`: those of them measured alone (x: the parallel
// measurements). Each pair of `alone` takes its alone T_ij(M). Where they confirm
// contention, each suspect not measured gets T_ij(0) + M x (the star's per-byte time, from
// every pair as now known, x the alone pairs' median ratio to it), never more than it measured, its
// interval widened by that ratio's spread (90th percentile against median). Records x->contention.
void settle_contended(LmoMeasurements* x, const std::vector<std::pair<int, int>>& suspects,
                      const std::vector<AloneRoundtrip>& alone);

}  // namespace colltune::model

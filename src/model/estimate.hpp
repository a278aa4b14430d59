// Estimation of the LMO parameters (docs/model.md) from point-to-point experiments: empty
// roundtrips of every pair give C; M-byte roundtrips and one-to-two experiments give t and
// beta. Pure arithmetic (no MPI): calibration measures, this solves.
#pragma once

#include <array>
#include <limits>
#include <vector>

#include "lmo.hpp"

namespace colltune::model {

struct LmoMeasurements {
  int n = 0;
  double m = 0;  // bytes of the M-byte experiments
  // n x n, symmetric, mean and confidence half-width: T_ij(0) and T_ij(M) (i sends M bytes,
  // j answers empty; the model makes it symmetric).
  std::vector<Estimate> empty_rt, m_rt;
  struct OneToTwo {
    int i, j, k;  // i sends M bytes to j and to k, both answer empty
    Estimate time;
  };
  std::vector<OneToTwo> one_to_two;
  struct FanOut {
    int i;                   // sends `bytes` (0 or M) to every peer at once, each answers empty
    std::vector<int> peers;  // in issue order
    double bytes;
    Estimate time;
    Estimate issued{-1, 0};  // fan-outs: until i's sends were issued (< 0: not measured)
  };
  std::vector<FanOut> fan_out;
  // Fan-ins: i sends empty to every peer at once, each answers `bytes` (M).
  std::vector<FanOut> fan_in;
  // M-byte roundtrips slowed beside their round's other pairs (contention.hpp), per pass.
  struct Contention {
    int suspects = 0;   // pairs whose parallel roundtrip was slow for a star
    int alone = 0;      // of them, measured again alone
    int estimated = 0;  // the rest, given the star's time scaled by the sample
    // Medians over the pairs measured alone of their per-byte time against the parallel
    // measurement and against the star's; the 90th percentile of the latter (NaN: none).
    double alone_over_parallel = std::numeric_limits<double>::quiet_NaN();
    double alone_over_star = std::numeric_limits<double>::quiet_NaN();
    double alone_over_star_p90 = std::numeric_limits<double>::quiet_NaN();
  } contention;

  Estimate& empty(int i, int j) { return empty_rt[static_cast<std::size_t>(i) * n + j]; }
  Estimate& full(int i, int j) { return m_rt[static_cast<std::size_t>(i) * n + j]; }
  const Estimate& empty(int i, int j) const {
    return empty_rt[static_cast<std::size_t>(i) * n + j];
  }
  const Estimate& full(int i, int j) const { return m_rt[static_cast<std::size_t>(i) * n + j]; }
};

// One-to-two experiments that determine every t_i: `per_root` triplets rooted at each process
// (fewer when n is small), spread over the others: n * per_root experiments, O(n^2) at most.
std::vector<std::array<int, 3>> lmo_triplets(int n, int per_root);

// Orders each triplet (i, j, k) so that i serves j, the peer with the shorter M-byte
// roundtrip, first: then the experiment's time grows with t_i (one_to_two_time). Needs x's
// roundtrips; the result is the same on every rank that has the same measurements.
void faster_first(const LmoMeasurements& x, std::vector<std::array<int, 3>>* triplets);

// Fan-out experiments that reveal each process's port (LmoParams::port): for every process i,
// i first, then the `peers` others with the shortest M-byte roundtrips from i (ties: nearest
// after i), which a shared port limits before their own links do. Needs x's roundtrips; the
// same on every rank that has the same measurements.
std::vector<std::vector<int>> fan_out_groups(const LmoMeasurements& x, int peers);

// C_i averaged over every triplet containing i (closed form, O(n^2) in all), its interval
// propagated from the roundtrips'; t_i averaged over the informative one-to-two experiments
// rooted at i (one_to_two_time inverted); 1 / beta_ij from T_ij(M) - T_ij(0), intervals
// propagated. With two processes C is split evenly and t is 0 (one pair cannot tell them
// apart). With fan-out experiments (fan_out_time() inverted, averaged per process): from the
// empty ones o_i, the part of C_i that the sends serialize (C_i where LMO's full C_i already
// meets them); then from the non-empty ones port_i (0 where the model without a port already
// meets them). With fan-in experiments (fan_in_time() inverted): port_in_i (0 where the model
// without one meets them). With both, a process that got a port has t_i = 0, its value in
// 1 / beta_ij of its every link (its per-byte cost is its link's), and the ports fitted again.
LmoParams estimate_lmo(const LmoMeasurements& x, double confidence = 0.95);

}  // namespace colltune::model

// A model of what MPICH 4.0.2 runs natively (its default selection for intracommunicators), on
// the LMO parameters: bcast is binomial below 12288 bytes or 8 processes, else a binomial
// scatter of n chunks followed by a recursive-doubling allgather (power-of-two sizes below
// 524288 bytes) or a ring allgather; scatter and gather are binomial. Calibration scales it by
// the ratio measured on its own sweeps (PlatformModel::correction) and validates the result.
#pragma once

#include <span>

#include "lmo.hpp"

namespace colltune::model {

// MPICH 4.0.2 defaults: MPIR_CVAR_BCAST_SHORT_MSG_SIZE, _LONG_MSG_SIZE, _MIN_PROCS.
inline constexpr double kMpichBcastShort = 12288;
inline constexpr double kMpichBcastLong = 524288;
inline constexpr int kMpichBcastMinProcs = 8;

double predict_native(Op op, const LmoParams& p, std::span<const int> members, int root, double m);
// The schedule predict_native follows for these arguments, or nullptr where it is not one
// shape (bcast's scatter + allgather): lets a caller reuse that shape's prediction.
const Shape* native_shape(Op op, int n, double m);

}  // namespace colltune::model

// What the sweeps measured, shared by measurement, fitting and the report (no MPI).
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "../algorithms/registry.hpp"

namespace colltune::calibrate {

inline constexpr double kMaxBytesTotal = 256.0 * 1024 * 1024;  // n * m of a scatter root's buffer
// The sweeps' k-th size, 2^(k/2) rounded.
inline double sweep_size(int k) { return std::round(std::pow(2.0, k / 2.0)); }

// Per op, the sizes at which native is measured once more where its tied models part
// (native_telling_sizes, native_told), increasing; 0: none.
inline constexpr int kMaxTold = 4;
using ToldSizes = std::array<std::array<double, kMaxTold>, kNumOps>;

// One algorithm's sweep on the whole communicator: every algorithm at root 0, native also at
// the last rank (which model of native fits, src/model/native.hpp, shows at a root other than 0),
// the fixed algorithms at small sizes at a third root (measure.hpp, unlike_sweeps).
struct Sweep {
  Op op;
  const Algorithm* alg;
  int root = 0;
  std::vector<double> m, time, ci;
  std::vector<bool> held_out;
  bool unlike = false;  // small sizes at the rank least like rank 0 (unlike_sweeps), no held-out
  // The algorithm's name, and the root when it is not 0: "native (root 15)".
  std::string label() const {
    return std::string(alg->name) + (root ? " (root " + std::to_string(root) + ")" : std::string());
  }
};

// v with `prec` significant digits.
std::string fmt(double v, int prec = 4);

}  // namespace colltune::calibrate

// A rate that depends on the working set (the bytes the work touches): a compute block's flops
// per second (docs/app-models.md "Rates by working set"), a strided message's pieces packed per
// second (docs/recording.md "Derived datatypes"). No MPI, no files.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace colltune::forecast {

// Measured at one or more working sets: between two, the time per unit is linear in the log of
// the working set; beyond the ends, the nearest; without a working set, the first given.
struct RateBySize {
  std::vector<std::pair<double, double>> at;  // (working set in bytes, units per second)
  bool given() const { return !at.empty(); }
  double rate(double working_set) const;  // NaN or 0: no working set; 0 when none is given
};
// "R" or "R@W[,R@W...]" (units per second at W bytes); throws std::invalid_argument naming
// `what` (e.g. "--flops-rate") and the valid forms.
RateBySize parse_rate(const std::string& text, const std::string& what);

}  // namespace colltune::forecast

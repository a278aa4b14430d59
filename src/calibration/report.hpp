// The table and its report, built on rank 0 from what calibration measured (report.cpp).
#pragma once

#include <string>
#include <vector>

#include "../mapped_alloc.hpp"
#include "../model/estimate.hpp"
#include "fit.hpp"
#include "measure.hpp"
#include "sweep.hpp"

namespace colltune::calibrate {

// The platform model fitted from the LMO experiments and the fixed algorithms' sweeps: its
// parameters, thresholds and native's model (no corrections yet). Throws on a fit that fails.
struct Fitted {
  model::PlatformModel pm;
  ScatterBreak sb;
  GatherThresholds gt;
  std::string natives;  // the report's lines on native's model
};
Fitted fit_platform(Context& c, const std::vector<std::string>& ids,
                    const std::vector<int>& of_rank, const std::vector<Sweep>& sw,
                    const model::LmoMeasurements& x);

// The table's text (YAML) from f and every sweep (built trees' included: corrections and
// validation), with the validation report in *report. Throws on a fit that fails.
MappedString build_table(Context& c, Fitted f, const std::vector<std::string>& ids,
                         const std::vector<int>& of_rank, const std::vector<std::string>& hosts,
                         const std::vector<Sweep>& sw, const model::LmoMeasurements& x,
                         std::string* report);

}  // namespace colltune::calibrate

// The table and its report, built on rank 0 from what calibration measured (report.cpp).
#pragma once

#include <string>
#include <vector>

#include "../mapped_alloc.hpp"
#include "../model/estimate.hpp"
#include "measure.hpp"
#include "sweep.hpp"

namespace colltune::calibrate {

// The table's text (YAML), with the validation report in *report. Throws on a fit that fails.
MappedString build_table(Context& c, const std::vector<std::string>& ids,
                         const std::vector<int>& of_rank, const std::vector<std::string>& hosts,
                         const std::vector<Sweep>& sw, const model::LmoMeasurements& x,
                         std::string* report);

}  // namespace colltune::calibrate

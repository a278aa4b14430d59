// The computation model colltune-predict benchmarks once per host (forecast/comp.hpp) as YAML,
// beside the model table (docs/forecast.md, "comp"). Written atomically; a broken or foreign
// file is one InputError naming the file, the line and the field.
#pragma once

#include <string>

#include "comp.hpp"

namespace colltune {

std::string emit_comp_model(const forecast::CompModel& m);
forecast::CompModel parse_comp_model(const std::string& text, const std::string& file);
forecast::CompModel load_comp_model(const std::string& file);
void save_comp_model(const forecast::CompModel& m, const std::string& file);

}  // namespace colltune

// The files of colltune-predict app (docs/app-models.md): application models
// (`colltune_app: 1`) and node files (`colltune_node: 1`: MERPSYS coefficients, the power
// model, the failure rate). Throw InputError naming the file, the line and the field.
#pragma once

#include <string>

#include "app.hpp"

namespace colltune {

forecast::AppModel read_app_model(const std::string& file);
forecast::AppModel parse_app_model(const std::string& text, const std::string& file);
forecast::NodeSpec read_node_spec(const std::string& file);
// A model file that parse_app_model reads back to `m`; `note` becomes comment lines at the top.
std::string emit_app_model(const forecast::AppModel& m, const std::string& note);
forecast::NodeSpec parse_node_spec(const std::string& text, const std::string& file);
// A node file that parse_node_spec reads back to `s` (its MERPSYS part in the paper's units);
// `note` becomes comment lines at the top.
std::string emit_node_spec(const forecast::NodeSpec& s, const std::string& note);

}  // namespace colltune

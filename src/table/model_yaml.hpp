// The calibrated platform model (src/model/platform_model.hpp) as the `model:` section of a model
// table, in and out; beside the table code, so that the model knows no file format.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "../model/platform_model.hpp"
#include "yaml_util.hpp"

namespace colltune::model {

// links false: without model.inv_beta (n^2 entries, most of a table).
YAML::Node to_yaml(const PlatformModel& pm, bool links = true);
// What ranks compare to agree on a model (runtime agreement): its YAML without the links, then
// every link's value and interval as raw bytes (docs/calibration.md, "Tables of many
// identities").
std::string fingerprint(const PlatformModel& pm);
// Throws InputError naming the file, the field and what is valid. `schema`: the table's
// version (2: `native.gather: mpich` meant a binomial tree taking its children in any order,
// today's `binomial`).
PlatformModel parse_platform_model(const YamlReader& y, const YAML::Node& n, int schema);

}  // namespace colltune::model

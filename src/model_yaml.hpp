// The calibrated platform model (src/model/platform_model.hpp) as the `model:` section of a model
// table, in and out; beside the table code, so that the model knows no file format.
#pragma once

#include <yaml-cpp/yaml.h>

#include "model/platform_model.hpp"
#include "yaml_util.hpp"

namespace colltune::model {

YAML::Node to_yaml(const PlatformModel& pm);
// Throws InputError naming the file, the field and what is valid. `schema`: the table's
// version (2: `native.gather: mpich` meant a binomial tree taking its children in any order,
// today's `binomial`).
PlatformModel parse_platform_model(const YamlReader& y, const YAML::Node& n, int schema);

}  // namespace colltune::model

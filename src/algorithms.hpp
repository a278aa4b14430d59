// The algorithm registry: every candidate the selector may choose, one row each in
// registry.def. Adding an algorithm = one file under src/<op>/ plus one row in registry.def.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "collective.hpp"

namespace colltune {

struct Algorithm {
  Op op;
  std::string_view name;
  AlgorithmFn run;
  SupportsFn supports;  // nullptr: supports every intracommunicator call
  int index;            // position in the registry (stable for one build; used by statistics)
};

std::span<const Algorithm> algorithms();
const Algorithm* find_algorithm(Op op, std::string_view name);
const Algorithm& native_algorithm(Op op);
// "native, linear, binomial": the valid names for an op, for error messages.
std::string algorithm_choices(Op op);

// Tree algorithms carry whole subtrees as one packed message whose byte count is an int.
bool fits_packed_int(const CollArgs& a);

// Implementations (src/<op>/<name>.cpp), one per registry row.
#define COLLTUNE_ALGORITHM(op, name, supports) int op##_##name(const CollArgs& a);
#include "registry.def"
#undef COLLTUNE_ALGORITHM

}  // namespace colltune

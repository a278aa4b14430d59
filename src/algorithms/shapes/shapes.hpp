// The tree shapes of the registry (src/algorithms/shapes/<name>.cpp, one file each).
#pragma once

#include "../shape.hpp"

namespace colltune {

#define COLLTUNE_NATIVE(op)
#define COLLTUNE_TREE(op, name, supports) extern const Shape kShape_##name;
#include "../registry.def"
#undef COLLTUNE_TREE
#undef COLLTUNE_NATIVE

}  // namespace colltune

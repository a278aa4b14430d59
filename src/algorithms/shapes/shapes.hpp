// The tree shapes and builders of the registry (src/algorithms/shapes/<name>.cpp, one file each).
#pragma once

#include "../shape.hpp"

namespace colltune {

#define COLLTUNE_NATIVE(op)
#define COLLTUNE_TREE(op, name, supports) extern const Shape kShape_##name;
#define COLLTUNE_BUILT(op, name, like, supports, decided, from) BuiltTree kBuild_##name(const TreeCosts&, int, double);
#include "../registry.def"
#undef COLLTUNE_BUILT
#undef COLLTUNE_TREE
#undef COLLTUNE_NATIVE

}  // namespace colltune

// linear: the root exchanges with every other process directly, in rank order after itself.
#include "shapes.hpp"

namespace colltune {

const Shape kShape_linear = {
    "linear",
    [](int vr, int) { return vr == 0 ? -1 : 0; },
    [](int vr, int n) { return vr == 0 ? n : 1; },
    [](int vr, int n, int k) { return vr == 0 && k + 1 < n ? k + 1 : -1; },
};

}  // namespace colltune

// split (gather): linear's star, each child's message split in segments below the model's
// escalation size M1 and paced by the root's credits, so that at most one segment per sender is
// in flight (the many-to-one transfers of medium messages that escalate in a linear gather stay
// below M1). Segment: the largest power of two below M1, at least 256 bytes; no escalation
// measured: linear itself (segment 0). The same for every size (a message of one segment is
// linear's).
#include <algorithm>
#include <cmath>

#include "shapes.hpp"

namespace colltune {

BuiltTree kBuild_split(const TreeCosts& c, int root, double) {
  const int n = c.size();
  BuiltTree t = lay_out(kShape_linear, n, root);
  const double m1 = c.escalation();
  if (std::isfinite(m1) && m1 > 0) {
    const double below = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(m1))) - 1);
    // m <= segment: one segment, linear's message
    t.segment = static_cast<std::uint64_t>(std::clamp(below, 256.0, 1073741824.0));
  }
  return t;
}

}  // namespace colltune

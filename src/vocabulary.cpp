#include "vocabulary.hpp"

namespace colltune {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::kBcast:
      return "bcast";
    case Op::kScatter:
      return "scatter";
    case Op::kGather:
      return "gather";
  }
  return "?";
}

std::optional<Op> op_from_name(std::string_view name) {
  if (name == "bcast") return Op::kBcast;
  if (name == "scatter") return Op::kScatter;
  if (name == "gather") return Op::kGather;
  return std::nullopt;
}

std::string range_to_string(const Range& r) {
  return "[" + std::to_string(r.lo) + ", " + (r.hi == kMaxValue ? "max" : std::to_string(r.hi)) +
         "]";
}

}  // namespace colltune

// The vocabulary every room shares, without MPI or file formats: the operations colltune serves
// and inclusive ranges (of bytes, processes, nodes).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace colltune {

enum class Op : int { kBcast = 0, kScatter = 1, kGather = 2 };
inline constexpr int kNumOps = 3;

// "bcast", "scatter", "gather"; nullopt for any other name.
std::string_view op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);

inline constexpr std::uint64_t kMaxValue = std::numeric_limits<std::uint64_t>::max();

// Inclusive range [lo, hi]; hi == kMaxValue is unbounded ("max").
struct Range {
  std::uint64_t lo = 0;
  std::uint64_t hi = kMaxValue;
  bool contains(std::uint64_t v) const { return lo <= v && v <= hi; }
  bool operator==(const Range&) const = default;
};

// "[lo, hi]", "max" for an unbounded end.
std::string range_to_string(const Range& r);

}  // namespace colltune

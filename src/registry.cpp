#include <array>
#include <climits>

#include "algorithms.hpp"

namespace colltune {

bool fits_packed_int(const CollArgs& a) {
  return static_cast<std::uint64_t>(a.size) * a.block_bytes <= static_cast<std::uint64_t>(INT_MAX);
}

namespace {

// One row per algorithm. Native must stay first for each op (the fallback).
constexpr std::array<Algorithm, 9> kRegistry = {{
    {Op::kBcast, "native", bcast_native, nullptr, 0},
    {Op::kBcast, "linear", bcast_linear, nullptr, 1},
    {Op::kBcast, "binomial", bcast_binomial, nullptr, 2},
    {Op::kScatter, "native", scatter_native, nullptr, 3},
    {Op::kScatter, "linear", scatter_linear, nullptr, 4},
    {Op::kScatter, "binomial", scatter_binomial, fits_packed_int, 5},
    {Op::kGather, "native", gather_native, nullptr, 6},
    {Op::kGather, "linear", gather_linear, nullptr, 7},
    {Op::kGather, "binomial", gather_binomial, fits_packed_int, 8},
}};

}  // namespace

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

std::span<const Algorithm> algorithms() { return kRegistry; }

const Algorithm* find_algorithm(Op op, std::string_view name) {
  for (const Algorithm& a : kRegistry) {
    if (a.op == op && a.name == name) return &a;
  }
  return nullptr;
}

const Algorithm& native_algorithm(Op op) { return *find_algorithm(op, "native"); }

std::string algorithm_choices(Op op) {
  std::string out;
  for (const Algorithm& a : kRegistry) {
    if (a.op != op) continue;
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

}  // namespace colltune

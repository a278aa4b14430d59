#include "registry.hpp"

#include <algorithm>
#include <array>
#include <climits>

#include "shapes/shapes.hpp"

namespace colltune {

bool fits_packed_int(const CollArgs& a) {
  return static_cast<std::uint64_t>(a.size) * a.block_bytes <= static_cast<std::uint64_t>(INT_MAX);
}

namespace {

constexpr Op op_token(std::string_view s) {
  return s == "bcast" ? Op::kBcast : s == "scatter" ? Op::kScatter : Op::kGather;
}

template <const Shape* S>
int run_bcast(const CollArgs& a) {
  return bcast_tree(a, TreeView(*S, a.size, a.root));
}
template <const Shape* S>
int run_scatter(const CollArgs& a) {
  return scatter_tree(a, TreeView(*S, a.size, a.root));
}
template <const Shape* S>
int run_gather(const CollArgs& a) {
  return gather_tree(a, TreeView(*S, a.size, a.root));
}
// A built tree comes with the call (CollArgs::tree, the same on every rank); without one,
// nothing is sent on any rank.
bool built_for(const CollArgs& a) {
  return a.tree && a.tree->size() == a.size && a.tree->rank[0] == a.root;
}
[[maybe_unused]] int run_built_bcast(const CollArgs& a) {
  return built_for(a) ? bcast_tree(a, TreeView(*a.tree)) : MPI_ERR_INTERN;
}
[[maybe_unused]] int run_built_scatter(const CollArgs& a) {
  return built_for(a) ? scatter_tree(a, TreeView(*a.tree)) : MPI_ERR_INTERN;
}
[[maybe_unused]] int run_built_gather(const CollArgs& a) {
  return built_for(a) ? gather_tree(a, TreeView(*a.tree)) : MPI_ERR_INTERN;
}

constexpr std::size_t kCount = 0
#define COLLTUNE_NATIVE(op) +1
#define COLLTUNE_TREE(op, name, supports) +1
#define COLLTUNE_BUILT(op, name, like, supports, decided, from) +1
#include "registry.def"
#undef COLLTUNE_BUILT
#undef COLLTUNE_TREE
#undef COLLTUNE_NATIVE
    ;

constexpr std::array<Algorithm, kCount> kRegistry = [] {
  std::array<Algorithm, kCount> r = {{
// clang-format off
#define COLLTUNE_NATIVE(op) \
  {op_token(#op), "native", op##_native, nullptr, nullptr, nullptr, "", true, 0, 0},
#define COLLTUNE_TREE(op, name, supports) \
  {op_token(#op), #name, run_##op<&kShape_##name>, supports, &kShape_##name, nullptr, "", true, 0, 0},
#define COLLTUNE_BUILT(op, name, like, supports, decided, from) \
  {op_token(#op), #name, run_built_##op, supports, nullptr, kBuild_##name, #like, decided, from, 0},
// clang-format on
#include "registry.def"
#undef COLLTUNE_BUILT
#undef COLLTUNE_TREE
#undef COLLTUNE_NATIVE
  }};
  for (std::size_t i = 0; i < r.size(); ++i) r[i].index = static_cast<int>(i);
  return r;
}();

}  // namespace

std::span<const Algorithm> algorithms() { return kRegistry; }

std::vector<std::string_view> algorithm_names() {
  std::vector<std::string_view> names;
  for (const Algorithm& a : kRegistry) {
    if (std::find(names.begin(), names.end(), a.name) == names.end()) names.push_back(a.name);
  }
  return names;
}

const Algorithm* find_algorithm(Op op, std::string_view name) {
  for (const Algorithm& a : kRegistry) {
    if (a.op == op && a.name == name) return &a;
  }
  return nullptr;
}

const Algorithm& native_algorithm(Op op) { return *find_algorithm(op, "native"); }

std::vector<const Algorithm*> candidates_of(Op op) {
  std::vector<const Algorithm*> out = algorithms_of(op);
  std::erase_if(out, [](const Algorithm* a) { return !a->decided; });
  return out;
}

std::vector<const Algorithm*> algorithms_of(Op op) {
  std::vector<const Algorithm*> out;
  for (const Algorithm& a : kRegistry) {
    if (a.op == op) out.push_back(&a);
  }
  return out;
}

bool retired_algorithm(Op op, std::string_view name) {
  return op == Op::kScatter && name == "model_binomial";  // dropped 2026-11-28
}

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

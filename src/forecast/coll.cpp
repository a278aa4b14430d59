#include "coll.hpp"

#include <algorithm>
#include <optional>

namespace colltune::forecast {

std::vector<CollRow> coll(const model::PlatformModel& pm, Op op, std::span<const int> members,
                          int root, std::span<const double> sizes, const Algorithm* only,
                          ModelAtSize* sized) {
  const model::LmoParams params = model::with_average(pm.params);
  const std::vector<const Algorithm*> cands = model::candidates(pm, op);
  const std::vector<const Algorithm*> rowed = only ? std::vector<const Algorithm*>{only} : cands;
  std::vector<model::Choice> choices;
  int group = -1;
  std::vector<CollRow> rows;
  for (const double m : sizes) {
    const auto bytes = static_cast<std::uint64_t>(m);
    if (model::decision_group(bytes) != group) {  // as the library decides: one group at a time
      group = model::decision_group(bytes);
      choices = model::decide(pm, params, op, cands, members, root, group);
    }
    const Algorithm* picked = nullptr;
    for (const model::Choice& c : choices) {
      if (c.bytes.contains(bytes)) picked = c.algorithm;
    }
    // The rows' prices: pm, or pm at this size (its own average process).
    const model::PlatformModel& at = sized ? sized->at(m) : pm;
    std::optional<model::LmoParams> at_own;
    if (&at != &pm) at_own = model::with_average(at.params);
    const model::LmoParams& at_params = at_own ? *at_own : params;
    for (const Algorithm* a : rowed) {
      // Not `decided` and not swept this far by calibration: not a row, unless the decision
      // of the grid size this size falls to (validated there) picked it.
      if (!only && a != picked && !a->decided && !model::validated_at(pm, *a, m)) continue;
      rows.push_back({m, a, model::predict_algorithm(at, at_params, *a, members, root, m),
                      model::validated_error(pm, op, *a, m), a == picked});
    }
  }
  return rows;
}

double coll_time(const model::PlatformModel& pm, ModelAtSize* sized, Op op,
                 std::span<const int> members, int root, double m, bool native) {
  const Algorithm* mpich = algorithms_of(op).front();
  // Native: MPICH's row alone (no other candidate priced); else every row, to find the pick.
  for (const CollRow& row :
       coll(pm, op, members, root, std::span(&m, 1), native ? mpich : nullptr, sized)) {
    if (native ? row.algorithm == mpich : row.picked) return row.seconds;
  }
  return 0;
}

TreeSchedule tree_schedule(const model::PlatformModel& pm, ModelAtSize* sized, bool reduce,
                           std::span<const int> members, int root, double m, bool native) {
  const int n = static_cast<int>(members.size());
  if (n <= 1 || !(m > 0)) return {};  // nothing travels
  // MPICH's reduction: binomial up to 2048 bytes. Native bcast: the model of native the table
  // identified (model::native_plan; its relay is no single tree from the root).
  const auto native_tree = [&]() -> const Shape* {
    if (reduce) return m <= 2048 ? find_algorithm(Op::kBcast, "binomial")->shape : nullptr;
    const model::NativePlan p =
        model::native_plan(pm.native[static_cast<int>(Op::kBcast)], Op::kBcast, n, root, m);
    return p.relay ? nullptr : p.shape;
  };
  if (native || reduce) return {native_tree(), false};
  for (const CollRow& row : coll(pm, Op::kBcast, members, root, std::span(&m, 1), nullptr, sized)) {
    if (!row.picked) continue;
    if (row.algorithm->native()) return {native_tree(), false};
    return {row.algorithm->shape, row.algorithm->shape != nullptr};
  }
  return {};
}

}  // namespace colltune::forecast

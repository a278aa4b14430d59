// Models of what the MPI library runs natively, on the LMO parameters. Which one a platform's
// native follows is identified by calibration from native's own sweeps at two roots (the
// hypothesis that fits them best, docs/calibration.md), then scaled by the ratio measured on
// those sweeps (PlatformModel::correction) and validated like every algorithm.
//   mpich:    MPICH 4.0.2's default selection for intracommunicators: bcast is binomial below
//             12288 bytes or 8 processes, else a binomial scatter of n chunks followed by a
//             recursive-doubling (power-of-two sizes below 524288 bytes) or ring allgather;
//             scatter is a binomial tree from the root; gather too, each parent receiving
//             from its children one blocking receive after another, smallest subtree first
//             (MPIR_Gather_intra_binomial).
//   ompi:     Open MPI's binomial trees, as SimGrid's MPICH selection runs scatter and gather
//             (gather__ompi_binomial): the parent's blocking receives go largest subtree first.
//             Bcast and scatter as `binomial`.
//   binomial: a binomial tree from the root for every op and size, gather's parents taking
//             their children's messages as they arrive (colltune's own tree).
//   linear:   the root exchanges with every process directly (nonblocking, in rank order
//             from the root: SimGrid's default scatter and gather).
//   relay:    the root and rank 0 exchange the whole data first (bcast, scatter) or last
//             (gather), and a binomial tree runs from rank 0 (SimGrid's MPICH selection on one
//             process per host runs bcast so: SMP binomial).
#pragma once

#include <array>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

#include "../algorithms/shapes/shapes.hpp"
#include "lmo.hpp"

namespace colltune::model {

// MPICH 4.0.2 defaults: MPIR_CVAR_BCAST_SHORT_MSG_SIZE, _LONG_MSG_SIZE, _MIN_PROCS.
inline constexpr double kMpichBcastShort = 12288;
inline constexpr double kMpichBcastLong = 524288;
inline constexpr int kMpichBcastMinProcs = 8;

enum class NativeKind { kMpich, kBinomial, kLinear, kRelay, kOmpi };
inline constexpr std::array<NativeKind, 5> kNativeKinds = {
    NativeKind::kMpich, NativeKind::kBinomial, NativeKind::kLinear, NativeKind::kRelay,
    NativeKind::kOmpi};
std::string_view native_kind_name(NativeKind k);
std::optional<NativeKind> parse_native_kind(std::string_view name);

// One native call as the model sees it: a tree from `tree_root`, with the relay between the
// call's root and the tree's root before (bcast, scatter) or after (gather) it.
struct NativePlan {
  const Shape* shape = nullptr;  // nullptr: MPICH's scatter + allgather bcast (no single tree)
  int tree_root = 0;
  bool relay = false;
  Receives receives = Receives::kAsTheyArrive;  // how gather's parents take their children's
};
NativePlan native_plan(NativeKind k, Op op, int n, int root, double m);

// The relay's time: one message of the whole data (bcast m, scatter and gather n m) between
// members[root] and members[0]; 0 when root is 0.
double relay_time(Op op, const LmoParams& p, std::span<const int> members, int root, double m);

// MPICH's bcast above its short size: a binomial scatter of n chunks along `binomial` (the
// binomial shape laid out on members from the root), then a recursive-doubling (power-of-two
// n below 524288 bytes) or ring allgather. binomial also caches the exchange steps on p.
double bcast_scatter_allgather(const LmoParams& p, const Layout& binomial,
                               std::span<const int> members, double m);

// Native's predicted time: the plan's tree, whose time at m tree_time(shape, tree_root,
// receives) gives, plus the relay; or MPICH's scatter + allgather along
// layout(kShape_binomial, root). A caller may keep both (model::decide lays each tree out once
// and times it once per size).
template <typename TreeTime, typename LayoutOf>
double predict_native(NativeKind k, Op op, const LmoParams& p, std::span<const int> members,
                      int root, double m, TreeTime&& tree_time, LayoutOf&& layout) {
  const NativePlan plan = native_plan(k, op, static_cast<int>(members.size()), root, m);
  if (!plan.shape) return bcast_scatter_allgather(p, layout(kShape_binomial, root), members, m);
  return tree_time(*plan.shape, plan.tree_root, plan.receives) +
         (plan.relay ? relay_time(op, p, members, root, m) : 0);
}
// The same, each tree laid out for this call.
double predict_native(NativeKind k, Op op, const LmoParams& p, std::span<const int> members,
                      int root, double m);

// Native's measured time at one root and size, and where calibration swept them there too, the
// fixed binomial and linear algorithms' (NaN where not).
struct NativeRow {
  int root = 0;
  double m = 0, time = 0;
  double binomial = std::numeric_limits<double>::quiet_NaN();
  double linear = std::numeric_limits<double>::quiet_NaN();
};
// Per model, the mean |ln(predicted / measured)| over the rows (+inf without rows), and the
// model that fits best (the first listed wins ties: at root 0 below 12288 bytes all coincide).
// Where a row has its fixed algorithm's time, a model's prediction there is first scaled by that
// algorithm's measured / predicted (binomial's for trees of that shape and for MPICH's scatter +
// allgather, linear's for linear): what the model gets wrong on this platform at that root and
// size for every tree alike is not held against one model (docs/calibration.md).
struct NativeFit {
  NativeKind best = NativeKind::kMpich;
  std::array<double, kNativeKinds.size()> fit{};
};
NativeFit identify_native(Op op, const LmoParams& p, std::span<const int> members,
                          std::span<const NativeRow> rows);

// Models that fit native's rows within kNativeTie of the best are tied: the rows cannot tell
// them apart (e.g. mpich and binomial bcast with every row below kMpichBcastShort).
inline constexpr double kNativeTie = 0.02;    // mean |ln(predicted / measured)| above the best
inline constexpr double kNativeApart = 1.25;  // a ratio of two tied models' predictions
struct Telling {
  std::vector<double> sizes;    // increasing; empty: no size tells them apart (or none tie)
  std::vector<double> seconds;  // per size, over `roots`, the slowest tied model's prediction
};
// Sizes at which measuring native tells apart the tied models: each of `sizes` in turn is
// taken where two tied models not yet parted predict more than kNativeApart apart at one of
// `roots`, until every two are parted (e.g. ompi parts from mpich and binomial bcast at a
// smaller size than they part from each other).
Telling telling_sizes(Op op, const LmoParams& p, std::span<const int> members, const NativeFit& f,
                      std::span<const int> roots, std::span<const double> sizes);

}  // namespace colltune::model

// The calibrated model of a table: interpolation, identities, decisions with the validated-error
// margin, and the YAML it is stored as (round trip, and refusals that name the field).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "algorithms/registry.hpp"
#include "model/native.hpp"
#include "model/platform_model.hpp"
#include "table/model_table.hpp"
#include "table/model_yaml.hpp"

using namespace colltune;
using namespace colltune::model;

namespace {

std::vector<int> identity(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// 8 processes, slow links and cheap processing: a linear scatter of large blocks beats MPICH's
// binomial one (which moves each block log n times).
PlatformModel eight() {
  PlatformModel pm;
  for (int i = 0; i < 8; ++i) pm.identities.push_back("h" + std::to_string(i));
  pm.params = LmoParams::uniform(8, 5e-6, 1e-11, 1e-9);
  pm.S = pm.M1 = pm.M2 = {kNever, 0};
  return pm;
}

const Algorithm* choice_at(const std::vector<Choice>& v, std::uint64_t bytes) {
  for (const Choice& c : v) {
    if (c.bytes.contains(bytes)) return c.algorithm;
  }
  return nullptr;
}

// pm written as a table and read back, as the library reads it.
PlatformModel through_table(const PlatformModel& pm) {
  ModelTable t;
  t.platform.mpi_library = "x";
  t.platform.hosts.push_back({"a", "t"});
  t.platform_model = pm;
  YamlReader y("t.yaml");
  ModelTable back = parse_model_table("t.yaml", y.load_string(emit_model_table(t)));
  EXPECT_TRUE(back.platform_model);
  return back.platform_model ? *back.platform_model : PlatformModel{};
}

}  // namespace

TEST(PlatformModel, CurveInterpolatesInLogSizeAndClampsOutside) {
  Curve c{{1024, 4096}, {1.0, 2.0}};
  EXPECT_DOUBLE_EQ(c.at(2048), 1.5);
  EXPECT_DOUBLE_EQ(c.at(1), 1.0);
  EXPECT_DOUBLE_EQ(c.at(1 << 20), 2.0);
}

TEST(PlatformModel, UnknownIdentitiesFallBackToTheHostThenTheAverage) {
  PlatformModel pm = eight();
  pm.identities[3] = "nodeA/numa0";
  EXPECT_EQ(match_identity(pm, "h5").index, 5);
  EXPECT_EQ(match_identity(pm, "nodeA/numa1").kind, IdentityMatch::kHost);
  EXPECT_EQ(match_identity(pm, "nodeA/numa1").index, 3);
  const IdentityMatch avg = match_identity(pm, "elsewhere");
  EXPECT_EQ(avg.kind, IdentityMatch::kAverage);
  pm.params.C[0].value = 13e-6;  // the average is the mean of all
  const LmoParams p = with_average(pm.params);
  ASSERT_EQ(p.size(), 9);
  EXPECT_NEAR(p.C[avg.index].value, (13e-6 + 7 * 5e-6) / 8, 1e-15);
  EXPECT_DOUBLE_EQ(p.ib(0, 1), pm.params.ib(0, 1));
  EXPECT_DOUBLE_EQ(p.ib(8, 2), 1e-9);
}

TEST(PlatformModel, DecidesTheFastestPerRangeAndKeepsNativeWithinTheError) {
  PlatformModel pm = eight();
  const auto cands = algorithms_of(Op::kScatter);
  const auto v = decide(pm, pm.params, Op::kScatter, cands, identity(8), 0);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front().bytes, (Range{0, 0}));
  EXPECT_EQ(v.back().bytes.hi, kMaxValue);
  for (std::size_t i = 1; i < v.size(); ++i) EXPECT_EQ(v[i].bytes.lo, v[i - 1].bytes.hi + 1);
  const Algorithm* big = choice_at(v, 1 << 20);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->name, "linear");
  // The choice is the model's: linear is predicted faster than native there.
  const double lin = predict_algorithm(pm, pm.params, *find_algorithm(Op::kScatter, "linear"),
                                       identity(8), 0, 1 << 20);
  const double nat =
      predict_algorithm(pm, pm.params, native_algorithm(Op::kScatter), identity(8), 0, 1 << 20);
  EXPECT_LT(lin * (1 + pm.margin), nat);

  // A validated error larger than the predicted gain keeps native.
  const double gain = 1.01 * (nat / lin - 1);
  pm.error[static_cast<int>(Op::kScatter)]["linear"] = Curve{{1.0}, {gain}};
  const auto w = decide(pm, pm.params, Op::kScatter, cands, identity(8), 0);
  EXPECT_EQ(choice_at(w, 1 << 20), &native_algorithm(Op::kScatter));
}

TEST(PlatformModel, AGainAtOneGridSizeAloneKeepsNative) {
  // Linear scatter predicted 4x slower than native everywhere (its correction), but for a dip
  // to 0.01x: at 4 KiB alone, then at 4 and 8 KiB.
  PlatformModel pm = eight();
  const auto cands = algorithms_of(Op::kScatter);
  const Algorithm& native = native_algorithm(Op::kScatter);
  auto& corr = pm.correction[static_cast<int>(Op::kScatter)]["linear"];
  auto with_dip = [&](std::vector<double> at) {
    corr = Curve{{1024, 2048}, {40.0, 40.0}};
    for (double m : at) {
      corr.m.push_back(m);
      corr.y.push_back(0.01);
    }
    corr.m.push_back(2 * corr.m.back());
    corr.y.push_back(40.0);
    corr.m.push_back(1 << 30);
    corr.y.push_back(40.0);
    return decide(pm, pm.params, Op::kScatter, cands, identity(8), 0);
  };
  const auto one = with_dip({4096});
  EXPECT_EQ(choice_at(one, 4096), &native);
  for (const Choice& c : one) EXPECT_EQ(c.algorithm, &native) << c.bytes.lo;
  const auto two = with_dip({4096, 8192});
  EXPECT_EQ(choice_at(two, 4096)->name, "linear");
  EXPECT_EQ(choice_at(two, 8192)->name, "linear");
  EXPECT_EQ(choice_at(two, 1 << 20), &native);
}

TEST(PlatformModel, DecisionGroupsSplitTheSizesWhereBuiltTreesChangeClass) {
  // Built trees change class at 1 KiB, 32 KiB and 1 MiB, and so do the groups: the grid size
  // 2^10 stands for [1024, 1448], 2^9 for [363, 1023] (until 2026-11-28 the groups started at
  // the grid's 725, 23171 and 741456, and a call of 24000 B ran another tree than the one its
  // group decided with).
  const std::uint64_t starts[] = {0, 1024, 32768, 1048576};
  for (int g = 0; g < kDecisionGroups; ++g) {
    EXPECT_EQ(decision_group(starts[g]), g);
    if (g > 0) {
      EXPECT_EQ(decision_group(starts[g] - 1), g - 1);
    }
  }
  EXPECT_EQ(decision_group(std::uint64_t{1} << 40), kDecisionGroups - 1);
  // Each group's choices cover exactly its sizes, and together every size once.
  const PlatformModel pm = eight();
  const auto cands = algorithms_of(Op::kBcast);
  std::uint64_t next = 0;
  for (int g = 0; g < kDecisionGroups; ++g) {
    for (const Choice& c : decide(pm, pm.params, Op::kBcast, cands, identity(8), 3, g)) {
      EXPECT_EQ(c.bytes.lo, next) << "group " << g;
      EXPECT_EQ(decision_group(c.bytes.lo), g);
      EXPECT_EQ(decision_group(c.bytes.hi), g);
      next = c.bytes.hi + 1;
    }
    EXPECT_EQ(next - 1, g + 1 < kDecisionGroups ? starts[g + 1] - 1 : kMaxValue);  // its last
  }
}

// hetero16 (seed 23), gather reversed, root 13: linear 1.24x faster at 1500 B, predicted so
// at 512 and 1024 B, kept native because 1024 B opens a group and 512 B was in the one before.
TEST(PlatformModel, AGainAtAGroupsEdgeCountsTheNeighbourAcrossIt) {
  // Linear scatter 100x faster from 16 to 40 KiB only (its correction), 4x slower elsewhere:
  // 32 KiB opens the group of 32 KiB-1 MiB trees; the group decides 32768-46340 B at
  // 2^15.25 = 38968 B, the one before 23171-32767 B at 2^14.75 = 27554 B. The gain at 38968 B
  // has its neighbour across the edge and stands, in the whole range and group by group.
  PlatformModel pm = eight();
  const auto cands = algorithms_of(Op::kScatter);
  const Algorithm& native = native_algorithm(Op::kScatter);
  auto& corr = pm.correction[static_cast<int>(Op::kScatter)]["linear"];
  corr = Curve{{4096, 8192, 16384, 40000, 65536, 1 << 30}, {40, 40, 0.01, 0.01, 40, 40}};
  const auto edge = decide(pm, pm.params, Op::kScatter, cands, identity(8), 0);
  EXPECT_EQ(choice_at(edge, 16384)->name, "linear");
  EXPECT_EQ(choice_at(edge, 32768)->name, "linear");
  for (std::uint64_t b : {16384, 32768}) {
    const auto group =
        decide(pm, pm.params, Op::kScatter, cands, identity(8), 0, decision_group(b));
    EXPECT_EQ(choice_at(group, b)->name, "linear") << b;
  }
  // A gain at 38968 B alone (32768-46340 B), at the edge: native.
  corr = Curve{{8192, 30000, 34000, 44000, 50000, 1 << 30}, {40, 40, 0.01, 0.01, 40, 40}};
  EXPECT_EQ(choice_at(decide(pm, pm.params, Op::kScatter, cands, identity(8), 0), 32768), &native);
  EXPECT_EQ(
      choice_at(decide(pm, pm.params, Op::kScatter, cands, identity(8), 0, decision_group(32768)),
                32768),
      &native);
}

TEST(PlatformModel, NeighbouringGainsOfTwoAlgorithmsMakeARange) {
  // Linear scatter 100x faster at 4 KiB alone, binomial at 8 KiB alone (their corrections),
  // both 4x slower than native elsewhere: each gain has a neighbour's, so both stand.
  PlatformModel pm = eight();
  const auto cands = algorithms_of(Op::kScatter);
  auto& lin = pm.correction[static_cast<int>(Op::kScatter)]["linear"];
  auto& bin = pm.correction[static_cast<int>(Op::kScatter)]["binomial"];
  lin = Curve{{1024, 2048, 4096, 8192, 1 << 30}, {40, 40, 0.01, 40, 40}};
  bin = Curve{{1024, 4096, 8192, 16384, 1 << 30}, {40, 40, 0.01, 40, 40}};
  const auto v = decide(pm, pm.params, Op::kScatter, cands, identity(8), 0);
  EXPECT_EQ(choice_at(v, 4096)->name, "linear");
  EXPECT_EQ(choice_at(v, 8192)->name, "binomial");
  EXPECT_EQ(choice_at(v, 1 << 20), &native_algorithm(Op::kScatter));
}

TEST(PlatformModel, AGainFromCorrectionsAloneKeepsNative) {
  // Two processes: every bcast is one message, so the schedules predict one time; a correction
  // that makes binomial look 5x faster is the sweeps' noise, not a gain.
  PlatformModel pm = eight();
  pm.identities.resize(2);
  pm.params = LmoParams::uniform(2, 5e-6, 1e-11, 1e-9);
  const auto cands = algorithms_of(Op::kBcast);
  pm.correction[static_cast<int>(Op::kBcast)]["binomial"] = Curve{{1.0}, {0.2}};
  const auto two = decide(pm, pm.params, Op::kBcast, cands, identity(2), 0);
  for (const Choice& c : two) EXPECT_EQ(c.algorithm, &native_algorithm(Op::kBcast)) << c.bytes.lo;
  ASSERT_GE(two.size(), 2u);
  EXPECT_NE(two[1].held_back.find("same time"), std::string::npos) << two[1].held_back;
  // Control: where the schedules differ (linear at 8 processes), the same correction decides.
  PlatformModel eight_pm = eight();
  eight_pm.correction[static_cast<int>(Op::kBcast)]["linear"] = Curve{{1.0}, {0.05}};
  const auto v = decide(eight_pm, eight_pm.params, Op::kBcast, cands, identity(8), 0);
  EXPECT_EQ(choice_at(v, 4096)->name, "linear");
}

TEST(PlatformModel, PredictionsThatMayBeOffBy2xDoNotDecide) {
  PlatformModel pm = eight();
  const auto cands = algorithms_of(Op::kScatter);
  const Algorithm& lin = *find_algorithm(Op::kScatter, "linear");
  const double l = predict_algorithm(pm, pm.params, lin, identity(8), 0, 1 << 20);
  const double n =
      predict_algorithm(pm, pm.params, native_algorithm(Op::kScatter), identity(8), 0, 1 << 20);
  ASSERT_GT(n / l, 1 + 2 * 0.55);  // the gain exceeds the margin the errors below give
  ASSERT_EQ(choice_at(decide(pm, pm.params, Op::kScatter, cands, identity(8), 0), 1 << 20), &lin);
  pm.error[static_cast<int>(Op::kScatter)]["linear"] = Curve{{1.0}, {0.55}};
  pm.error[static_cast<int>(Op::kScatter)]["native"] = Curve{{1.0}, {0.05}};
  const auto w = decide(pm, pm.params, Op::kScatter, cands, identity(8), 0);
  EXPECT_EQ(choice_at(w, 1 << 20), &native_algorithm(Op::kScatter));
  bool said = false;
  for (const Choice& c : w) said = said || c.held_back.find("55%") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(PlatformModel, CorrectionsScaleThePrediction) {
  PlatformModel pm = eight();
  const Algorithm& lin = *find_algorithm(Op::kBcast, "linear");
  const double raw = predict_algorithm(pm, pm.params, lin, identity(8), 0, 4096);
  pm.correction[static_cast<int>(Op::kBcast)]["linear"] = Curve{{1024, 16384}, {2.0, 2.0}};
  EXPECT_DOUBLE_EQ(predict_algorithm(pm, pm.params, lin, identity(8), 0, 4096), 2 * raw);
}

TEST(PlatformModel, NativeAtOtherRootsTakesTheOtherRootsCorrection) {
  PlatformModel pm = eight();
  const Algorithm& nat = native_algorithm(Op::kGather);
  const Algorithm& lin = *find_algorithm(Op::kGather, "linear");
  auto raw = [&](const Algorithm& a, int root) {
    return predict_uncorrected(pm, pm.params, a, identity(8), root, 4096);
  };
  pm.correction[static_cast<int>(Op::kGather)]["native"] = Curve{{1024}, {1.2}};
  pm.correction[static_cast<int>(Op::kGather)]["linear"] = Curve{{1024}, {1.1}};
  pm.correction_other_root[static_cast<int>(Op::kGather)]["native"] = Curve{{1024}, {0.7}};
  for (int root : {0, 3, 7}) {
    EXPECT_DOUBLE_EQ(predict_algorithm(pm, pm.params, nat, identity(8), root, 4096),
                     raw(nat, root) * (root == 0 ? 1.2 : 0.7))
        << root;
    // Algorithms without a correction at the other root keep root 0's everywhere.
    EXPECT_DOUBLE_EQ(predict_algorithm(pm, pm.params, lin, identity(8), root, 4096),
                     raw(lin, root) * 1.1)
        << root;
  }
}

// hetero64 (seed 23): linear's gather correction was 1.75 at root 0 and the model right at the
// other roots; carried to root 33 it made binomial the pick there, linear 1.67x faster.
TEST(PlatformModel, ACorrectionHoldsWhereSweptAndElsewhereOnlyWhatBothRootsAgreeOn) {
  PlatformModel pm = eight();
  pm.correction_roots = {0, 7};  // identities h0 and h7
  const int g = static_cast<int>(Op::kGather);
  const Algorithm& lin = *find_algorithm(Op::kGather, "linear");
  const Algorithm& bin = *find_algorithm(Op::kGather, "binomial");
  const Algorithm& nat = native_algorithm(Op::kGather);
  pm.correction[g]["linear"] = Curve{{1024}, {1.8}};
  pm.correction_other_root[g]["linear"] = Curve{{1024}, {1.3}};
  pm.correction[g]["binomial"] = Curve{{1024}, {0.8}};
  pm.correction_other_root[g]["binomial"] = Curve{{1024}, {1.1}};
  pm.correction[g]["native"] = Curve{{1024}, {0.9}};
  pm.correction_other_root[g]["native"] = Curve{{1024}, {0.7}};
  const std::vector<int> world = identity(8);
  std::vector<int> reversed(world.rbegin(), world.rend());
  auto ratio = [&](const Algorithm& a, const std::vector<int>& members, int root) {
    return predict_algorithm(pm, pm.params, a, members, root, 4096) /
           predict_uncorrected(pm, pm.params, a, members, root, 4096);
  };
  // At the processes swept: their own curves, whichever rank they have.
  EXPECT_DOUBLE_EQ(ratio(lin, world, 0), 1.8);
  EXPECT_DOUBLE_EQ(ratio(lin, world, 7), 1.3);
  EXPECT_DOUBLE_EQ(ratio(lin, reversed, 0), 1.3);
  EXPECT_DOUBLE_EQ(ratio(lin, reversed, 7), 1.8);
  for (int root : {1, 3, 6}) {
    EXPECT_DOUBLE_EQ(ratio(lin, world, root), 1.3) << root;  // both above 1: the nearer
    EXPECT_DOUBLE_EQ(ratio(nat, world, root), 0.9) << root;  // both below 1: the nearer
    EXPECT_DOUBLE_EQ(ratio(bin, world, root), 1.0) << root;  // they disagree: none
    EXPECT_DOUBLE_EQ(ratio(bin, reversed, root), 1.0) << root;
  }
  // A communicator of one identity (one host): by position.
  pm.correction_roots = {0, 0};
  const std::vector<int> one(8, 0);
  EXPECT_DOUBLE_EQ(ratio(lin, one, 0), 1.8);
  EXPECT_DOUBLE_EQ(ratio(lin, one, 7), 1.3);
  EXPECT_DOUBLE_EQ(ratio(lin, one, 4), 1.3);
  EXPECT_DOUBLE_EQ(ratio(bin, one, 4), 1.0);
}

// A third root's curve (small sizes at the rank least like rank 0) holds at that root; at the
// other roots but 0 (and the last rank for native) only what every root swept agrees on.
TEST(PlatformModel, AThirdRootsCurveHoldsThereAndElsewhereOnlyWhatAllRootsAgreeOn) {
  PlatformModel pm = eight();
  const int g = static_cast<int>(Op::kGather);
  const Algorithm& lin = *find_algorithm(Op::kGather, "linear");
  const Algorithm& bin = *find_algorithm(Op::kGather, "binomial");
  const Algorithm& nat = native_algorithm(Op::kGather);
  pm.correction[g]["linear"] = Curve{{16, 1024}, {1.8, 1.8}};
  pm.correction_unlike_root[g]["linear"] = Curve{{16, 1024}, {1.05, 1.1}};
  pm.correction[g]["binomial"] = Curve{{16, 1024}, {0.8, 0.8}};
  pm.correction_unlike_root[g]["binomial"] = Curve{{16, 1024}, {0.6, 0.6}};
  pm.correction[g]["native"] = Curve{{16, 1024}, {0.97, 0.97}};
  pm.correction_other_root[g]["native"] = Curve{{16, 1024}, {0.85, 0.85}};
  pm.correction_unlike_root[g]["native"] = Curve{{16, 1024}, {0.6, 0.6}};
  pm.unlike_roots = {0, 7, 5};  // identities of rank 0, the last rank and the third root
  const std::vector<int> world = identity(8);
  const std::vector<int> reversed(world.rbegin(), world.rend());
  auto ratio = [&](const PlatformModel& m, const Algorithm& a, const std::vector<int>& members,
                   int root, double bytes) {
    return predict_algorithm(m, m.params, a, members, root, bytes) /
           predict_uncorrected(m, m.params, a, members, root, bytes);
  };
  EXPECT_DOUBLE_EQ(ratio(pm, lin, world, 0, 1024), 1.8);
  EXPECT_DOUBLE_EQ(ratio(pm, lin, world, 5, 1024), 1.1);     // the third root itself
  EXPECT_DOUBLE_EQ(ratio(pm, lin, reversed, 2, 1024), 1.1);  // h5 at rank 2
  EXPECT_DOUBLE_EQ(ratio(pm, lin, world, 3, 1024), 1.1);     // both above 1: the nearer
  EXPECT_DOUBLE_EQ(ratio(pm, bin, world, 3, 1024), 0.8);     // both below 1: the nearer
  EXPECT_DOUBLE_EQ(ratio(pm, lin, world, 3, 8192), 1.8);     // past twice its largest size
  EXPECT_DOUBLE_EQ(ratio(pm, lin, reversed, 0, 1024), 1.8);  // rank 0 by position
  EXPECT_DOUBLE_EQ(ratio(pm, nat, world, 0, 1024), 0.97);
  EXPECT_DOUBLE_EQ(ratio(pm, nat, world, 7, 1024), 0.85);  // the last rank's own
  EXPECT_DOUBLE_EQ(ratio(pm, nat, world, 3, 1024), 0.97);  // three below 1: the nearest
  EXPECT_DOUBLE_EQ(ratio(pm, nat, world, 3, 8192), 0.85);  // past it: the last rank's
  pm.correction_unlike_root[g]["native"] = Curve{{16, 1024}, {1.2, 1.2}};
  EXPECT_DOUBLE_EQ(ratio(pm, nat, world, 3, 1024), 1.0);  // they disagree: none
  // Between its sizes (16x apart) it follows root 0's curve, which has the shape.
  pm.correction[g]["linear"] = Curve{{16, 1024, 4096}, {1.0, 0.5, 1.0}};
  pm.correction_unlike_root[g]["linear"] = Curve{{16, 4096}, {1.2, 1.2}};
  EXPECT_DOUBLE_EQ(ratio(pm, lin, world, 5, 1024), 0.6);
  EXPECT_DOUBLE_EQ(ratio(pm, lin, world, 5, 4096), 1.2);
  // Read back from its table, the same.
  const PlatformModel back = through_table(pm);
  EXPECT_EQ(back.unlike_roots, (std::array<int, 3>{0, 7, 5}));
  EXPECT_DOUBLE_EQ(ratio(back, lin, world, 5, 1024), 0.6);
  EXPECT_DOUBLE_EQ(ratio(back, nat, world, 3, 1024), 1.0);
  EXPECT_DOUBLE_EQ(ratio(back, nat, world, 5, 1024), 1.2);
}

TEST(PlatformModel, NativeBcastSwitchesToScatterAllgatherLikeMpich) {
  const LmoParams p = LmoParams::uniform(8, 5e-6, 1e-10, 1e-9);
  const Shape& binomial = *find_algorithm(Op::kBcast, "binomial")->shape;
  EXPECT_DOUBLE_EQ(predict_native(NativeKind::kMpich, Op::kBcast, p, identity(8), 0, 4096),
                   predict(Op::kBcast, binomial, p, identity(8), 0, 4096));
  // 1 MiB on 8: a binomial scatter of 128 KiB blocks, then 7 ring steps of one block.
  const double m = 1 << 20, c = m / 8;
  const double ring = 7 * p.p2p(0, 1, c);
  const Shape& sb = *find_algorithm(Op::kScatter, "binomial")->shape;
  EXPECT_DOUBLE_EQ(predict_native(NativeKind::kMpich, Op::kBcast, p, identity(8), 0, m),
                   predict(Op::kScatter, sb, p, identity(8), 0, c) + ring);
}

// MPICH pairs relative ranks (rank - root) in the recursive-doubling allgather, so the pairs
// of processes move with the root; the model paired absolute ranks (found reading the bed's
// bcast at roots other than 0, docs/model-trees.md).
TEST(PlatformModel, NativeRecursiveDoublingPairsRanksRelativeToTheRoot) {
  LmoParams p = LmoParams::uniform(8, 5e-6, 1e-10, 1e-9);
  p.inv_beta[0 * 8 + 1] = {1e-7, 0};  // a slow link between ranks 0 and 1
  p.inv_beta[1 * 8 + 0] = {1e-7, 0};
  const Shape& sb = *find_algorithm(Op::kScatter, "binomial")->shape;
  const double m = 65536, c = m / 8;
  // From root 1 the steps pair (1,2)(3,4)(5,6)(7,0), (1,3)(2,4)(5,7)(6,0), (1,5)(2,6)(3,7)(4,0),
  // and the scatter's tree from 1 never joins 0 and 1: the slow link is not used.
  double uniform_steps = 0;
  for (int mask = 1; mask < 8; mask <<= 1) uniform_steps += p.p2p(2, 3, c * mask);
  const double root1 = predict_native(NativeKind::kMpich, Op::kBcast, p, identity(8), 1, m);
  EXPECT_NEAR(root1, predict(Op::kScatter, sb, p, identity(8), 1, c) + uniform_steps,
              1e-12 * root1);
  // From root 0 the first step pairs 0 with 1, over the slow link.
  const double root0 = predict_native(NativeKind::kMpich, Op::kBcast, p, identity(8), 0, m);
  EXPECT_NEAR(root0,
              predict(Op::kScatter, sb, p, identity(8), 0, c) + p.p2p(0, 1, c) +
                  p.p2p(2, 3, 2 * c) + p.p2p(2, 3, 4 * c),
              1e-12 * root0);
}

TEST(PlatformModel, RelayedNativeSendsToRankZeroFirst) {
  LmoParams p = LmoParams::uniform(8, 5e-6, 1e-10, 1e-9);
  p.inv_beta[3 * 8 + 0] = {1e-7, 0};  // a slow link from rank 3 to rank 0
  const Shape& binomial = *find_algorithm(Op::kBcast, "binomial")->shape;
  const double m = 65536;
  EXPECT_DOUBLE_EQ(predict_native(NativeKind::kRelay, Op::kBcast, p, identity(8), 3, m),
                   p.p2p(3, 0, m) + predict(Op::kBcast, binomial, p, identity(8), 0, m));
  EXPECT_DOUBLE_EQ(predict_native(NativeKind::kRelay, Op::kBcast, p, identity(8), 0, m),
                   predict(Op::kBcast, binomial, p, identity(8), 0, m));
  // Gather relays last: the whole gathered data from rank 0 to the root.
  const Shape& gb = *find_algorithm(Op::kGather, "binomial")->shape;
  EXPECT_DOUBLE_EQ(predict_native(NativeKind::kRelay, Op::kGather, p, identity(8), 3, 1024),
                   p.p2p(0, 3, 8 * 1024) + predict(Op::kGather, gb, p, identity(8), 0, 1024));
}

TEST(PlatformModel, NativeIsIdentifiedFromItsSweepsAtTwoRoots) {
  LmoParams p = LmoParams::uniform(8, 5e-6, 1e-10, 1e-9);
  p.inv_beta[7 * 8 + 0] = {5e-8, 0};
  p.C[1] = {40e-6, 0};  // a late small subtree: blocking receives in either order differ
  for (Op op : {Op::kBcast, Op::kGather}) {
    for (NativeKind truth : kNativeKinds) {
      std::vector<NativeRow> rows;
      for (int root : {0, 7}) {
        for (double m = 1; m <= (1 << 20); m *= 4) {
          rows.push_back({root, m, predict_native(truth, op, p, identity(8), root, m)});
        }
      }
      const std::string what =
          std::string(op_name(op)) + " " + std::string(native_kind_name(truth));
      const NativeFit f = identify_native(op, p, identity(8), rows);
      EXPECT_EQ(f.fit[static_cast<int>(truth)], 0) << what;
      // The pick reproduces every row; for bcast, ompi's trees are binomial's (a tie that the
      // first listed wins). For gather every model differs from every other.
      EXPECT_EQ(f.fit[static_cast<int>(f.best)], 0) << what;
      if (op == Op::kBcast && truth == NativeKind::kOmpi) {
        EXPECT_EQ(f.best, NativeKind::kBinomial) << what;
        continue;
      }
      EXPECT_EQ(f.best, truth) << what;
      for (std::size_t k = 0; k < f.fit.size(); ++k) {
        const NativeKind other = kNativeKinds[k];
        if (other == truth ||
            (op == Op::kBcast && (other == NativeKind::kOmpi || truth == NativeKind::kOmpi))) {
          continue;
        }
        EXPECT_GT(f.fit[k], 0.01) << what << " against " << native_kind_name(other);
      }
    }
  }
}

TEST(PlatformModel, TiedNativeModelsAreToldApartAtTheFirstSizeWhereTheyPart) {
  // Small latencies: at 16 KiB MPICH's scatter + allgather is well apart from a binomial tree.
  LmoParams p = LmoParams::uniform(8, 1e-7, 1e-10, 1e-9);
  const std::vector<int> roots = {0, 7};
  std::vector<double> grid;  // the sweeps' sizes 2^(k/2) from 8 KiB
  for (int k = 26; k <= 40; ++k) grid.push_back(std::round(std::pow(2.0, k / 2.0)));
  const auto rows_of = [&](NativeKind truth, Op op, double top) {
    std::vector<NativeRow> rows;
    for (int root : roots) {
      for (double m = 1; m <= top; m *= 2) {
        rows.push_back({root, m, predict_native(truth, op, p, identity(8), root, m)});
      }
    }
    return rows;
  };
  for (NativeKind truth : {NativeKind::kMpich, NativeKind::kBinomial}) {
    const std::string what(native_kind_name(truth));
    // Rows up to 8 KiB: MPICH runs a binomial tree there, so mpich, binomial and ompi tie, and
    // the tie goes to the first listed, mpich, whatever the truth.
    std::vector<NativeRow> rows = rows_of(truth, Op::kBcast, 8192);
    const NativeFit f = identify_native(Op::kBcast, p, identity(8), rows);
    EXPECT_EQ(f.best, NativeKind::kMpich) << what;
    // MPICH leaves the binomial tree at 12288 bytes: 16384 is the first grid size past it.
    const Telling t = telling_sizes(Op::kBcast, p, identity(8), f, roots, grid);
    ASSERT_EQ(t.sizes, std::vector<double>{16384}) << what;
    // What measuring there costs: the slowest of the tied models (binomial) at both roots.
    EXPECT_DOUBLE_EQ(
        t.seconds[0],
        predict_native(NativeKind::kBinomial, Op::kBcast, p, identity(8), 0, 16384) +
            predict_native(NativeKind::kBinomial, Op::kBcast, p, identity(8), 7, 16384))
        << what;
    // Measured there, native is identified.
    for (int root : roots) {
      rows.push_back({root, 16384, predict_native(truth, Op::kBcast, p, identity(8), root, 16384)});
    }
    const NativeFit g = identify_native(Op::kBcast, p, identity(8), rows);
    EXPECT_EQ(g.best, truth) << what;
    EXPECT_TRUE(telling_sizes(Op::kBcast, p, identity(8), g, roots, grid).sizes.empty()) << what;
  }
  // Models that tie everywhere (scatter: mpich, binomial and ompi are one tree) are not apart.
  const std::vector<NativeRow> rows = rows_of(NativeKind::kBinomial, Op::kScatter, 8192);
  const NativeFit f = identify_native(Op::kScatter, p, identity(8), rows);
  EXPECT_TRUE(telling_sizes(Op::kScatter, p, identity(8), f, roots, grid).sizes.empty());
}

TEST(PlatformModel, TiedNativeModelsArePartedPairByPairAtAsManySizesAsTheyNeed) {
  // Three models tied by sweeps up to 1 KiB (racks256 on a 90 s budget: mpich, binomial and
  // relay bcast within kNativeTie, relay's one extra hop small beside a 256-rank tree). Relay
  // parts from the binomial tree at the first size where its hop to rank 0 counts; mpich and
  // binomial only past MPICH's switch: two sizes, not the first alone.
  LmoParams p = LmoParams::uniform(8, 1e-7, 1e-10, 1e-9);
  const std::vector<int> roots = {0, 7};
  std::vector<double> grid;  // the sweeps' sizes 2^(k/2) above 1 KiB
  for (int k = 21; k <= 40; ++k) grid.push_back(std::round(std::pow(2.0, k / 2.0)));
  NativeFit f;
  f.best = NativeKind::kMpich;
  f.fit.fill(1.0);
  for (NativeKind k : {NativeKind::kMpich, NativeKind::kBinomial, NativeKind::kRelay}) {
    f.fit[static_cast<int>(k)] = 0.05;
  }
  const Telling t = telling_sizes(Op::kBcast, p, identity(8), f, roots, grid);
  ASSERT_EQ(t.sizes.size(), 2u);
  EXPECT_LT(t.sizes[0], 12288);  // relay parts below MPICH's switch
  EXPECT_EQ(t.sizes[1], 16384);  // mpich and binomial part past it
  const auto apart = [&](NativeKind a, NativeKind b, double m) {
    for (int root : roots) {
      const double x = predict_native(a, Op::kBcast, p, identity(8), root, m);
      const double y = predict_native(b, Op::kBcast, p, identity(8), root, m);
      if (std::max(x, y) > kNativeApart * std::min(x, y)) return true;
    }
    return false;
  };
  EXPECT_TRUE(apart(NativeKind::kRelay, NativeKind::kBinomial, t.sizes[0]));
  EXPECT_FALSE(apart(NativeKind::kMpich, NativeKind::kBinomial, t.sizes[0]));
  // Measured at both, each truth is identified among the three.
  for (NativeKind truth : {NativeKind::kMpich, NativeKind::kBinomial, NativeKind::kRelay}) {
    std::vector<NativeRow> rows;
    for (int root : roots) {
      for (double m = 1; m <= 1024; m *= 2) {
        rows.push_back({root, m, predict_native(truth, Op::kBcast, p, identity(8), root, m)});
      }
      for (double m : t.sizes) {
        rows.push_back({root, m, predict_native(truth, Op::kBcast, p, identity(8), root, m)});
      }
    }
    EXPECT_EQ(identify_native(Op::kBcast, p, identity(8), rows).best, truth)
        << native_kind_name(truth);
  }
}

TEST(PlatformModel, DecisionsPredictNativeWithTheIdentifiedModel) {
  PlatformModel pm = eight();
  pm.params.inv_beta[7 * 8 + 0] = {5e-8, 0};
  const auto cands = algorithms_of(Op::kBcast);
  for (NativeKind k : kNativeKinds) {
    pm.native[static_cast<int>(Op::kBcast)] = k;
    for (const Choice& c : decide(pm, pm.params, Op::kBcast, cands, identity(8), 7)) {
      if (c.predicted.empty()) continue;
      EXPECT_DOUBLE_EQ(c.predicted[0],
                       predict_native(k, Op::kBcast, pm.params, identity(8), 7, c.at))
          << native_kind_name(k) << " at " << c.at;
    }
  }
}

namespace {

std::string table_with_model(const std::string& model, int schema = 3) {
  return "colltune_model: " + std::to_string(schema) +
         "\nplatform: {mpi_library: x, hosts: [{name: a, topology: t}]}\nmodel:\n" + model;
}

std::string model_error(const std::string& model, int schema = 3) {
  try {
    YamlReader y("m.yaml");
    parse_model_table("m.yaml", y.load_string(table_with_model(model, schema)));
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

const std::string kTwoIdentities =
    "  identities: [a, b]\n  C: [[1e-6, 0], [1e-6, 0]]\n  t: [[0, 0], [0, 0]]\n"
    "  inv_beta: [[[0, 0], [1e-9, 0]], [[1e-9, 0], [0, 0]]]\n"
    "  thresholds: {S: [.inf, 0], M1: [.inf, 0], M2: [.inf, 0], kappa1: [0, 0], kappa2: [0, 0]}\n";

}  // namespace

TEST(PlatformModel, RoundTripsThroughTheTable) {
  PlatformModel pm = eight();
  pm.params.C[2] = {7.5e-6, 1e-7};
  pm.params.inv_beta[3 * 8 + 4] = {2.5e-9, 1e-11};
  pm.S = {65536, 16384};
  pm.params.S = 65536;
  pm.error[0]["linear"] = Curve{{8, 64}, {0.1, 0.2}};
  pm.native[static_cast<int>(Op::kBcast)] = NativeKind::kRelay;
  pm.params.port_in.assign(8, {});
  pm.params.port_in[5] = {3e-9, 1e-10};
  pm.correction_other_root[static_cast<int>(Op::kGather)]["native"] = Curve{{16}, {0.7}};
  pm.correction_roots = {0, 7};
  ModelTable t;
  t.platform.mpi_library = "x";
  t.platform.hosts.push_back({"a", "t"});
  t.platform_model = pm;
  const std::string text = emit_model_table(t);
  EXPECT_NE(text.find("colltune_model: 3"), std::string::npos);
  YamlReader y("t.yaml");
  const ModelTable back = parse_model_table("t.yaml", y.load_string(text));
  ASSERT_TRUE(back.platform_model);
  const PlatformModel& q = *back.platform_model;
  EXPECT_EQ(q.identities, pm.identities);
  EXPECT_DOUBLE_EQ(q.params.C[2].value, 7.5e-6);
  EXPECT_DOUBLE_EQ(q.params.C[2].ci, 1e-7);
  EXPECT_DOUBLE_EQ(q.params.ib(3, 4), 2.5e-9);
  EXPECT_DOUBLE_EQ(q.params.S, 65536);
  EXPECT_TRUE(std::isinf(q.params.M2));
  EXPECT_DOUBLE_EQ(q.error[0].at("linear").at(64), 0.2);
  EXPECT_EQ(q.native, pm.native);
  ASSERT_EQ(q.params.port_in.size(), 8u);
  EXPECT_DOUBLE_EQ(q.params.u_in(5), 3e-9);
  EXPECT_TRUE(q.params.port.empty());
  EXPECT_DOUBLE_EQ(q.correction_other_root[static_cast<int>(Op::kGather)].at("native").at(16), 0.7);
  EXPECT_TRUE(q.correction_other_root[static_cast<int>(Op::kBcast)].empty());
  EXPECT_EQ(q.correction_roots, (std::array<int, 2>{0, 7}));
}

// Calibration sweeps the built trees on its parameters before writing them: the library, which
// reads them back, builds the same trees only if every value survives the table bit for bit.
TEST(PlatformModel, ParametersSurviveTheTableBitForBit) {
  PlatformModel pm = eight();
  double v = 1.0 / 3;
  for (int i = 0; i < 8; ++i) {
    v = std::fmod(v * 7.123456789 + 0.1, 1.0);
    pm.params.C[i] = {v * 1e-5 + 1e-7 / 3, 0};
    pm.params.t[i] = {v * 1e-9 / 7, 0};
    pm.params.inv_beta[i * 8 + (i + 1) % 8] = {v * 3e-9 + 1e-13 / 9, 0};
  }
  pm.params.port.assign(8, {2e-9 / 3, 0});
  pm.S = {65536.0 / 3, 0};
  pm.params.S = pm.S.value;
  const PlatformModel back = through_table(pm);
  const LmoParams& q = back.params;
  ASSERT_EQ(q.C.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(q.C[i].value, pm.params.C[i].value) << i;
    EXPECT_EQ(q.t[i].value, pm.params.t[i].value) << i;
    EXPECT_EQ(q.ib(i, (i + 1) % 8), pm.params.ib(i, (i + 1) % 8)) << i;
    EXPECT_EQ(q.u(i), pm.params.u(i)) << i;
  }
  EXPECT_EQ(q.S, pm.params.S);
}

// Ranks agree on a model by its fingerprint (runtime agreement): whatever decides must change
// it, links included, and the same model read back from its table must give the same bytes.
TEST(PlatformModel, TheFingerprintSeesEveryLinkAndEveryCorrection) {
  PlatformModel pm = eight();
  pm.correction[static_cast<int>(Op::kGather)]["linear"] = Curve{{16, 4096}, {1.8, 1.2}};
  const std::string base = fingerprint(pm);
  PlatformModel link = pm;
  link.params.inv_beta[5 * 8 + 6].value *= 1 + 1e-15;
  EXPECT_NE(fingerprint(link), base);
  PlatformModel ci = pm;
  ci.params.inv_beta[7 * 8 + 0].ci = 1e-12;
  EXPECT_NE(fingerprint(ci), base);
  PlatformModel corr = pm;
  corr.correction[static_cast<int>(Op::kGather)]["linear"].y[1] = 1.25;
  EXPECT_NE(fingerprint(corr), base);
  PlatformModel roots = pm;
  roots.correction_roots = {0, 5};
  EXPECT_NE(fingerprint(roots), base);
  PlatformModel third = pm;
  third.correction_unlike_root[static_cast<int>(Op::kGather)]["linear"] = Curve{{16}, {1.1}};
  third.unlike_roots = {0, 7, 5};
  EXPECT_NE(fingerprint(third), base);
  EXPECT_EQ(fingerprint(through_table(pm)), base);
  // The links are in it once, as bytes: not as YAML too.
  EXPECT_EQ(YAML::Load(fingerprint(pm).substr(0, base.size() - 64 * 2 * sizeof(double)))["inv_beta"]
                .size(),
            0u);
}

TEST(PlatformModel, AThirdRootNamesThreeKnownIdentities) {
  const std::string curves = "curves: {gather: {linear: [[16, 1.1]]}}";
  EXPECT_NE(
      model_error(
          kTwoIdentities + "  correction_unlike_root: {roots: [a, b, zz], " + curves + "}\n", 3)
          .find("model.correction_unlike_root.roots[2]: 'zz' is not one of model.identities"),
      std::string::npos);
  EXPECT_NE(
      model_error(kTwoIdentities + "  correction_unlike_root: {roots: [a, b], " + curves + "}\n", 3)
          .find("model.correction_unlike_root.roots: must name three identities"),
      std::string::npos);
  EXPECT_NE(model_error(kTwoIdentities + "  correction_unlike_root: {root: [a, b, b]}\n", 3)
                .find("model.correction_unlike_root"),
            std::string::npos);
}

TEST(PlatformModel, SchemaTwoTablesKeepTheirMeaning) {
  // Schema 2's `mpich` gather was a binomial tree taking its children in any order: today's
  // `binomial`; `ompi` did not exist. Schema 3 reads both as written.
  auto native_of = [](int schema, const std::string& kind) {
    YamlReader y("m.yaml");
    const ModelTable t = parse_model_table(
        "m.yaml",
        y.load_string(table_with_model(
            kTwoIdentities + "  native: {bcast: mpich, gather: " + kind + "}\n", schema)));
    return std::pair{t.platform_model->native[static_cast<int>(Op::kBcast)],
                     t.platform_model->native[static_cast<int>(Op::kGather)]};
  };
  EXPECT_EQ(native_of(2, "mpich"), std::pair(NativeKind::kMpich, NativeKind::kBinomial));
  EXPECT_EQ(native_of(3, "mpich"), std::pair(NativeKind::kMpich, NativeKind::kMpich));
  EXPECT_EQ(native_of(3, "ompi"), std::pair(NativeKind::kMpich, NativeKind::kOmpi));
  EXPECT_NE(model_error(kTwoIdentities + "  native: {gather: ompi}\n", 2)
                .find("model.native.gather: unknown model of native"),
            std::string::npos);
}

// Found by Fuzz.CalibratedModelTable: values that made decide() predict zero or negative times
// (an algorithm that looks free wins every size) were accepted. Calibration never writes them.
TEST(PlatformModel, RefusesValuesThatPredictNoTime) {
  const std::string ids = "  identities: [a, b]\n";
  const std::string c = "  C: [[1e-6, 0], [1e-6, 0]]\n", t = "  t: [[1e-9, 0], [1e-9, 0]]\n";
  const std::string links = "  inv_beta: [[[0, 0], [1e-9, 0]], [[1e-9, 0], [0, 0]]]\n";
  auto th = [](const std::string& kappa1) {
    return "  thresholds: {S: [.inf, 0], M1: [.inf, 0], M2: [.inf, 0], kappa1: [" + kappa1 +
           ", 0], kappa2: [0, 0]}\n";
  };
  const std::string ok = ids + c + t + links + th("0");
  auto refused = [](const std::string& model, const std::string& field) {
    const std::string e = model_error(model);
    EXPECT_NE(e.find(field), std::string::npos) << "expected " << field << ", got " << e;
  };
  // A process's fixed delay is positive (two processes of `a` exchange nothing in 2 C).
  refused(ids + "  C: [[-1e-6, 0], [1e-6, 0]]\n" + t + links + th("0"),
          "model.C[0][0]: must be positive");
  refused(ids + "  C: [[1e-6, 0], [0, 0]]\n" + t + links + th("0"),
          "model.C[1][0]: must be positive");
  // Per-byte costs are never negative (calibration clamps t and kappa at 0).
  refused(ids + c + "  t: [[1e-9, 0], [-1e-9, 0]]\n" + links + th("0"),
          "model.t[1][0]: out of range");
  refused(ids + c + t + links + th("-1e-9"), "model.thresholds.kappa1[0]: out of range");
  // A correction (measured / predicted) of 0, or one underflowing to 0, makes an algorithm free.
  refused(ok + "  correction: {bcast: {linear: [[1024, 0]]}}\n",
          "model.correction.bcast.linear[0][1]: out of range");
  refused(ok + "  correction_other_root: {gather: {native: [[16, 4.9e-324]]}}\n",
          "model.correction_other_root.gather.native[0][1]: out of range");
  refused(ok + "  correction_roots: [a, c]\n",
          "model.correction_roots[1]: 'c' is not one of model.identities");
  refused(ok + "  correction_roots: [a]\n", "model.correction_roots: must name two identities");
  // Still accepted: what real tables hold (1/beta below 0, hetcluster8; a zero held-out error).
  EXPECT_EQ(
      model_error(ids + c + t + "  inv_beta: [[[-1e-9, 0], [-1e-9, 0]], [[-1e-9, 0], [0, 0]]]\n" +
                  th("0") + "  correction: {bcast: {linear: [[1024, 1e-6]]}}\n" +
                  "  error: {bcast: {linear: [[1024, 0]]}}\n"),
      "accepted");
}

TEST(PlatformModel, RefusesCorruptModelsNamingTheField) {
  const std::string ok_head =
      "  identities: [a, b]\n  C: [[1e-6, 0], [1e-6, 0]]\n"
      "  t: [[0, 0], [0, 0]]\n";
  const std::string links = "  inv_beta: [[[0, 0], [1e-9, 0]], [[1e-9, 0], [0, 0]]]\n";
  const std::string th =
      "  thresholds: {S: [.inf, 0], M1: [.inf, 0], M2: [.inf, 0], kappa1: [0, 0], kappa2: [0, "
      "0]}\n";
  EXPECT_EQ(model_error(ok_head + links + th), "accepted");
  EXPECT_NE(model_error(ok_head + "  inv_beta: [[[0, 0]], [[0, 0]]]\n" + th)
                .find("model.inv_beta[0]: must have one entry per identity"),
            std::string::npos);
  EXPECT_NE(
      model_error("  identities: [a, a]\n" + ok_head.substr(ok_head.find("  C:")) + links + th)
          .find("model.identities: 'a' listed twice"),
      std::string::npos);
  EXPECT_NE(model_error(ok_head + links).find("model.thresholds: missing"), std::string::npos);
  EXPECT_NE(model_error(ok_head + links + th + "  correction: {bcast: {ring: []}}\n")
                .find("unknown algorithm (valid: " + algorithm_choices(Op::kBcast) + ")"),
            std::string::npos);
  EXPECT_NE(model_error(ok_head + links +
                        "  thresholds: {S: [.inf, 0], M1: [9, 0], M2: [8, 0], kappa1: [0, 0], "
                        "kappa2: [0, 0]}\n")
                .find("model.thresholds.M1: must not exceed M2"),
            std::string::npos);
  EXPECT_NE(model_error(ok_head + links + th + "  native: {bcast: smp}\n")
                .find("model.native.bcast: unknown model of native (valid: mpich, binomial, "
                      "linear, relay, ompi)"),
            std::string::npos);
  EXPECT_NE(model_error(ok_head + links + th + "  margin: -1\n").find("model.margin: out of range"),
            std::string::npos);
  EXPECT_NE(model_error(
                "  identities: [a]\n  C: [[abc, 0]]\n  t: [[0, 0]]\n  inv_beta: [[[0, 0]]]\n" + th)
                .find("model.C[0][0]: expected a number"),
            std::string::npos);
}

// Whether segments wait for their receive travels in the table; a table without it (calibrated
// before it was measured) predicts every message eager, as it was.
TEST(PlatformModel, KeepsWhichSegmentsWaitForTheirReceive) {
  for (const double eager : {0.0, 4096.0, kNever}) {
    PlatformModel pm = eight();
    pm.params.eager = eager;
    ModelTable t;
    t.platform.mpi_library = "x";
    t.platform.hosts.push_back({"a", "t"});
    t.platform_model = pm;
    const std::string text = emit_model_table(t);
    EXPECT_EQ(text.find("eager_bytes") != std::string::npos, eager == 0 || eager == 4096);
    YamlReader y("t.yaml");
    const ModelTable back = parse_model_table("t.yaml", y.load_string(text));
    ASSERT_TRUE(back.platform_model);
    EXPECT_EQ(back.platform_model->params.eager, eager);
  }
  EXPECT_NE(
      model_error(kTwoIdentities + "  eager_bytes: -1\n").find("model.eager_bytes: out of range"),
      std::string::npos);
}

// A table calibrated before an algorithm was dropped (scatter model_binomial, 2026-11-28) keeps
// loading: the retired name's curves are skipped, the others kept; a name never held is refused.
TEST(PlatformModel, SkipsTheCurvesOfARetiredAlgorithm) {
  const std::string curves =
      "  correction: {scatter: {model_binomial: [[1024, 1.5]], linear: [[1024, 1.25]]}}\n"
      "  error: {scatter: {model_binomial: [[1024, 0.1]]}}\n";
  YamlReader y("m.yaml");
  const ModelTable t =
      parse_model_table("m.yaml", y.load_string(table_with_model(kTwoIdentities + curves, 3)));
  ASSERT_TRUE(t.platform_model);
  const auto& scatter = t.platform_model->correction[static_cast<int>(Op::kScatter)];
  EXPECT_EQ(scatter.size(), 1u);
  ASSERT_TRUE(scatter.count("linear"));
  EXPECT_DOUBLE_EQ(scatter.at("linear").y[0], 1.25);
  EXPECT_TRUE(t.platform_model->error[static_cast<int>(Op::kScatter)].empty());
  EXPECT_NE(model_error(kTwoIdentities + "  correction: {scatter: {model_binomal: [[1024, 1]]}}\n")
                .find("model.correction.scatter.model_binomal: unknown algorithm (valid: " +
                      algorithm_choices(Op::kScatter) + ")"),
            std::string::npos);
  // Retired for scatter only: gather never had it.
  EXPECT_NE(model_error(kTwoIdentities + "  correction: {gather: {model_binomial: [[1024, 1]]}}\n")
                .find("unknown algorithm"),
            std::string::npos);
}

TEST(PlatformModel, SmoothedCorrectionsDropALoneOutlierAndKeepSteps) {
  // A spike at one size (150x, a load burst on a busy node) and a real step at 64 KiB.
  Curve c{{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144},
          {150.0, 1.0, 1.1, 0.9, 1.0, 1.05, 1.0, 1.0, 2.0, 2.0}};
  const Curve s = c.smoothed();
  EXPECT_LT(s.y[0], 1.5);  // the end spike goes
  EXPECT_DOUBLE_EQ(s.y[2], 1.0);
  EXPECT_DOUBLE_EQ(s.y[8], 2.0);  // the step stays where it was
  EXPECT_DOUBLE_EQ(s.y[7], 1.0);
  EXPECT_DOUBLE_EQ(s.y[9], 2.0);
  Curve mid{{1, 2, 4, 8, 16}, {1.0, 1.0, 40.0, 1.0, 1.0}};
  EXPECT_DOUBLE_EQ(mid.smoothed().y[2], 1.0);
}

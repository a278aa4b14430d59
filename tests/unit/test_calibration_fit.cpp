// Calibration's fitting helpers (no MPI): where the sweeps step.
#include <gtest/gtest.h>

#include <cmath>
#include <span>

#include "algorithms/registry.hpp"
#include "calibration/fit.hpp"
#include "table/model_table.hpp"

using colltune::calibrate::by_identity;
using colltune::calibrate::change_between;
using colltune::calibrate::sort_by_size;
using colltune::calibrate::steps_between;
using colltune::calibrate::Sweep;

namespace {

// n sweeps over the same sizes, times t(m) (+ per-sweep factor), relative half-width ci.
std::vector<Sweep> sweeps(int n, const std::vector<double>& m, double (*t)(double), double ci) {
  std::vector<Sweep> sw;
  for (int k = 0; k < n; ++k) {
    Sweep s{
        colltune::Op::kBcast, &colltune::native_algorithm(colltune::Op::kBcast), 0, {}, {}, {}, {}};
    for (double x : m) {
      s.m.push_back(x);
      s.time.push_back(t(x) * (1 + 0.01 * k));
      s.ci.push_back(ci * t(x));
      s.held_out.push_back(false);
    }
    sw.push_back(s);
  }
  return sw;
}

double affine(double m) { return 1e-6 + m * 2e-10; }
// Eager to rendezvous at 10 KB: 2.5x the time above it.
double switched(double m) { return affine(m) * (m > 10000 ? 2.5 : 1); }

}  // namespace

TEST(CalibrationFit, AStepInEverySweepIsFoundAndBisectedTowards) {
  const std::vector<double> m = {4096, 8192, 16384, 32768, 12288};
  const auto sw = sweeps(6, m, switched, 0.02);
  EXPECT_FALSE(steps_between(sw, 0, 1));  // affine growth is no step
  EXPECT_TRUE(steps_between(sw, 1, 2));   // 8192 -> 16384 crosses 10 KB
  EXPECT_FALSE(steps_between(sw, 2, 3));
  // 12288 (row 4) is past the switch: the left half [8192, 12288] holds the step.
  EXPECT_GT(change_between(sw, 1, 4), change_between(sw, 4, 2));
}

TEST(CalibrationFit, NoiseAndDecreasesAreToldApart) {
  const std::vector<double> m = {8192, 16384};
  // A 1.5x jump (2.43x over a doubling) is a step for rows known within 2%, not within 20%.
  const auto jump = [](double x) { return affine(x) * (x > 10000 ? 1.5 : 1); };
  EXPECT_TRUE(steps_between(sweeps(4, m, jump, 0.02), 0, 1));
  EXPECT_FALSE(steps_between(sweeps(4, m, jump, 0.2), 0, 1));
  // A time that falls with the size (a faster protocol above a threshold) is one.
  const auto falls = [](double x) { return x > 10000 ? 0.5e-6 : 2e-6; };
  EXPECT_TRUE(steps_between(sweeps(4, m, falls, 0.01), 0, 1));
  // One sweep of four stepping is not most.
  auto sw = sweeps(4, m, affine, 0.01);
  sw[0].time[1] *= 3;
  EXPECT_FALSE(steps_between(sw, 0, 1));
  sw[1].time[1] *= 3;
  EXPECT_TRUE(steps_between(sw, 0, 1));  // half of them is
}

TEST(CalibrationFit, SortBySizeKeepsRowsTogether) {
  auto sw = sweeps(1, {1, 4, 2}, affine, 0.01);
  sw[0].held_out = {false, true, false};
  sort_by_size(&sw[0]);
  EXPECT_EQ(sw[0].m, (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(sw[0].held_out, (std::vector<bool>{false, false, true}));
  EXPECT_DOUBLE_EQ(sw[0].time[2], affine(4));
}

namespace {

// Gather sweeps at root 0 (linear and binomial, training rows 2^k B), the linear one measured
// as p predicts it without escalations up to `at` and above it as exp((1 - a) ln without + a ln
// with): a = 0 the plain model, a = 1 LMO's serialized large-message gather.
std::vector<Sweep> gather_sweeps(const colltune::model::LmoParams& p, std::span<const int> members,
                                 double at, double a) {
  using namespace colltune;
  model::LmoParams with = p;
  with.M1 = with.M2 = at;
  std::vector<Sweep> sw;
  for (const char* name : {"linear", "binomial"}) {
    const Algorithm* alg = find_algorithm(Op::kGather, name);
    Sweep s{Op::kGather, alg, 0, {}, {}, {}, {}};
    for (int k = 0; k <= 20; ++k) {
      const double m = std::ldexp(1.0, k);
      const double plain = model::predict(Op::kGather, *alg->shape, p, members, 0, m);
      const double esc = model::predict(Op::kGather, *alg->shape, with, members, 0, m);
      const double t = m > at && alg->name == "linear"
                           ? std::exp((1 - a) * std::log(plain) + a * std::log(esc))
                           : plain;
      s.m.push_back(m), s.time.push_back(t), s.ci.push_back(1e-3 * t);
      s.held_out.push_back(false);
    }
    sw.push_back(std::move(s));
  }
  return sw;
}

}  // namespace

// A break in the linear gather's measured / predicted is taken as LMO's escalations only where
// they fit the sweeps clearly better (kEscalationGain); a break they fit barely better is a
// root whose own link binds its gather either way (racks64 seed 31: 0.7% better, then linear
// predicted 6.6x its time at a fast root, docs/model-trees.md).
TEST(CalibrationFit, AGatherBreakIsTakenAsEscalationsOnlyWhereTheyFitClearlyBetter) {
  using namespace colltune;
  model::LmoParams p = model::LmoParams::uniform(8, 20e-6, 1e-10, 5e-9);
  for (int i = 1; i < 8; ++i) p.inv_beta[i].value = p.inv_beta[i * 8].value = i * 2e-9;
  const std::vector<int> members = {0, 1, 2, 3, 4, 5, 6, 7};
  // Above the break, measured 71% of the way (in log) from the plain model to the serialized
  // one: the escalations fit it better than the plain model with its kappa1, by less than
  // kEscalationGain (they are taken from 69% with no gain asked, from 73% with it).
  const calibrate::GatherThresholds barely =
      calibrate::gather_thresholds(gather_sweeps(p, members, 4096, 0.71), p, members);
  EXPECT_EQ(barely.M1.value, model::kNever);
  EXPECT_EQ(barely.M2.value, model::kNever);
  EXPECT_LT(barely.first.value, model::kNever);  // the break itself is found and reported
  // Measured as LMO's serialized gather: taken.
  const calibrate::GatherThresholds clear =
      calibrate::gather_thresholds(gather_sweeps(p, members, 4096, 1.0), p, members);
  EXPECT_LT(clear.M1.value, model::kNever);
  EXPECT_LT(clear.M2.value, model::kNever);
}

// Escalations must fit better than kappa1 below the break alone: where the model misses only
// messages below the break and the root's own incoming link binds above it (serialized or
// shared, the same time), they fit no better (seed 31's hetero16 star, its slowest host at root
// 0: M1 = M2 = 128 B were taken for what kappa1 below 128 B explained, and linear gather was
// then serialized at every root, 1.37x its time at a 32 MB/s root; docs/model-trees.md).
TEST(CalibrationFit, EscalationsMustFitBetterThanKappaBelowTheBreakAlone) {
  using namespace colltune;
  model::LmoParams p = model::LmoParams::uniform(8, 1e-9, 0, 5e-9);
  p.port_in.assign(8, {});
  p.port_in[0].value = 80e-9;  // root 0's own incoming link, 16x slower than its peers'
  const std::vector<int> members = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<Sweep> sw = gather_sweeps(p, members, model::kNever, 0);
  sw.pop_back();  // the linear sweep alone (kappa is every gather's: binomial would blur it)
  for (std::size_t i = 0; i < sw[0].m.size(); ++i) {  // 3 us per byte more up to 128 B
    if (sw[0].m[i] <= 128) sw[0].time[i] += 3e-6 * sw[0].m[i], sw[0].ci[i] = 1e-3 * sw[0].time[i];
  }
  const calibrate::GatherThresholds g = calibrate::gather_thresholds(sw, p, members);
  EXPECT_LT(g.first.value, 256);  // the break is found
  EXPECT_GT(g.first.value, 128);
  EXPECT_EQ(g.M1.value, model::kNever);
  EXPECT_EQ(g.M2.value, model::kNever);
}

// Native's sweeps of a table as calibration holds them (label "name" or "name (root r)").
std::vector<Sweep> sweeps_of(const colltune::ModelTable& t) {
  using namespace colltune;
  std::vector<Sweep> out;
  for (const Op op : {Op::kBcast, Op::kScatter, Op::kGather}) {
    const YAML::Node ops = t.calibration["sweeps"][std::string(op_name(op))];
    for (auto it = ops.begin(); it != ops.end(); ++it) {
      const std::string label = it->first.as<std::string>();
      const std::size_t at = label.find(" (root ");
      Sweep s{op,
              find_algorithm(op, label.substr(0, at)),
              at == std::string::npos ? 0 : std::stoi(label.substr(at + 7)),
              {},
              {},
              {},
              {}};
      if (!s.alg) continue;
      for (const YAML::Node& row : it->second) {
        s.m.push_back(row[0].as<double>());
        s.time.push_back(row[1].as<double>());
        s.ci.push_back(row[2].as<double>());
        s.held_out.push_back(row[3].as<int>() != 0);
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

// Two calibrations of the hetcluster bed (real MPICH 4.0.2 over shaped TCP, every message
// eager), whose native sweeps the plain fit misread: gather as ompi (the first) and as linear,
// scatter as linear (the second). MPICH's own code says what native is: a binomial gather and
// scatter (MPIR_Gather_intra_binomial, MPIR_Scatter_intra_binomial), and its bcast a binomial
// tree below 12288 bytes, scatter + allgather above. Its sweeps track colltune's own binomial
// algorithm within a few percent at every size and root, and the model is off for both alike
// (1.5x on the bed's small messages); judged after that shared error, each kind is read right.
TEST(CalibrationFit, NativeIsReadAfterWhatTheModelMissesForEveryTreeAlike) {
  using namespace colltune;
  for (const char* file :
       {"/tests/data/hetcluster8-table.yaml", "/tests/data/hetcluster8-swept-table.yaml"}) {
    const ModelTable t = load_model_table(std::string(COLLTUNE_SOURCE_DIR) + file);
    ASSERT_TRUE(t.platform_model) << file;
    model::PlatformModel pm = *t.platform_model;
    const std::vector<int> members = t.calibrated_ranks;
    ASSERT_EQ(members.size(), 8u) << file;
    const std::vector<Sweep> sw = sweeps_of(t);
    ASSERT_FALSE(sw.empty()) << file;
    calibrate::identify_native(sw, members, &pm);
    EXPECT_EQ(pm.native[static_cast<int>(Op::kBcast)], model::NativeKind::kMpich) << file;
    EXPECT_EQ(pm.native[static_cast<int>(Op::kGather)], model::NativeKind::kBinomial) << file;
    const model::NativeKind sc = pm.native[static_cast<int>(Op::kScatter)];
    EXPECT_EQ(model::native_plan(sc, Op::kScatter, 8, 3, 24000).shape, &kShape_binomial) << file;
    EXPECT_EQ(model::native_plan(sc, Op::kScatter, 8, 3, 24000).tree_root, 3) << file;
  }
}

// A held-out row's own uncertainty counts up to its sweep's typical one; what the model missed
// counts whole. On the hetcluster bed (8 processes on 2 cores) one series of repetitions at
// 512 B came out +-70% where the sweep's others were +-5-20%, and that one row, predicted
// within 9%, held native scatter's validated error at 79% from 128 B to 2 KiB: above the 50%
// that may decide, so no algorithm was taken there.
TEST(CalibrationFit, OneNoisyHeldOutRowIsNotTheModelsError) {
  using namespace colltune;
  model::PlatformModel pm;
  pm.params = model::LmoParams::uniform(8, 2e-5, 1e-9, 5e-9);
  const std::vector<int> members = {0, 1, 2, 3, 4, 5, 6, 7};
  const Algorithm* alg = find_algorithm(Op::kScatter, "linear");
  ASSERT_NE(alg, nullptr);
  Sweep s{Op::kScatter, alg, 0, {}, {}, {}, {}};
  for (int k = 0; k <= 12; ++k) {
    const double m = std::ldexp(1.0, k);
    const double pred = model::predict_algorithm(pm, pm.params, *alg, members, 0, m);
    const double time = k == 10 ? pred / 1.3 : pred;  // 1 KiB: the model 30% slow
    s.m.push_back(m);
    s.time.push_back(time);
    s.ci.push_back((k == 8 ? 0.6 : 0.02) * time);  // 256 B: one noisy series
    s.held_out.push_back(k % 2 == 0);
  }
  const calibrate::Validation v = calibrate::validate(pm, pm.params, {s}, members, 8);
  const model::Curve& e = v.error[static_cast<int>(Op::kScatter)].at("linear");
  EXPECT_NEAR(e.at(256), 0.02, 1e-6);         // the typical +-2%, not its own +-60%
  EXPECT_NEAR(e.at(1024), 0.3 + 0.02, 1e-6);  // the model's 30% kept whole
  EXPECT_NEAR(e.at(16), 0.02, 1e-6);
}

TEST(CalibrationFit, AnIdentitysOwnLinkUnmeasuredIsItsFastestLink) {
  // Four ranks on three identities: a, b, c, c. Links (s/B): a-b 1e-9, a-c 4e-9, b-c 2e-9,
  // c-c (its two ranks) 0.5e-9.
  const int n = 4;
  colltune::model::LmoParams p = colltune::model::LmoParams::uniform(n, 1e-6, 0, 0);
  auto link = [&](int i, int j, double v) {
    p.inv_beta[static_cast<std::size_t>(i) * n + j].value = v;
    p.inv_beta[static_cast<std::size_t>(j) * n + i].value = v;
  };
  link(0, 1, 1e-9), link(0, 2, 4e-9), link(0, 3, 4e-9), link(1, 2, 2e-9), link(1, 3, 2e-9);
  link(2, 3, 0.5e-9);
  const colltune::model::LmoParams q = by_identity(p, {0, 1, 2, 2}, 3);
  EXPECT_DOUBLE_EQ(q.ib(0, 1), 1e-9);
  EXPECT_DOUBLE_EQ(q.ib(1, 2), 2e-9);
  EXPECT_DOUBLE_EQ(q.ib(2, 2), 0.5e-9);  // measured: c had two ranks
  EXPECT_DOUBLE_EQ(q.ib(0, 0), 1e-9);    // a's fastest link, to b
  EXPECT_DOUBLE_EQ(q.ib(1, 1), 1e-9);    // b's, to a
}

// Pairs slowed beside others: a rack platform in arithmetic (hosts' private links, one uplink
// per rack shared by every flow that leaves or enters it), its parallel roundtrips counted per
// round of calibration's schedule, against the pairs alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "bench/schedule.hpp"
#include "model/contention.hpp"

using namespace colltune::model;

namespace {

constexpr double kM = 65536;

struct Racks {
  int n, racks;
  double uplink;            // s/B of a rack's uplink
  std::vector<double> own;  // s/B of each host's link
  std::vector<double> fixed;
  int rack(int i) const { return i * racks / n; }
  // Per-byte time of i <-> j with `k` flows on the busier uplink (k = 1: alone).
  double rate(int i, int j, int k) const {
    double r = std::max(own[i], own[j]);
    if (rack(i) != rack(j)) r = std::max(r, k * uplink);
    return r;
  }
  double alone(int i, int j) const { return fixed[i] + fixed[j] + kM * rate(i, j, 1); }
};

Racks racks(int n, int r, double uplink, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> own(1e-9, 10e-9), fixed(5e-6, 50e-6);
  Racks p{n, r, uplink, {}, {}};
  for (int i = 0; i < n; ++i) p.own.push_back(own(rng)), p.fixed.push_back(fixed(rng));
  return p;
}

// Roundtrips as calibration's parallel rounds measure them: each round's flows through each
// uplink share it.
LmoMeasurements parallel(const Racks& p) {
  LmoMeasurements x;
  x.n = p.n;
  x.m = kM;
  x.empty_rt.assign(p.n * p.n, {});
  x.m_rt.assign(p.n * p.n, {});
  for (const auto& round : colltune::bench::pair_rounds(p.n)) {
    std::vector<int> flows(p.racks, 0);
    for (auto [i, j] : round) {
      if (p.rack(i) != p.rack(j)) ++flows[p.rack(i)], ++flows[p.rack(j)];
    }
    for (auto [i, j] : round) {
      const int k = p.rack(i) != p.rack(j) ? std::max(flows[p.rack(i)], flows[p.rack(j)]) : 1;
      x.empty(i, j) = x.empty(j, i) = {p.fixed[i] + p.fixed[j], 0};
      x.full(i, j) = x.full(j, i) = {p.fixed[i] + p.fixed[j] + kM * p.rate(i, j, k), 0};
    }
  }
  return x;
}

std::vector<AloneRoundtrip> alone(const Racks& p, const std::vector<std::pair<int, int>>& pairs) {
  std::vector<AloneRoundtrip> out;
  for (auto [i, j] : pairs) out.push_back({i, j, {p.alone(i, j), 0}});
  return out;
}

// The largest |measured / alone - 1| of any pair's per-byte time.
double worst_error(const LmoMeasurements& x, const Racks& p) {
  double worst = 0;
  for (int i = 0; i < p.n; ++i) {
    for (int j = i + 1; j < p.n; ++j) {
      const double measured = x.full(i, j).value - x.empty(i, j).value;
      const double truth = p.alone(i, j) - p.fixed[i] - p.fixed[j];
      worst = std::max(worst, std::fabs(measured / truth - 1));
    }
  }
  return worst;
}

}  // namespace

TEST(Contention, PairsSlowedBesideOthersAreMeasuredAgainAlone) {
  // 32 hosts in 4 racks, an uplink as fast as the fastest host: alone it never binds.
  const Racks p = racks(32, 4, 1e-9, 3);
  LmoMeasurements x = parallel(p);
  ASSERT_GT(worst_error(x, p), 1.0);  // the rounds' sharing more than doubles some pairs
  const auto suspects = contended_pairs(x);
  ASSERT_FALSE(suspects.empty());
  for (auto [i, j] : suspects) EXPECT_NE(p.rack(i), p.rack(j)) << i << " " << j;
  settle_contended(&x, suspects, alone(p, suspects));
  EXPECT_LT(worst_error(x, p), kContended - 1 + 1e-9);  // what is left is below the threshold
  EXPECT_EQ(x.contention.alone, static_cast<int>(suspects.size()));
  EXPECT_EQ(x.contention.estimated, 0);
  EXPECT_LT(x.contention.alone_over_parallel, kConfirmed);
  EXPECT_NEAR(x.contention.alone_over_star, 1.0, 1e-9);
}

TEST(Contention, SuspectsNotMeasuredTakeTheStarScaledByTheSample) {
  const Racks p = racks(64, 4, 1e-9, 5);
  LmoMeasurements x = parallel(p);
  const auto suspects = contended_pairs(x);
  ASSERT_GT(suspects.size(), 40u);
  // A budget that measures a fifth of them: the order's prefix is the sample.
  const std::vector<std::pair<int, int>> sample(suspects.begin(),
                                                suspects.begin() + suspects.size() / 5);
  settle_contended(&x, suspects, alone(p, sample));
  EXPECT_EQ(x.contention.alone + x.contention.estimated, static_cast<int>(suspects.size()));
  const LmoMeasurements before = parallel(p);
  std::vector<double> was, now;
  for (auto [i, j] : suspects) {
    const double truth = p.alone(i, j) - p.fixed[i] - p.fixed[j];
    was.push_back((before.full(i, j).value - before.empty(i, j).value) / truth);
    now.push_back((x.full(i, j).value - x.empty(i, j).value) / truth);
  }
  std::sort(was.begin(), was.end());
  std::sort(now.begin(), now.end());
  EXPECT_GT(was[was.size() / 2], 1.5);  // measured beside others: the median pair 1.5x slow
  EXPECT_NEAR(now[now.size() / 2], 1.0, 0.02);
  EXPECT_NEAR(now[now.size() * 9 / 10], 1.0, 0.02);
  EXPECT_LT(worst_error(x, p), kContended - 1 + 1e-9);
}

TEST(Contention, ASlowUplinkAloneIsLearntFromTheSample) {
  // The uplink binds even alone (2.5 ns/B, slower than some hosts): pairs across racks are
  // slower than a star would make them, which the sample measures.
  const Racks p = racks(48, 3, 2.5e-9, 7);
  LmoMeasurements x = parallel(p);
  const auto suspects = contended_pairs(x);
  const std::vector<std::pair<int, int>> sample(suspects.begin(),
                                                suspects.begin() + suspects.size() / 2);
  settle_contended(&x, suspects, alone(p, sample));
  EXPECT_GE(x.contention.alone_over_star, 1.0);
  // Every pair measured alone is exact; the estimated ones are no worse than before.
  for (auto [i, j] : sample) {
    EXPECT_NEAR(x.full(i, j).value, p.alone(i, j), 1e-12);
    EXPECT_EQ(x.full(j, i).value, x.full(i, j).value);
  }
  const LmoMeasurements before = parallel(p);
  for (auto [i, j] : suspects) {
    const double truth = p.alone(i, j);
    EXPECT_LE(std::fabs(x.full(i, j).value - truth),
              std::fabs(before.full(i, j).value - truth) + 1e-12)
        << i << " " << j;
  }
}

TEST(Contention, PairsSlowAloneTooKeepTheirMeasurement) {
  // A platform whose links differ per pair (LMO's beta_ij) is not a star: slow pairs are
  // suspects, but alone they measure the same, so nothing is estimated or changed.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> ib(1e-9, 8e-8);
  const int n = 16;
  LmoMeasurements x;
  x.n = n;
  x.m = kM;
  x.empty_rt.assign(n * n, {});
  x.m_rt.assign(n * n, {});
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      x.empty(i, j) = x.empty(j, i) = {2e-5, 0};
      x.full(i, j) = x.full(j, i) = {2e-5 + kM * ib(rng), 0};
    }
  }
  const LmoMeasurements before = x;
  const auto suspects = contended_pairs(x);
  ASSERT_FALSE(suspects.empty());
  std::vector<AloneRoundtrip> same;
  for (std::size_t k = 0; k < suspects.size() / 3; ++k) {
    const auto [i, j] = suspects[k];
    same.push_back({i, j, x.full(i, j)});
  }
  settle_contended(&x, suspects, same);
  EXPECT_EQ(x.contention.estimated, 0);
  EXPECT_NEAR(x.contention.alone_over_parallel, 1.0, 1e-12);
  for (int k = 0; k < n * n; ++k) EXPECT_EQ(x.m_rt[k].value, before.m_rt[k].value);
}

TEST(Contention, AStarHasNoSuspectsAndTheOrderIsASample) {
  Racks p = racks(40, 1, 1e-9, 13);  // one rack: a star
  EXPECT_TRUE(contended_pairs(parallel(p)).empty());
  p.racks = 4;
  const LmoMeasurements x = parallel(p);
  const auto a = contended_pairs(x), b = contended_pairs(x);
  EXPECT_EQ(a, b);
  // The first quarter of the order spans every pair of racks that has suspects, not the
  // lowest ranks only.
  std::set<std::pair<int, int>> all, prefix;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const std::pair<int, int> racks{p.rack(a[k].first), p.rack(a[k].second)};
    all.insert(racks);
    if (k < a.size() / 4) prefix.insert(racks);
  }
  EXPECT_EQ(prefix, all);
}

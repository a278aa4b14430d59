#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "bench/schedule.hpp"
#include "bench/stats.hpp"

using namespace colltune::bench;

TEST(BenchStats, StudentQuantilesMatchTables) {
  // Two-sided 95% with 10 dof, one-sided 95% with 1 dof, 99% two-sided with 30 dof.
  EXPECT_NEAR(t_quantile(0.975, 10), 2.228138852, 1e-8);
  EXPECT_NEAR(t_quantile(0.95, 1), 6.313751515, 1e-8);
  EXPECT_NEAR(t_quantile(0.995, 30), 2.749995654, 1e-8);
  EXPECT_NEAR(t_quantile(0.975, 1e6), 1.959963985, 1e-5);  // tends to the normal quantile
}

TEST(BenchStats, IntervalOfAKnownSample) {
  const Interval r = interval({1.0, 2.0, 3.0, 4.0, 5.0}, 0.95);
  EXPECT_EQ(r.n, 5);
  EXPECT_DOUBLE_EQ(r.mean, 3.0);
  // s = sqrt(2.5); half width = t_{0.975,4} * s / sqrt(5) = 2.776445105 * 0.707106781
  EXPECT_NEAR(r.half_width, 2.776445105 * std::sqrt(2.5) / std::sqrt(5.0), 1e-8);
  EXPECT_NEAR(r.rel_error, r.half_width / 3.0, 1e-12);
  EXPECT_EQ(interval({7.0}, 0.95).half_width, 0.0);
}

TEST(BenchStats, AdaptiveStopsWhenTheRequestedErrorIsReached) {
  std::mt19937 rng(42);
  std::normal_distribution<double> noise(1.0, 0.05);  // 5% noise around 1 s
  Adaptive a;
  a.min_reps = 5;
  a.max_reps = 10000;
  a.confidence = 0.95;
  a.rel_error = 0.01;
  const Series s = run_adaptive(a, [&] { return noise(rng); });
  EXPECT_TRUE(s.converged);
  EXPECT_LE(s.stats.rel_error, 0.01);
  EXPECT_GE(s.reps, 5);
  EXPECT_LT(s.reps, 10000);
  EXPECT_NEAR(s.stats.mean, 1.0, 0.02);
  // Needs about (t * sd / (E * mean))^2 = (1.96 * 0.05 / 0.01)^2 ~ 96 samples; the stop comes
  // at the first repetition where the bound holds, so it is close to that.
  EXPECT_GT(s.reps, 50);
  EXPECT_LT(s.reps, 200);
  // A tighter bound needs more repetitions.
  std::mt19937 rng2(42);
  a.rel_error = 0.005;
  const Series t = run_adaptive(a, [&] { return noise(rng2); });
  EXPECT_GT(t.reps, s.reps);
}

TEST(BenchStats, FixedCountAndErrorsAndCap) {
  Adaptive a;
  a.min_reps = a.max_reps = 7;
  int calls = 0;
  Series s = run_adaptive(a, [&] { return ++calls * 1.0; });
  EXPECT_EQ(s.reps, 7);
  EXPECT_EQ(calls, 7);
  a.min_reps = 2;
  a.max_reps = 20;
  a.rel_error = 1e-9;  // unreachable with this noise: stops at the cap, not converged
  calls = 0;
  s = run_adaptive(a, [&] { return (++calls % 2) ? 1.0 : 2.0; });
  EXPECT_EQ(s.reps, 20);
  EXPECT_FALSE(s.converged);
  calls = 0;
  s = run_adaptive(a, [&] { return ++calls == 3 ? NAN : 1.0; });  // an error stops the series
  EXPECT_EQ(s.reps, 2);
}

TEST(BenchStats, MedianIntervalFromOrderStatistics) {
  // 1..100: median 50.5; ranks 50 -+ 1.96 * 10 / 2 = 40.2 .. 60.8 + 1 -> 40 and 61.
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Interval r = median_interval(v, 0.95);
  EXPECT_DOUBLE_EQ(r.mean, 50.5);
  EXPECT_DOUBLE_EQ(r.half_width, (61.0 - 40.0) / 2);
  // Five samples: the interval is the whole range; one sample: no width.
  EXPECT_DOUBLE_EQ(median_interval({3, 1, 100, 2, 4}, 0.95).mean, 3.0);
  EXPECT_DOUBLE_EQ(median_interval({3, 1, 100, 2, 4}, 0.95).half_width, 99.0 / 2);
  EXPECT_EQ(median_interval({7.0}, 0.95).half_width, 0.0);
}

TEST(BenchStats, AMedianSeriesIgnoresPreemptedRepetitions) {
  // 1 us calls, 0.5% noise, every 8th repetition preempted (+20 us): the mean's interval never
  // reaches 1% in 100 repetitions and its value is 3x the call; the median's converges on it.
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(1e-6, 5e-9);
  int k = 0;
  const auto sample = [&] { return noise(rng) + (++k % 8 == 0 ? 20e-6 : 0.0); };
  Adaptive a;
  a.min_reps = 10;
  a.max_reps = 100;
  a.rel_error = 0.01;
  const Series mean = run_adaptive(a, sample);
  EXPECT_FALSE(mean.converged);
  EXPECT_GT(mean.stats.mean, 2e-6);
  a.median = true;
  k = 0;
  const Series med = run_adaptive(a, sample);
  EXPECT_TRUE(med.converged);
  EXPECT_LT(med.reps, 100);
  EXPECT_NEAR(med.stats.mean, 1e-6, 1e-8);
}

TEST(BenchSchedule, EveryPairOnceNoProcessTwiceInARound) {
  for (int n = 1; n <= 33; ++n) {
    const auto rounds = pair_rounds(n);
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (auto [i, j] : round) {
        EXPECT_LT(i, j);
        EXPECT_TRUE(busy.insert(i).second) << "n=" << n;
        EXPECT_TRUE(busy.insert(j).second) << "n=" << n;
        EXPECT_TRUE(seen.insert({i, j}).second) << "n=" << n << " pair twice";
      }
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << "n=" << n;
    if (n >= 2) {
      EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 ? n : n - 1));
    }
  }
}

TEST(BenchSchedule, TripletRoundsAreDisjointAndComplete) {
  for (int n = 3; n <= 12; ++n) {
    for (bool all : {false, true}) {
      std::set<std::array<int, 3>> seen;
      for (const auto& round : triplet_rounds(n, all)) {
        std::set<int> busy;
        for (const auto& t : round) {
          for (int p : t) EXPECT_TRUE(busy.insert(p).second) << "n=" << n;
          EXPECT_LT(t[1], t[2]);
          EXPECT_TRUE(seen.insert(t).second);
        }
      }
      const std::size_t unordered = static_cast<std::size_t>(n * (n - 1) * (n - 2) / 6);
      EXPECT_EQ(seen.size(), all ? 3 * unordered : unordered) << "n=" << n;
    }
  }
}

TEST(BenchSchedule, PackedRoundsAreDisjointAndKeepEveryTriplet) {
  const std::vector<std::array<int, 3>> list = {{0, 1, 2}, {3, 4, 5}, {0, 3, 4}, {1, 2, 5},
                                                {2, 0, 1}, {5, 4, 3}, {4, 0, 2}};
  std::multiset<std::array<int, 3>> seen;
  const auto rounds = pack_rounds(6, list);
  for (const auto& round : rounds) {
    std::set<int> busy;
    for (const auto& t : round) {
      for (int p : t) EXPECT_TRUE(busy.insert(p).second);
      seen.insert(t);
    }
  }
  const std::multiset<std::array<int, 3>> want(list.begin(), list.end());
  EXPECT_EQ(seen, want);
  EXPECT_EQ(rounds[0].size(), 2u);  // {0,1,2} and {3,4,5} run at once
}

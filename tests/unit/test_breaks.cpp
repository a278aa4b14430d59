// Structural breaks on synthetic series with 0, 1 and 2 known breaks (leaps, as thresholds make
// them) under 2% noise, 50 seeds each: the number of breaks chosen and their positions (within
// one sweep step).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "model/breaks.hpp"

using namespace colltune::model;

namespace {

struct Piece {
  double from_x, intercept, slope;  // applies from from_x on
};

// x = 0, 1 KiB, ..., 100 KiB; y from the pieces, with relative Gaussian noise.
void series(const std::vector<Piece>& pieces, double noise, unsigned seed, std::vector<double>* x,
            std::vector<double>* y) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, noise);
  x->clear();
  y->clear();
  for (int i = 0; i <= 100; ++i) {
    const double xi = 1024.0 * i;
    const Piece* p = &pieces[0];
    for (const Piece& q : pieces) {
      if (xi >= q.from_x) p = &q;
    }
    const double yi = p->intercept + p->slope * xi;
    x->push_back(xi);
    y->push_back(yi * (1 + n(rng)));
  }
}

}  // namespace

TEST(Breaks, NoBreakInANoisyLine) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    std::vector<double> x, y;
    series({{0, 2e-5, 1e-9}}, 0.02, seed, &x, &y);
    const Breaks b = find_breaks(x, y);
    EXPECT_EQ(b.segments.size(), 1u) << "seed " << seed;
    EXPECT_NEAR(b.segments[0].line.slope, 1e-9, 0.1e-9);
  }
}

TEST(Breaks, OneBreakIsFoundWithinOneStep) {
  // Linear scatter's leap: above S = 50 KiB the transfers serialize (steeper, with a jump).
  for (unsigned seed = 1; seed <= 50; ++seed) {
    std::vector<double> x, y;
    series({{0, 2e-5, 1e-9}, {50 * 1024.0, 6e-5, 3e-9}}, 0.02, seed, &x, &y);
    const Breaks b = find_breaks(x, y);
    ASSERT_EQ(b.segments.size(), 2u) << "seed " << seed;
    EXPECT_NEAR(b.break_x(x)[0], 50 * 1024.0, 1024.0) << "seed " << seed;
    EXPECT_NEAR(b.segments[1].line.slope, 3e-9, 0.3e-9);
  }
}

TEST(Breaks, TwoBreaksAreFoundWithinOneStep) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    std::vector<double> x, y;
    series({{0, 2e-5, 1e-9}, {30 * 1024.0, 1e-4, 4e-9}, {70 * 1024.0, 2e-5, 1.5e-9}}, 0.02, seed,
           &x, &y);
    const Breaks b = find_breaks(x, y);
    ASSERT_EQ(b.segments.size(), 3u) << "seed " << seed;
    const auto bx = b.break_x(x);
    EXPECT_NEAR(bx[0], 30 * 1024.0, 1024.0) << "seed " << seed;
    EXPECT_NEAR(bx[1], 70 * 1024.0, 1024.0) << "seed " << seed;
  }
}

TEST(Breaks, SegmentationsMinimizeTheResidual) {
  // Exhaustive check on a short series: no one-break split beats the dynamic programme's.
  std::vector<double> x, y;
  series({{0, 1.0, 0.5}, {9 * 1024.0, 40.0, -0.2}}, 0.05, 3, &x, &y);
  x.resize(20);
  y.resize(20);
  const auto all = segmentations(x, y, {2, 3});
  ASSERT_GE(all.size(), 2u);
  double brute = INFINITY;
  for (int s = 3; s + 3 <= 20; ++s) {
    brute = std::min(brute, fit_segment(x, y, 0, s - 1).ssr + fit_segment(x, y, s, 19).ssr);
  }
  EXPECT_NEAR(all[1].ssr, brute, 1e-9 * brute);
  EXPECT_LE(all[1].ssr, all[0].ssr);
}

TEST(Breaks, RejectsTooShortSeries) {
  EXPECT_THROW(find_breaks({1, 2}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(find_breaks({1, 2, 3}, {1, 2}), std::invalid_argument);
}

// Plain BIC over-segments noisy timings now and then; LWZ (the default) does not.
TEST(Breaks, LwzIsMoreReliableThanBic) {
  int wrong_lwz = 0, wrong_bic = 0;
  for (unsigned seed = 1; seed <= 100; ++seed) {
    std::vector<double> x, y;
    series({{0, 2e-5, 1e-9}}, 0.02, seed, &x, &y);
    wrong_lwz += find_breaks(x, y).segments.size() != 1;
    wrong_bic += find_breaks(x, y, {3, 3, true, Criterion::kBic}).segments.size() != 1;
  }
  EXPECT_EQ(wrong_lwz, 0);
  EXPECT_GT(wrong_bic, 0);
}

// A series that is flat but for wiggles far below measurement precision (a simulated ratio of
// measured to predicted time) has no break; without the noise floor it had some.
TEST(Breaks, WigglesBelowTheNoiseFloorAreNoBreak) {
  std::vector<double> x, y;
  for (int k = 0; k < 40; ++k) {
    x.push_back(k);
    y.push_back(1 + 1e-5 * std::sin(k) + (k >= 20 ? 2e-5 : 0));
  }
  EXPECT_EQ(find_breaks(x, y).segments.size(), 1u);
  EXPECT_GT(find_breaks(x, y, {3, 3, true, Criterion::kLwz, 0}).segments.size(), 1u);
  for (int k = 20; k < 40; ++k) y[k] += 0.4;  // a real jump still counts
  EXPECT_EQ(find_breaks(x, y).segments.size(), 2u);
}

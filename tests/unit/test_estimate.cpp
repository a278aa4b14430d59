// LMO estimation from synthetic experiments made with known parameters: exact data gives the
// parameters back; noisy data gives them within a few percent with intervals that hold them.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "model/estimate.hpp"

using namespace colltune::model;

namespace {

LmoParams truth(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> c(5e-6, 50e-6), t(1e-10, 1e-9), ib(1e-9, 8e-8);
  LmoParams p = LmoParams::uniform(n, 0, 0, 0);
  for (int i = 0; i < n; ++i) p.C[i].value = c(rng), p.t[i].value = t(rng);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      p.inv_beta[i * n + j].value = p.inv_beta[j * n + i].value = ib(rng);
  return p;
}

// The experiments of calibration on a platform that follows the model, times * (1 + noise).
LmoMeasurements measure(const LmoParams& p, double m, int per_root, double noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> e(0, noise);
  const int n = p.size();
  LmoMeasurements x;
  x.n = n;
  x.m = m;
  x.empty_rt.assign(n * n, {});
  x.m_rt.assign(n * n, {});
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      const double t0 = p.roundtrip(i, j, 0);
      x.empty(i, j) = x.empty(j, i) = {t0 * (1 + e(rng)), 1.96 * t0 * noise};  // 95%
      const double tm = p.roundtrip(i, j, m);
      x.full(i, j) = x.full(j, i) = {tm * (1 + e(rng)), 1.96 * tm * noise};
    }
  }
  auto triplets = lmo_triplets(n, per_root);
  faster_first(x, &triplets);
  for (const auto& [i, j, k] : triplets) {
    const double ti = p.one_to_two(i, j, k, m);
    x.one_to_two.push_back({i, j, k, {ti * (1 + e(rng)), 1.96 * ti * noise}});
  }
  return x;
}

// n processes of which 0, 1 and 2 are slow hosts (t_i = (i + k) 30 ns/B), and LMO's
// experiments at m bytes on them.
std::pair<LmoParams, LmoMeasurements> slow_hosts(int n, double m, int k) {
  LmoParams p = truth(n, 5);
  for (int i = 0; i < 3; ++i) p.t[i].value = (i + k) * 3e-8;
  LmoMeasurements x = measure(p, m, 4, 0, 6);
  return {p, x};
}

}  // namespace

TEST(Estimate, TripletsDetermineEveryProcessInLinearCount) {
  for (int n : {3, 4, 8, 64}) {
    const auto t = lmo_triplets(n, 4);
    const int pairs = (n - 1) * (n - 2) / 2;
    EXPECT_EQ(t.size(), static_cast<std::size_t>(n) * std::min(4, pairs)) << n;
    std::set<std::array<int, 3>> distinct(t.begin(), t.end());
    EXPECT_EQ(distinct.size(), t.size());
    std::vector<int> roots(n, 0);
    for (const auto& [i, j, k] : t) {
      EXPECT_TRUE(i != j && j != k && i != k);
      ++roots[i];
    }
    for (int r : roots) EXPECT_GE(r, 1);
  }
}

TEST(Estimate, ExactDataGivesTheParametersBack) {
  for (int n : {3, 8, 16}) {
    const LmoParams p = truth(n, 11);
    const LmoParams q = estimate_lmo(measure(p, 65536, 3, 0, 1));
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(q.C[i].value, p.C[i].value, 1e-12 * 1e3) << n << " C" << i;
      EXPECT_NEAR(q.t[i].value, p.t[i].value, 1e-15) << n << " t" << i;
      for (int j = 0; j < n; ++j) {
        if (i != j) {
          EXPECT_NEAR(q.ib(i, j), p.ib(i, j), 1e-15) << n << " beta" << i << j;
        }
      }
    }
  }
}

TEST(Estimate, NoisyDataStaysCloseAndIntervalsHoldTheTruth) {
  const int n = 16;
  const LmoParams p = truth(n, 5);
  const LmoParams q = estimate_lmo(measure(p, 1 << 20, 8, 0.002, 9));
  int c_out = 0, beta_out = 0, beta_far = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(q.C[i].value, p.C[i].value, 0.03 * p.C[i].value) << i;
    c_out += std::abs(q.C[i].value - p.C[i].value) > q.C[i].ci;
    EXPECT_LT(q.C[i].ci, 0.01 * p.C[i].value);  // and the intervals are tight
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      beta_far += std::abs(q.ib(i, j) - p.ib(i, j)) > 0.05 * p.ib(i, j);
      beta_out += std::abs(q.ib(i, j) - p.ib(i, j)) > q.inv_beta[i * n + j].ci;
    }
  }
  EXPECT_LE(c_out, 2);  // 95% intervals: a miss or two in 16 is chance
  EXPECT_EQ(beta_far, 0);
  EXPECT_EQ(beta_out, 0);
}

TEST(Estimate, TwoProcessesSplitEvenly) {
  LmoParams p = LmoParams::uniform(2, 1e-5, 0, 1e-9);
  const LmoParams q = estimate_lmo(measure(p, 4096, 1, 0, 1));
  EXPECT_DOUBLE_EQ(q.C[0].value, 1e-5);
  EXPECT_DOUBLE_EQ(q.t[1].value, 0);
  EXPECT_NEAR(q.ib(0, 1), 1e-9, 1e-18);
}

// M small against the noise of the fixed delays (seen on the hetcluster bed at M = 1 KiB:
// t = -287 ns/B and predicted times of 0): no process's per-byte time and no message's
// per-byte time is negative, whatever the noise.
TEST(Estimate, PerByteTimesAreNeverNegative) {
  const LmoParams p = LmoParams::uniform(8, 200e-6, 1e-9, 1e-9);
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const LmoParams q = estimate_lmo(measure(p, 1024, 6, 0.05, seed));
    for (int i = 0; i < 8; ++i) {
      EXPECT_GE(q.t[i].value, 0) << seed << " " << i;
      for (int j = 0; j < 8; ++j) {
        if (i == j) continue;
        // (rounding aside: the sum of three terms is exact to ~1e-24 s/B)
        EXPECT_GE(q.t[i].value + q.ib(i, j) + q.t[j].value, -1e-20) << seed;
        EXPECT_GE(q.p2p(i, j, 1 << 20) - q.p2p(i, j, 0), -1e-12) << seed;
      }
    }
  }
}

TEST(Estimate, PortsComeBackFromFanOuts) {
  const int n = 12;
  const double m = 65536;
  LmoParams p = truth(n, 5);
  LmoMeasurements x = measure(p, m, 4, 0, 6);
  // Hosts 0..3 sit behind ports slower than their t and links; the others have none.
  std::vector<double> port(n, 0);
  for (int i = 0; i < 4; ++i) port[i] = (i + 1) * 2e-8;
  LmoParams q = p;
  q.port.assign(n, {});
  for (int i = 0; i < n; ++i) q.port[i].value = port[i];
  for (const auto& g : fan_out_groups(x, 7)) {
    ASSERT_EQ(g.size(), 8u);
    const std::vector<int> peers(g.begin() + 1, g.end());
    const double t = fan_out_time(q, g[0], peers, m);
    x.fan_out.push_back({g[0], peers, m, {t, 1e-3 * t}});
    const double t0 = fan_out_time(q, g[0], peers, 0);  // no o: LMO's C meets it
    x.fan_out.push_back({g[0], peers, 0, {t0, 1e-3 * t0}});
  }
  const LmoParams e = estimate_lmo(x);
  ASSERT_EQ(e.port.size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (port[i] > 0) {
      EXPECT_NEAR(e.port[i].value, port[i], 1e-9 * port[i]) << i;
      EXPECT_GT(e.port[i].ci, 0) << i;
    } else {
      EXPECT_EQ(e.port[i].value, 0) << i;  // the fan-out is what LMO predicts
    }
    EXPECT_EQ(e.o[i].value, e.C[i].value) << i;
  }
}

TEST(Estimate, IncomingPortsComeBackFromFanIns) {
  const int n = 12;
  const double m = 65536;
  LmoParams p = truth(n, 5);
  LmoMeasurements x = measure(p, m, 4, 0, 6);
  // Hosts 5..8 sit behind incoming ports slower than their links; the others have none.
  std::vector<double> port(n, 0);
  for (int i = 5; i < 9; ++i) port[i] = (i - 3) * 2e-8;
  LmoParams q = p;
  q.port_in.assign(n, {});
  for (int i = 0; i < n; ++i) q.port_in[i].value = port[i];
  for (const auto& g : fan_out_groups(x, 7)) {
    const std::vector<int> peers(g.begin() + 1, g.end());
    const double t = fan_in_time(q, g[0], peers, m);
    x.fan_in.push_back({g[0], peers, m, {t, 1e-3 * t}});
  }
  const LmoParams e = estimate_lmo(x);
  ASSERT_EQ(e.port_in.size(), static_cast<std::size_t>(n));
  EXPECT_TRUE(e.port.empty());  // no fan-outs: no outgoing ports
  for (int i = 0; i < n; ++i) {
    if (port[i] > 0) {
      EXPECT_NEAR(e.port_in[i].value, port[i], 1e-9 * port[i]) << i;
      EXPECT_GT(e.port_in[i].ci, 0) << i;
    } else {
      EXPECT_EQ(e.port_in[i].value, 0) << i;  // the fan-in is what LMO predicts
    }
  }
}

TEST(Estimate, TheSerializedPartOfCComesBackFromEmptyFanOuts) {
  // A switched cluster: of each C_i only o_i occupies the process, the rest is latency.
  const int n = 10;
  LmoParams p = truth(n, 8);
  LmoMeasurements x = measure(p, 65536, 4, 0, 9);
  LmoParams q = p;
  q.o.assign(n, {});
  for (int i = 0; i < n; ++i) q.o[i].value = p.C[i].value * (i % 3 == 0 ? 1 : 0.1 + 0.05 * i);
  for (const auto& g : fan_out_groups(x, 7)) {
    const std::vector<int> peers(g.begin() + 1, g.end());
    const double t0 = fan_out_time(q, g[0], peers, 0);
    x.fan_out.push_back({g[0], peers, 0, {t0, 1e-4 * t0}});
  }
  const LmoParams e = estimate_lmo(x);
  ASSERT_EQ(e.o.size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(e.o[i].value, q.o[i].value, 1e-9 * q.C[i].value) << i;
    EXPECT_LE(std::fabs(e.o[i].value - q.o[i].value), e.o[i].ci + 1e-12) << i;
  }
}

// With fan-outs and fan-ins both measured, the per-byte cost of a process whose concurrent
// transfers share a port is its link's: its t is 0, its links' 1 / beta take it (one message
// costs what it did), the ports take what the concurrent transfers share, and every fan-out and
// fan-in is met again. Processes without a port keep LMO's t.
TEST(Estimate, WithConcurrentTransfersBothWaysPerByteCostsAreTheLinks) {
  const int n = 12;
  const double m = 65536;
  auto [p, x] = slow_hosts(n, m, 1);
  LmoParams q = p;
  q.port.assign(n, {});
  q.port_in.assign(n, {});
  for (int i = 0; i < 3; ++i) q.port[i].value = q.port_in[i].value = (i + 2) * 3e-8;
  for (const auto& g : fan_out_groups(x, 7)) {
    const std::vector<int> peers(g.begin() + 1, g.end());
    const double out = fan_out_time(q, g[0], peers, m), in = fan_in_time(q, g[0], peers, m);
    x.fan_out.push_back({g[0], peers, m, {out, 1e-3 * out}});
    x.fan_in.push_back({g[0], peers, m, {in, 1e-3 * in}});
  }
  const LmoParams e = estimate_lmo(x);
  LmoMeasurements alone = x;  // LMO's experiments only
  alone.fan_out.clear();
  alone.fan_in.clear();
  const LmoParams lmo = estimate_lmo(alone);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(e.t[i].value, i < 3 ? 0 : lmo.t[i].value) << i;
    for (int j = 0; j < n; ++j) {
      if (j != i) EXPECT_NEAR(e.p2p(i, j, m), p.p2p(i, j, m), 1e-9 * p.p2p(i, j, m)) << i << j;
    }
  }
  for (const auto& f : x.fan_out) {
    EXPECT_NEAR(fan_out_time(e, f.i, f.peers, m), f.time.value, 0.02 * f.time.value) << f.i;
  }
  for (const auto& f : x.fan_in) {
    EXPECT_NEAR(fan_in_time(e, f.i, f.peers, m), f.time.value, 0.02 * f.time.value) << f.i;
  }
}

// Where LMO's serialized t meets a process's fan-outs and fan-ins, a port of the same rate
// shared by its concurrent transfers could meet them as well; when its sends were issued tells
// the two apart. Hosts 0 and 1 share their ports (their sends issued after o each); host 2
// serializes (after o + t M each): t moves onto the links of 0 and 1 only, one message costs
// what it did, and the issue times and the totals are met.
TEST(Estimate, IssueTimesTellASharedPortFromASerializedSender) {
  const int n = 12;
  const double m = 65536;
  auto [p, x] = slow_hosts(n, m, 2);
  LmoParams shared = p;  // hosts 0 and 1 as they are: t on the links, a port of its rate
  shared.port.assign(n, {});
  for (int i = 0; i < 2; ++i) {
    shared.port[i].value = p.t[i].value;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      shared.inv_beta[i * n + j].value += p.t[i].value;
      shared.inv_beta[j * n + i].value += p.t[i].value;
    }
    shared.t[i].value = 0;
  }
  for (const auto& g : fan_out_groups(x, 7)) {
    const std::vector<int> peers(g.begin() + 1, g.end());
    const double out = fan_out_time(p, g[0], peers, m), in = fan_in_time(p, g[0], peers, m);
    const double issued = fan_out_issued_time(g[0] < 2 ? shared : p, g[0], peers, m);
    x.fan_out.push_back({g[0], peers, m, {out, 1e-3 * out}, {issued, 1e-3 * issued}});
    x.fan_in.push_back({g[0], peers, m, {in, 1e-3 * in}});
  }
  // As the hand works them: host 0's sends issued after 7 C_0 (0.17 ms), host 2's after
  // 7 (C_2 + t_2 M) (55 ms): a small and a large part of their fan-outs.
  for (const auto& f : x.fan_out) {
    if (f.i == 0) EXPECT_NEAR(f.issued.value, 7 * p.C[0].value, 1e-12);
    if (f.i == 2) EXPECT_NEAR(f.issued.value, 7 * (p.C[2].value + 1.2e-7 * m), 1e-12);
  }
  LmoMeasurements without = x;  // no issue times: LMO's t meets everything
  for (auto& f : without.fan_out) f.issued = {-1, 0};
  const LmoParams lmo = estimate_lmo(without);
  const LmoParams e = estimate_lmo(x);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(e.t[i].value, i < 2 ? 0 : lmo.t[i].value) << i;
    if (i < 3) EXPECT_GT(lmo.t[i].value, 0) << i;
    for (int j = 0; j < n; ++j) {
      if (j != i) EXPECT_NEAR(e.p2p(i, j, m), lmo.p2p(i, j, m), 1e-9 * lmo.p2p(i, j, m)) << i << j;
    }
  }
  for (const auto& f : x.fan_out) {
    EXPECT_NEAR(fan_out_time(e, f.i, f.peers, m), f.time.value, 0.02 * f.time.value) << f.i;
    EXPECT_NEAR(fan_out_issued_time(e, f.i, f.peers, m), f.issued.value, 0.02 * f.issued.value)
        << f.i;
  }
  for (const auto& f : x.fan_in) {
    EXPECT_NEAR(fan_in_time(e, f.i, f.peers, m), f.time.value, 0.02 * f.time.value) << f.i;
  }
}

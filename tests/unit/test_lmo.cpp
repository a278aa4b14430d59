// Predictions of the LMO model along the registry's shapes, against closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "algorithms/registry.hpp"
#include "model/lmo.hpp"

using namespace colltune;
using namespace colltune::model;

namespace {

const Shape& shape(Op op, std::string_view name) { return *find_algorithm(op, name)->shape; }

std::vector<int> identity(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

constexpr double kC = 5e-6, kT = 1e-10, kIB = 1e-9;  // 5 us, 10 GB/s processing, 1 GB/s link

}  // namespace

TEST(Lmo, LinearScatterMatchesTheClosedForm) {
  const LmoParams p = LmoParams::uniform(8, kC, kT, kIB);
  const double m = 4096, u = kC + kT * m, v = m * kIB + kC + kT * m;
  // Sender costs serialize; the last child's transfer ends last: 7u + v.
  EXPECT_DOUBLE_EQ(predict(Op::kScatter, shape(Op::kScatter, "linear"), p, identity(8), 0, m),
                   7 * u + v);
  // Above S the transfers serialize too: 7u + 7v.
  LmoParams q = p;
  q.S = 1024;
  EXPECT_DOUBLE_EQ(predict(Op::kScatter, shape(Op::kScatter, "linear"), q, identity(8), 0, m),
                   7 * u + 7 * v);
}

TEST(Lmo, BinomialBcastTakesLog2Rounds) {
  const double m = 65536, u = kC + kT * m, v = m * kIB + kC + kT * m;
  for (int n : {2, 4, 8, 16, 64}) {
    const LmoParams p = LmoParams::uniform(n, kC, kT, kIB);
    const double rounds = std::log2(n);
    EXPECT_NEAR(predict(Op::kBcast, shape(Op::kBcast, "binomial"), p, identity(n), 3 % n, m),
                rounds * (u + v), 1e-15)
        << n;
  }
}

TEST(Lmo, BinomialScatterCarriesSubtrees) {
  // n = 4, root 0: children 2 (2 blocks) then 1; 2 forwards one block to 3.
  const LmoParams p = LmoParams::uniform(4, kC, kT, kIB);
  const double m = 1000;
  auto u = [&](double b) { return kC + kT * b; };
  auto v = [&](double b) { return b * kIB + kC + kT * b; };
  const double at2 = u(2 * m) + v(2 * m), at1 = u(2 * m) + u(m) + v(m);
  const double at3 = at2 + u(m) + v(m);
  EXPECT_DOUBLE_EQ(predict(Op::kScatter, shape(Op::kScatter, "binomial"), p, identity(4), 0, m),
                   std::max({at1, at2, at3}));
}

TEST(Lmo, LinearGatherProcessesArrivalsAtTheRoot) {
  const LmoParams p = LmoParams::uniform(5, kC, kT, kIB);
  const double m = 2048, u = kC + kT * m;
  // All four arrive at u + m/beta; the root processes them one after another.
  EXPECT_DOUBLE_EQ(predict(Op::kGather, shape(Op::kGather, "linear"), p, identity(5), 2, m),
                   u + m * kIB + 4 * u);
}

TEST(Lmo, HeterogeneousMembersAndRootsMapToTheirParameters) {
  // Three processes; process 2 is slow and behind a slow link. Members in reversed order.
  LmoParams p = LmoParams::uniform(3, kC, kT, kIB);
  p.C[2].value = 50e-6;
  p.inv_beta[0 * 3 + 2].value = p.inv_beta[2 * 3 + 0].value = 1e-8;
  const std::vector<int> members = {2, 1, 0};  // rank r is process members[r]
  const double m = 1000;
  // Linear bcast from rank 2 (process 0): to rank 0 (process 2) first, then rank 1 (process 1).
  const double u = kC + kT * m;
  const double to2 = u + m * 1e-8 + 50e-6 + kT * m;
  const double to1 = 2 * u + m * kIB + kC + kT * m;
  EXPECT_DOUBLE_EQ(predict(Op::kBcast, shape(Op::kBcast, "linear"), p, members, 2, m),
                   std::max(to1, to2));
}

// A new tree is predicted from its shape alone: a chain forwards n - 1 times.
TEST(Lmo, AnyShapeIsPredictedWithoutNewModelCode) {
  const Shape chain = {"chain", [](int vr, int) { return vr - 1; },
                       [](int vr, int n) { return n - vr; },
                       [](int vr, int n, int k) { return k == 0 && vr + 1 < n ? vr + 1 : -1; }};
  const LmoParams p = LmoParams::uniform(6, kC, kT, kIB);
  const double m = 512, u = kC + kT * m, v = m * kIB + kC + kT * m;
  EXPECT_DOUBLE_EQ(predict(Op::kBcast, chain, p, identity(6), 0, m), 5 * (u + v));
}

TEST(Lmo, NothingToMoveTakesNoTime) {
  const LmoParams p = LmoParams::uniform(4, kC, kT, kIB);
  EXPECT_EQ(predict(Op::kBcast, shape(Op::kBcast, "linear"), p, identity(1), 0, 100), 0);
  EXPECT_EQ(predict(Op::kGather, shape(Op::kGather, "binomial"), p, identity(4), 0, 0), 0);
}

// A port that the sends of one process share (a host's link on a switch).

TEST(Lmo, FanOutToTwoWithoutAPortIsOneToTwo) {
  LmoParams p = LmoParams::uniform(5, 0, 0, 0);
  for (int i = 0; i < 5; ++i) p.C[i].value = (i + 1) * 1e-6, p.t[i].value = (5 - i) * 1e-10;
  for (int i = 0; i < 25; ++i) p.inv_beta[i].value = (i % 7 + 1) * 1e-9;
  const int peers[2] = {3, 1};
  EXPECT_DOUBLE_EQ(fan_out_time(p, 2, peers, 5000), p.one_to_two(2, 3, 1, 5000));
}

TEST(Lmo, LinearBcastIsBoundByTheRootsPort) {
  LmoParams p = LmoParams::uniform(8, kC, 0, kIB);
  const double m = 1 << 20, u = 1e-8;  // the root's port: 10 x slower than a link
  const double lmo = predict(Op::kBcast, shape(Op::kBcast, "linear"), p, identity(8), 0, m);
  EXPECT_DOUBLE_EQ(lmo, 7 * kC + m * kIB + kC);
  p.port.assign(8, {0, 0});
  p.port[0].value = u;
  // All 7 messages share the port: the last is through after 7 m u, then its receiver's C.
  EXPECT_DOUBLE_EQ(predict(Op::kBcast, shape(Op::kBcast, "linear"), p, identity(8), 0, m),
                   kC + 7 * m * u + kC);
  // A port no slower than what LMO serializes anyway changes nothing.
  p.port[0].value = kIB / 8;
  EXPECT_DOUBLE_EQ(predict(Op::kBcast, shape(Op::kBcast, "linear"), p, identity(8), 0, m), lmo);
}

TEST(Lmo, LinearGatherIsBoundByTheRootsIncomingPort) {
  LmoParams p = LmoParams::uniform(8, kC, 0, kIB);
  const double m = 1 << 20, u = 1e-8;  // the root's incoming port: 10 x slower than a link
  const Shape& lin = shape(Op::kGather, "linear");
  // LMO: 7 messages arrive together at C + m/beta (the sender's C; the root's is the
  // processing that follows); the root takes C for each.
  const double lmo = predict(Op::kGather, lin, p, identity(8), 0, m);
  EXPECT_DOUBLE_EQ(lmo, kC + m * kIB + 7 * kC);
  p.port_in.assign(8, {0, 0});
  p.port_in[0].value = u;
  // Their bytes enter from C on (at - wire) and pass the port one message after another: the
  // last is through at C + 7 m u, then the root's C.
  EXPECT_DOUBLE_EQ(predict(Op::kGather, lin, p, identity(8), 0, m), kC + 7 * m * u + kC);
  // A port that passes 7 messages as fast as their links deliver them changes nothing.
  p.port_in[0].value = kIB / 7;
  EXPECT_DOUBLE_EQ(predict(Op::kGather, lin, p, identity(8), 0, m), lmo);
  // A fan-in of 7: the k-th empty request is at its peer at (k + 1) C, whose answer enters the
  // port at (k + 2) C; the port passes them one after another from 3 C on.
  p.port_in[0].value = u;
  const std::vector<int> peers = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_NEAR(fan_in_time(p, 0, peers, m), 3 * kC + 7 * m * u + kC, 1e-12);
}

TEST(Lmo, APortIsSharedFairlyAmongMessagesOfDifferentSizes) {
  // Binomial scatter, n = 4, root 0: 2 blocks to 2, then 1 block to 1; 2 forwards one to 3.
  // Only the root has a port, and links are free: the small message is through when both
  // have had m bytes (2 m u), the large one after 3 m u.
  LmoParams p = LmoParams::uniform(4, kC, 0, 0);
  p.port.assign(4, {0, 0});
  const double m = 1 << 20, u = 1e-9;
  p.port[0].value = u;
  const double at2 = kC + 3 * m * u + kC, at3 = at2 + kC + kC, at1 = kC + 2 * m * u + kC;
  EXPECT_DOUBLE_EQ(predict(Op::kScatter, shape(Op::kScatter, "binomial"), p, identity(4), 0, m),
                   std::max(at3, at1));
}

TEST(Lmo, GatherIsExactWhateverSizesCameBefore) {
  // A gather's parent takes its children's messages in order of arrival; the layout keeps the
  // last prediction's order as a starting point. Heterogeneous processes make the order change
  // from size to size (fixed and per-byte costs cross), some arrive together (ties).
  const int n = 600;
  LmoParams p = LmoParams::uniform(n, kC, kT, kIB);
  for (int i = 0; i < n; ++i) {
    p.C[i].value = i % 7 == 0 ? kC : 2e-6 + 38e-6 * ((i * 37) % 101) / 101.0;
    p.t[i].value = 1e-11 + 4e-10 * ((i * 53) % 97) / 97.0;
  }
  p.M2 = 1 << 14;  // above it, messages into a process pass its link one after another
  std::vector<double> sizes;
  for (int k = 0; k <= 26; ++k) sizes.push_back(std::ldexp(1.0, k));
  for (std::string_view name : {"linear", "binomial"}) {
    const Shape& s = shape(Op::kGather, name);
    std::vector<double> fresh;
    for (double m : sizes) {
      fresh.push_back(predict(Op::kGather, Layout(s, identity(n), 3), p, m));
    }
    const Layout reused(s, identity(n), 3);
    for (int pass = 0; pass < 3; ++pass) {  // increasing, decreasing, interleaved
      for (std::size_t q = 0; q < sizes.size(); ++q) {
        const std::size_t i = pass == 0 ? q : pass == 1 ? sizes.size() - 1 - q : (q * 11) % 27;
        EXPECT_EQ(predict(Op::kGather, reused, p, sizes[i]), fresh[i]) << name << " " << sizes[i];
      }
    }
  }
  // Linear, below M2: the root (process 3) takes the messages in order of arrival (ties by
  // rank), o + t m each.
  const Shape& lin = shape(Op::kGather, "linear");
  const Layout l(lin, identity(n), 3);
  for (double m : sizes) {
    if (m > p.M2) break;
    std::vector<std::pair<double, int>> at;
    for (int i = 0; i < n; ++i) {
      if (i != 3) at.push_back({p.C[i].value + m * (p.t[i].value + p.ib(i, 3)), i});
    }
    std::sort(at.begin(), at.end());
    double proc = 0;
    for (const auto& a : at) proc = std::max(proc, a.first) + p.C[3].value + p.t[3].value * m;
    EXPECT_DOUBLE_EQ(predict(Op::kGather, l, p, m), proc) << m;
  }
}

TEST(Lmo, BlockingReceivesInOrderHoldBackLaterChildren) {
  // Linear gather on 3 processes, root 0; process 1 is slow (C = 50 us). A message of child i
  // is at the root a_i = C_i + m (t_i + 1/beta) after it starts; the root takes C_0 + t_0 m.
  LmoParams p = LmoParams::uniform(3, kC, kT, kIB);
  p.C[1].value = 50e-6;
  const double m = 4096, take = kC + kT * m;
  const double a1 = 50e-6 + m * (kT + kIB), a2 = kC + m * (kT + kIB);
  const Layout l(shape(Op::kGather, "linear"), identity(3), 0);
  // As they arrive: 2, then 1.
  EXPECT_DOUBLE_EQ(predict(Op::kGather, l, p, m), std::max(a2 + take, a1) + take);
  // In issue order (1, then 2): 2's transfer starts once 1's message is taken.
  EXPECT_DOUBLE_EQ(predict(Op::kGather, l, p, m, Receives::kInIssueOrder), a1 + take + a2 + take);
  // In reverse order (2, then 1): 1 starts after 2 is taken, so waits its whole a_1 then.
  EXPECT_DOUBLE_EQ(predict(Op::kGather, l, p, m, Receives::kInReverseOrder), a2 + take + a1 + take);
}

TEST(Lmo, UpperEnvelopeIsTheHighestLineAtEverySize) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> a(0, 1e-3), b(0, 1e-8);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Affine> lines(1 + trial * 7);
    for (Affine& x : lines) x = {a(rng), b(rng)};
    if (trial % 5 == 0) lines.push_back(lines.front());  // duplicates
    const std::vector<Affine> all = lines;
    std::vector<Affine> copy = lines;
    const std::vector<Affine> env = upper_envelope(copy);
    EXPECT_LE(env.size(), all.size() + 1);
    for (double m = 0; m < 1e7; m = m * 1.7 + 13) {
      double top = 0;
      for (const Affine& x : all) top = std::max(top, x.a + x.b * m);
      EXPECT_NEAR(highest(env, m), top, 1e-15) << trial << " " << m;
    }
  }
}

// model::decide predicts each layout at 29 sizes from its envelopes (Layout::many_sizes); the
// times must be the direct ones, on either side of S (scatter: where subtrees cross it) and
// whatever the order of sizes. With ports the direct path stays.
TEST(Lmo, ALayoutPredictedAtManySizesGivesTheDirectTimes) {
  const int n = 37;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> c(1e-6, 50e-6), t(1e-11, 1e-9), ib(-2e-10, 2e-9);
  LmoParams p = LmoParams::uniform(n, 0, 0, 0);
  for (int i = 0; i < n; ++i) {
    p.C[i].value = c(rng);
    p.t[i].value = t(rng);
    for (int j = 0; j < n; ++j) p.inv_beta[static_cast<std::size_t>(i) * n + j].value = ib(rng);
  }
  p.S = 3000;
  std::vector<double> sizes = {1, 7, 100, 1000, 2999, 3001, 5000, 1e4, 2.5e5, 1e6, 3e7};
  std::vector<std::vector<int>> children(n);  // a random tree from rank 5
  std::vector<int> in = {5};
  for (int r = 0; r < n; ++r) {
    if (r == 5) continue;
    children[in[std::uniform_int_distribution<std::size_t>(0, in.size() - 1)(rng)]].push_back(r);
    in.push_back(r);
  }
  const BuiltTree random_tree = lay_out(5, children);
  const std::vector<TreeView> views = {TreeView(shape(Op::kBcast, "binomial"), n, 4),
                                       TreeView(shape(Op::kBcast, "linear"), n, 0),
                                       TreeView(random_tree)};
  for (const bool ports : {false, true}) {
    if (ports) p.port.assign(n, {2e-9, 0});
    for (const TreeView& v : views) {
      for (Op op : {Op::kBcast, Op::kScatter}) {
        std::shuffle(sizes.begin(), sizes.end(), rng);
        Layout many(v, identity(n));
        many.many_sizes = true;
        for (double m : sizes) {
          const double direct = predict(op, Layout(v, identity(n)), p, m);
          EXPECT_NEAR(predict(op, many, p, m), direct, 1e-12 * direct) << int(op) << " " << m;
        }
        EXPECT_EQ(many.envelopes.empty(), ports);  // the envelopes served, without ports
      }
    }
  }
}

TEST(Lmo, ANodesLinkToAnotherOfItsKindIsItsFastestNeverNegativeInTime) {
  // Three processes: 1/beta 0-1 = 4 ns/B, 0-2 = 1 ns/B, 1-2 = 2 ns/B; no t.
  LmoParams p = LmoParams::uniform(3, 1e-6, 0, 0);
  auto link = [&](int i, int j, double v) {
    p.inv_beta[i * 3 + j].value = p.inv_beta[j * 3 + i].value = v;
  };
  link(0, 1, 4e-9), link(0, 2, 1e-9), link(1, 2, 2e-9);
  EXPECT_DOUBLE_EQ(p.ib_alike(0), 1e-9);
  EXPECT_DOUBLE_EQ(p.ib_alike(1), 2e-9);
  // A negative 1/beta (t_0 = 2, t_2 = 4 ns/B: the message 0-2 still takes 1 ns/B) is taken no
  // further than -2 t_0, so that a message between two nodes of 0's kind takes no negative time.
  p.t[0].value = 2e-9, p.t[2].value = 4e-9;
  link(0, 2, -5e-9);
  EXPECT_DOUBLE_EQ(p.ib_alike(0), -4e-9);
  EXPECT_DOUBLE_EQ(p.ib_alike(2), -5e-9);  // -2 t_2 = -8 ns/B: not binding
}

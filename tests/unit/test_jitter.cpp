// colltune-jitter's trace format and simulator (docs/jitter.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "jitter/simulate.hpp"
#include "jitter/trace.hpp"
#include "table/yaml_util.hpp"

using namespace colltune;
using namespace colltune::jitter;

namespace {

Trace rows(std::vector<std::uint64_t> jitter, std::vector<std::uint64_t> gap, double hz = 1e9) {
  Trace t;
  t.header.hz = hz;
  t.jitter = std::move(jitter);
  t.gap = std::move(gap);
  return t;
}

// The trace of jitSim's Fig. 2 (rows <jitter_duration, cycles_to_next_jitter>).
Trace figure2() {
  return rows({10, 5, 25, 5, 15, 20, 10, 60, 5, 10}, {50, 30, 20, 10, 100, 300, 20, 60, 20, 70});
}

// Where row k's jitter ends: a task "starting at row k" begins there.
double after_row(const Trace& t, std::size_t k) {
  double x = 0;
  for (std::size_t i = 0; i < k; ++i) x += static_cast<double>(t.jitter[i] + t.gap[i]);
  return x + static_cast<double>(t.jitter[k]);
}

}  // namespace

TEST(Jitter, ComputePhaseOfThePapersFigure2) {
  // Target 100 cycles. Node 1 starts at row 1: 50 + 30 + 20 compute, 5 + 25 jitter = 130.
  // Node 2 starts at row 7: 20 + 60 + 20 compute, 60 + 5 jitter = 165.
  const Trace t = figure2();
  const Timeline tl(t);
  auto one = tl.cursor(after_row(t, 0), tl.length());
  tl.work(one, 100);
  EXPECT_DOUBLE_EQ(one.t, 130);
  auto two = tl.cursor(after_row(t, 6), tl.length());
  tl.work(two, 100);
  EXPECT_DOUBLE_EQ(two.t, 165);
  // The trace is circular: a task near its end continues at its start.
  auto late = tl.cursor(after_row(t, 9), tl.length());
  tl.work(late, 100);  // 70 free, then row 1's 10 jitter, 30 more
  EXPECT_DOUBLE_EQ(late.t, 110);
}

TEST(Jitter, ATaskLapsItsStretchOfTheTrace) {
  // 10 cycles of jitter every 100. A task covering the whole trace from 10.3 meets one event
  // per lap: 900 cycles of work take 10 laps, 1000 cycles. Ends that fall exactly on the
  // stretch's end must go back to its start (no epsilon left over, no endless loop).
  const Timeline tl(rows({10}, {90}));
  for (double from : {10.3, 10.1, 33.3, 77.7}) {
    auto c = tl.cursor(from, tl.length());
    tl.work(c, 900);
    EXPECT_NEAR(c.t, 1000, 1e-9) << from;
  }
  // Starting inside the event (0.3): 9.7 cycles of it first; the 10th lap's work ends just
  // before the next event: 9.7 + 9 x 100 + 90.
  auto inside = tl.cursor(0.3, tl.length());
  tl.work(inside, 900);
  EXPECT_NEAR(inside.t, 999.7, 1e-9);
  // Half the trace each: from 10.3, 50 cycles of it (no event inside): work is free.
  auto half = tl.cursor(10.3, 0.5 * tl.length());
  tl.work(half, 1000);
  EXPECT_NEAR(half.t, 1000, 1e-9);
}

TEST(Jitter, BarrierOnABinaryTreeOfSevenTasks) {
  // Compute 100; each message: send 2, receive 3 cycles of CPU and 5 between. Without jitter:
  // leaves done at 100 send by 102 (at their parents at 107); 1 and 2 take two messages
  // (110, 113), send (115, at the root 120); the root takes both (123, 126), sends to 1 (128,
  // there at 133) and 2 (130, 135); 1 takes it (136), sends to 3 (138) and 4 (140); 2 takes
  // it (138), sends to 5 (140) and 6 (142); the leaves take theirs: 146, 148, 148, 150.
  const Tree tree = kary_tree(7, 2);
  SimOptions o;
  o.quantum = 100;
  o.phases = 1;
  o.latency.net = {2, 3, 5};
  const Trace t = rows({0, 10}, {1108, 1000});  // one event: [1108, 1118)
  const Timeline tl(t);
  std::vector<double> starts(7, 0);
  EXPECT_DOUBLE_EQ(simulate_from(tl, tree, o, starts), 150);
  // Task 1 starts 1000 cycles into the trace: the event hits its first receive (from 107 on:
  // 1 cycle, 10 of jitter, 2 more: 120), which delays everything after it by 10 cycles.
  starts[1] = 1000;
  EXPECT_DOUBLE_EQ(simulate_from(tl, tree, o, starts), 160);
  // The same event during task 1's compute (it starts 1010 in: the event covers its clock
  // 98-108): compute ends at 110 instead of 100, but its children's messages only came at 107,
  // so the barrier ends 3 cycles later, not 10.
  starts[1] = 1010;
  EXPECT_DOUBLE_EQ(simulate_from(tl, tree, o, starts), 153);
}

TEST(Jitter, CollectivesAsSynchronization) {
  // Compute 100; a message of b bytes: send 2 + 0.1 b, wire 5 + 0.5 b, receive 3 + 0.1 b;
  // 10 bytes per process. No jitter.
  SimOptions o;
  o.quantum = 100;
  o.latency.net = {2, 3, 5, 0.1, 0.1, 0.5};
  o.bytes = 10;
  const Timeline quiet = Timeline::quiet(1e9);
  const std::vector<double> starts(7, 0);
  auto run = [&](Sync s, int n) {
    o.sync = s;
    return simulate_from(quiet, kary_tree(n, 2), o, std::span(starts).first(n));
  };
  // Gather on 3: the leaves send 10 bytes at 103, there at 113; the root takes them: 117, 121.
  EXPECT_DOUBLE_EQ(run(Sync::kGather, 3), 121);
  // Bcast on 3: the root sends at 103 and 106 (there at 113, 116); the leaves take them: 117,
  // 120.
  EXPECT_DOUBLE_EQ(run(Sync::kBcast, 3), 120);
  // Allreduce on 3: the gather's 121, then the bcast from there: 124 and 127 sent, 134 and 137
  // there, 138 and 141 taken.
  EXPECT_DOUBLE_EQ(run(Sync::kAllreduce, 3), 141);
  // Scatter on 7: tasks 1 and 2 get their subtrees' 30 bytes (sent by 105 and 110, there at
  // 125 and 130, taken by 131 and 136), then 10 bytes to each leaf: the last, task 6, gets its
  // block at 152 and has it at 156.
  EXPECT_DOUBLE_EQ(run(Sync::kScatter, 7), 156);
  // The barrier moves no bytes: the example above with these costs (150).
  EXPECT_DOUBLE_EQ(run(Sync::kBarrier, 7), 150);
}

TEST(Jitter, SynchronizedJitterDoesNotGrowWithTasksUnsynchronizedDoes) {
  // 1% jitter in events of 100 cycles every 10000; phases of 1000 cycles.
  std::vector<std::uint64_t> j(100, 100), g(100, 9900);
  const Timeline tl(rows(j, g));
  SimOptions o;
  o.quantum = 1000;
  o.phases = 50;
  auto run = [&](StartMode mode, int n) {
    o.mode = mode;
    std::mt19937_64 rng(7);
    const double ideal = simulate(Timeline::quiet(tl.length()), kary_tree(n, 2), o, rng);
    double sum = 0;
    for (int r = 0; r < 8; ++r) sum += simulate(tl, kary_tree(n, 2), o, rng) / ideal;
    return sum / 8;
  };
  const double one = run(StartMode::kUnsync, 1);
  EXPECT_GT(one, 1.0);
  EXPECT_LT(one, 1.05);
  EXPECT_NEAR(run(StartMode::kSync, 256), one, 0.02);
  EXPECT_GT(run(StartMode::kUnsync, 256), one + 0.05);  // every phase meets some event
}

TEST(Jitter, CoschedulingDefersJitterIntoLowWindows) {
  // Jitter 5 at 0, 30 at 100, 10 at 250; windows: high 90, low 10 (period 100).
  const Trace t = rows({5, 30, 10}, {95, 120, 40});  // length 300
  std::vector<double> starts;
  const Trace c = coschedule(t, 90, 10, &starts);
  // Period 0 holds 5 (low window 10), period 1 holds 30, period 2 holds 10.
  ASSERT_EQ(c.jitter.size(), 3u);
  EXPECT_EQ(c.jitter, (std::vector<std::uint64_t>{10, 10, 30}));
  EXPECT_EQ(c.gap, (std::vector<std::uint64_t>{90, 90, 90}));
  EXPECT_EQ(starts, (std::vector<double>{10, 110, 230}));
  EXPECT_EQ(c.lost(), 50u);
}

TEST(Jitter, TracesRoundTripAndBadRowsAreNamed) {
  Trace t = figure2();
  t.header.cpu = "test cpu";
  t.header.threshold_cycles = 42;
  const Trace back = parse_trace(format_trace(t), "t.trace");
  EXPECT_EQ(back.jitter, t.jitter);
  EXPECT_EQ(back.gap, t.gap);
  EXPECT_EQ(back.header.cpu, "test cpu");
  EXPECT_EQ(back.header.threshold_cycles, 42u);
  EXPECT_DOUBLE_EQ(back.header.hz, 1e9);
  try {
    parse_trace("# colltune-jitter trace 1\n# hz: 1e9\n10 20\n10 x\n", "bad.trace");
    FAIL() << "accepted a bad row";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.trace:4: cycles_to_next_jitter"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_trace("10 20\n", "foreign.txt"), InputError);  // no header
}

TEST(Jitter, LogGOPSimNoiseRoundTrips) {
  // Events at 100 ns (50 long) and 400 ns (20 long), 1 GHz: rows (0, 100), (50, 250), (20, 0).
  const Trace t = from_loggopsim("100\t50\n400\t20\n", "noise.txt", 1e9);
  EXPECT_EQ(t.jitter, (std::vector<std::uint64_t>{0, 50, 20}));
  EXPECT_EQ(t.gap, (std::vector<std::uint64_t>{100, 250, 0}));
  EXPECT_EQ(to_loggopsim(t), "100\t50\n400\t20\n");
  EXPECT_THROW(from_loggopsim("100\t50\n120\t20\n", "overlap.txt", 1e9), InputError);
}

namespace {

// The work of a task walked event by event (the simulator's first implementation), the
// reference for the prefix sums: events [s, e) on two laps, the task's span [from, from+span).
struct Walk {
  std::vector<double> s, e;
  double from, span, pos, t = 0;
  std::size_t k = 0;
  void seek() { k = std::upper_bound(e.begin(), e.end(), pos) - e.begin(); }
  void wrap() {
    pos = from + std::fmod(pos - (from + span), span);
    seek();
  }
  void work(double w) {
    const double limit = from + span;
    for (;;) {
      if (k < s.size() && s[k] <= pos) {
        const double end = std::min(e[k], limit);
        t += end - pos;
        pos = end;
        ++k;
        if (pos >= limit) wrap();
        continue;
      }
      const double next = k < s.size() ? std::min(s[k], limit) : limit;
      const double free = next - pos;
      if (w <= free) {
        pos += w;
        t += w;
        if (pos >= limit) wrap();
        return;
      }
      w -= free;
      t += free;
      pos = next;
      if (pos >= limit) wrap();
    }
  }
};

}  // namespace

TEST(Jitter, WorkByPrefixSumsEqualsWalkingEveryEvent) {
  // Random traces (events of 1-2000 cycles, gaps of 1-5000), random spans and amounts of work
  // from a few cycles to many laps: the same clock and place as the walk, to rounding.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::uint64_t> j, g;
    const int n = 1 + static_cast<int>(rng() % 300);
    for (int i = 0; i < n; ++i) {
      j.push_back(1 + rng() % 2000);
      g.push_back(1 + rng() % 5000);
    }
    const Trace tr = rows(j, g);
    const Timeline tl(tr);
    Walk ref;
    double x = 0;
    for (int lap = 0; lap < 2; ++lap) {
      double y = lap * tl.length();
      for (int i = 0; i < n; ++i) {
        ref.s.push_back(y);
        ref.e.push_back(y + static_cast<double>(j[i]));
        y += static_cast<double>(j[i] + g[i]);
      }
      x = y;
    }
    (void)x;
    std::uniform_real_distribution<double> u(0, 1);
    const double from = u(rng) * tl.length(), span = (0.05 + 0.95 * u(rng)) * tl.length();
    auto c = tl.cursor(from, span);
    ref.from = ref.pos = c.from;
    ref.span = c.span;
    ref.seek();
    for (int step = 0; step < 50; ++step) {
      const double w = std::pow(10.0, 6 * u(rng));  // 1 to 1e6 cycles
      tl.work(c, w);
      ref.work(w);
      ASSERT_NEAR(c.t, ref.t, 1e-9 * ref.t) << "trial " << trial << " step " << step;
      ASSERT_NEAR(c.pos, ref.pos, 1e-6 * tl.length()) << "trial " << trial << " step " << step;
      // Waiting moves both alike (the cursor's own rule).
      const double until = c.t + 1000 * u(rng);
      tl.wait_until(c, until);
      ref.t = until;
      ref.pos = c.pos;
      ref.seek();
      ASSERT_EQ(c.k, ref.k) << "trial " << trial << " step " << step << ": wait_until's event";
    }
  }
}

// A recorded run forecast on a calibrated platform (forecast/replay.hpp): hand-made traces on
// the hetcluster table, the expected times worked out from the link formula
// T(m) = fixed + m * per_byte of the graph (forecast::comm's own tests check that formula).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "forecast/call_times.hpp"
#include "forecast/coll.hpp"
#include "forecast/comm.hpp"
#include "forecast/links.hpp"
#include "forecast/replay.hpp"
#include "table/model_table.hpp"

namespace {

namespace fc = colltune::forecast;
using Traces = std::vector<std::vector<fc::TraceAction>>;

struct Bed {
  colltune::ModelTable t = colltune::load_model_table(std::string(COLLTUNE_SOURCE_DIR) +
                                                      "/tests/data/hetcluster8-table.yaml");
  fc::LinkGraph g = fc::graph_of(*t.platform_model, t.calibrated_ranks);
  std::vector<int> ranks{0, 5};  // rank 0 on h0, rank 1 on h5
  double T(int a, int b, double m) const {
    const std::size_t e = static_cast<std::size_t>(a) * g.size() + b;
    return g.fixed[e] + m * g.per_byte[e];
  }
  fc::ReplayResult run(const std::vector<std::string>& texts, double eager, bool native = false,
                       int max_replays = 12) const {
    Traces tr;
    for (std::size_t r = 0; r < texts.size(); ++r) {
      tr.push_back(fc::parse_trace(texts[r], static_cast<int>(r)));
    }
    fc::ReplayOptions o;
    o.eager = eager;
    o.native = native;
    o.max_replays = max_replays;
    return fc::replay(*t.platform_model, g, ranks, tr, o);
  }
};

TEST(Replay, AnEagerMessageFreesItsSender) {
  const Bed b;
  const double m = 1000;
  const auto r = b.run({"0 init\n0 send 1 3 1000\n0 finalize\n", "1 init\n1 recv 0 3 1000\n"}, 1e9);
  EXPECT_DOUBLE_EQ(r.end[1], b.T(0, 5, m));
  EXPECT_DOUBLE_EQ(r.end[0], b.g.send_fixed[0] + b.g.send_per_byte[0] * m);
  EXPECT_DOUBLE_EQ(r.seconds, r.end[1]);
}

TEST(Replay, AStridedMessageIsPackedBeforeItLeavesAndUnpackedOnceItIsIn) {
  // The recording host packed 1e9 pieces a second over 1000 bytes and 1e8 over 100000. Rank 0
  // sends 8000 B in 1000 pieces over 10000 bytes (half way in log: 0.5 / 1e9 + 0.5 / 1e8 =
  // 5.5 ns a piece, 5.5 us); rank 1 receives them into 1000 pieces over 100000 bytes (10 us).
  const Bed b;
  const std::string pack = "# pack 1e9@1000,1e8@100000\n";
  const std::string send = pack + "0 send 1 3 8000\n# pieces 1000 10000\n";
  const std::string recv = pack + "1 recv 0 3 8000\n# pieces 1000 100000\n";
  const double p = 5.5e-6, u = 1e-5, T = b.T(0, 5, 8000);
  const auto near = [](double got, double want) { EXPECT_NEAR(got, want, 1e-12); };
  auto r = b.run({send, recv}, 1e9);  // eager
  near(r.end[0], p + b.g.send_fixed[0] + b.g.send_per_byte[0] * 8000);
  near(r.end[1], p + T + u);
  // The receive posted after the message is in: unpacked from then.
  r = b.run({send, pack + "1 compute 1e9\n1 recv 0 3 8000\n# pieces 1000 100000\n"}, 1e9);
  near(r.end[1], 1 + u);
  // Rendezvous: the transfer begins once the sender has packed, and holds it until in.
  r = b.run({send, recv}, 0);
  near(r.end[0], p + T);
  near(r.end[1], p + T + u);
  // Without the host's rate the pieces cost nothing (a trace recorded before 2026-11-29).
  r = b.run({"0 send 1 3 8000\n# pieces 1000 10000\n", "1 recv 0 3 8000\n"}, 1e9);
  near(r.end[1], T);
  EXPECT_THROW(b.run({pack + "0 send 1 3 8000\n# pieces x 10\n", recv}, 1e9),
               std::invalid_argument);
  EXPECT_THROW(b.run({"# pack 5@\n" + send, recv}, 1e9), std::invalid_argument);
}

TEST(Replay, ALinkCarriesOneMessageAtATime) {
  // Two eager messages from h0 to h5, 60000 B then 10000 B. The second leaves once the sender has
  // paid the first's o + t m (about 5 ms) and alone would arrive a link's time later, before the
  // first is in (T(60000) is about 12 ms); behind it on the link it arrives after the first plus
  // its own bytes at the link's per-byte time.
  Bed b;
  const double pb = b.g.per_byte[5];
  const double leave2 =
      std::max(b.g.send_fixed[0] + b.g.send_per_byte[0] * 60000, b.g.port[0] * 60000);
  ASSERT_LT(leave2 + b.T(0, 5, 10000), b.T(0, 5, 60000));  // the case the rule is for
  const auto r =
      b.run({"0 send 1 3 60000\n0 send 1 4 10000\n", "1 recv 0 3 60000\n1 recv 0 4 10000\n"}, 1e9);
  EXPECT_DOUBLE_EQ(r.end[1], b.T(0, 5, 60000) + pb * 10000);
  // Messages to different peers take different links: the second is not held.
  b.ranks = {0, 5, 1};
  const auto s = b.run(
      {"0 send 1 3 60000\n0 send 2 4 10000\n", "1 recv 0 3 60000\n", "2 recv 0 4 10000\n"}, 1e9);
  EXPECT_DOUBLE_EQ(s.end[2], leave2 + b.T(0, 1, 10000));
}

TEST(Replay, AReceiverTakesItsMessagesInOneAtATimeInTheOrderTheyComeIn) {
  // Rank 0 on h7 (the slowest t) receives 100000 B from rank 1 (h0) and rank 2 (h6), eager. Its
  // inbox takes one message at a time at t_h7 per byte: x = t_h7 m. Alone, rank 2's message is in
  // at A2 = T(h6, h7) and rank 1's at c + A1 (A1 = T(h0, h7), c its computation first).
  Bed b;
  b.ranks = {7, 0, 6};
  const double m = 100000, x = b.g.send_per_byte[7] * m;
  const double A1 = b.T(0, 7, m), A2 = b.T(6, 7, m);
  const std::string recv0 = "0 irecv 1 1 100000\n0 irecv 2 1 100000\n0 wait 1 0 1\n0 wait 2 0 1\n";
  const auto near = [](double got, double want) { EXPECT_NEAR(got, want, 2e-3 * want); };
  // Both leave at 0: the one whose bytes start first (A - x, not before 0; rank 1's on a tie)
  // is in as alone, the other x after it.
  const double s1 = std::max(0.0, A1 - x), s2 = std::max(0.0, A2 - x);
  const double first = s1 <= s2 ? A1 : A2;
  const double second = s1 <= s2 ? A2 : A1;
  near(b.run({recv0, "1 send 0 1 100000\n", "2 send 0 1 100000\n"}, 1e9).end[0],
       std::max(second, first + x));
  // Rank 1 computes until its bytes start coming in halfway through rank 2's: c + A1 - x =
  // A2 - x / 2. Rank 1's message is met first (program order and rank order) but comes second:
  // rank 2's is in at A2, rank 1's at A2 + x (taken in the order met: A2 + 1.5 x; no inbox:
  // A2 + x / 2).
  const double c = A2 - A1 + x / 2;
  ASSERT_GT(c, 0);
  const auto r = b.run({recv0, "1 compute " + std::to_string(c * 1e9) + "\n1 send 0 1 100000\n",
                        "2 send 0 1 100000\n"},
                       1e9);
  near(r.end[0], A2 + x);
  EXPECT_GT(r.replays, 1);
  // Capped: one replay is the messages as met, without the inbox's delays (A2 + x / 2), and
  // stops there; the second already queues them in time (A2 + x), and says it ran two.
  const std::vector<std::string> late = {
      recv0, "1 compute " + std::to_string(c * 1e9) + "\n1 send 0 1 100000\n",
      "2 send 0 1 100000\n"};
  const auto one = b.run(late, 1e9, false, 1), two = b.run(late, 1e9, false, 2);
  EXPECT_EQ(one.replays, 1);
  EXPECT_EQ(two.replays, 2);
  near(one.end[0], A2 + x / 2);
  near(two.end[0], A2 + x);
  // Rendezvous (eager 0): both transfers begin at 0, when the receives are posted, and pass the
  // same inbox: the same order and times as the eager pair at 0.
  near(b.run({recv0, "1 isend 0 1 100000\n1 wait 1 0 1\n", "2 isend 0 1 100000\n2 wait 2 0 1\n"}, 0)
           .end[0],
       std::max(second, first + x));
}

TEST(Replay, SharedCoresAndTheInboxTogether) {
  // The inbox case above after a computation: ranks 1 and 2 compute 1 s of CPU time at once on
  // one shared core (2 s each), then both send 100000 B to rank 0 (h7), which computes nothing.
  // Both leave at 2 s: rank 0's messages are in as when both leave at 0, 2 s later. Both
  // fixed points (the stretches and the queue's delays) come out of the same replays.
  Bed b;
  b.ranks = {7, 0, 6};
  const double m = 100000, x = b.g.send_per_byte[7] * m;
  const double A1 = b.T(0, 7, m), A2 = b.T(6, 7, m);
  const double s1 = std::max(0.0, A1 - x), s2 = std::max(0.0, A2 - x);
  const double first = s1 <= s2 ? A1 : A2, second = s1 <= s2 ? A2 : A1;
  Traces tr{fc::parse_trace("0 irecv 1 1 100000\n0 irecv 2 1 100000\n0 wait 1 0 1\n"
                            "0 wait 2 0 1\n",
                            0),
            fc::parse_trace("1 compute 1e9\n1 send 0 1 100000\n", 1),
            fc::parse_trace("2 compute 1e9\n2 send 0 1 100000\n", 2)};
  fc::ReplayOptions o;
  o.eager = 1e9;
  o.shared_cores = 1;
  const fc::ReplayResult r = fc::replay(*b.t.platform_model, b.g, b.ranks, tr, o);
  EXPECT_NEAR(r.end[1], 2 + b.g.send_fixed[0] + b.g.send_per_byte[0] * m, 0.01);
  EXPECT_NEAR(r.end[0], 2 + std::max(second, first + x), 0.01);
  EXPECT_LE(r.replays, 12);
}

TEST(Replay, LinksThatPassBytesFreeChargeMessagesAndBroadcastsOnlyTheRest) {
  // h0-h5 re-measured (a links file): fixed 6e-4 s, 1e-6 s/B above 3000 B. A 1000-byte message
  // arrives after 6e-4 s, a 10000-byte one after 6e-4 + 7000 * 1e-6 = 7.6e-3 s.
  Bed b;
  colltune::forecast::LinkMeasurement m{"h0", "h5", 6e-4, 1e-6, 0, 65536, 0};
  m.free_bytes = 3000;
  m.small_bytes = 16384;
  ASSERT_EQ(fc::apply(b.g, std::span(&m, 1)), 1);
  auto r = b.run({"0 send 1 3 1000\n", "1 recv 0 3 1000\n"}, 1e9);
  EXPECT_DOUBLE_EQ(r.end[1], 6e-4);
  r = b.run({"0 send 1 3 10000\n", "1 recv 0 3 10000\n"}, 1e9);
  EXPECT_NEAR(r.end[1], 7.6e-3, 1e-15);
  // A broadcast of 10000 B from h0 to h5 is that message, as MPICH sends it: the model's own
  // C_0 + C_5 with the link's per-byte time at that size, 7000 * 1e-6 s (calibration's
  // corrections set aside, they scale the prediction).
  colltune::model::PlatformModel& pm = *b.t.platform_model;
  for (auto* c : {&pm.correction, &pm.correction_other_root, &pm.correction_unlike_root}) {
    for (auto& per_op : *c) per_op.clear();
  }
  r = b.run({"0 bcast 10000 0\n", "1 bcast 10000 0\n"}, 1e9, true);
  EXPECT_NEAR(r.seconds, pm.params.C[0].value + pm.params.C[5].value + 7e-3, 1e-12);
}

TEST(Replay, ProcessesSharingCoresStretchWhatTheyComputeAtOnce) {
  // Every rank computes 1 s of CPU time from 0. On 2 shared cores: 3 at once take 1.5 s each,
  // 4 at once 2 s (processor sharing); 2 at once, or one after the other, 1 s.
  Bed b;
  b.ranks = {0, 1, 2, 3};
  const auto run = [&](const std::vector<std::string>& texts, int cores) {
    Traces tr;
    for (std::size_t r = 0; r < texts.size(); ++r) {
      tr.push_back(fc::parse_trace(texts[r], static_cast<int>(r)));
    }
    fc::ReplayOptions o;
    o.eager = 1e9;
    o.shared_cores = cores;
    return fc::replay(*b.t.platform_model, b.g, b.ranks, tr, o);
  };
  const std::string c = "compute 1e9\n";
  fc::ReplayResult r = run({"0 " + c, "1 " + c, "2 " + c, "3 " + c}, 2);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(r.end[k], 2, 0.005) << k;
  EXPECT_GT(r.replays, 2);
  r = run({"0 " + c, "1 " + c, "2 " + c}, 2);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(r.end[k], 1.5, 0.005) << k;
  r = run({"0 " + c, "1 " + c}, 2);
  EXPECT_EQ(r.end[0], 1);
  EXPECT_EQ(r.replays, 1);
  r = run({"0 " + c, "1 " + c, "2 " + c, "3 " + c}, 0);  // not shared: each its own core
  EXPECT_EQ(r.end[3], 1);
  // Rank 1 computes once rank 0's message is in: never at once, nothing stretched.
  r = run({"0 compute 1e9\n0 send 1 3 8\n", "1 recv 0 3 8\n1 compute 1e9\n"}, 1);
  EXPECT_DOUBLE_EQ(r.end[1], 2 + b.T(0, 1, 8));
}

TEST(Replay, ARendezvousHoldsBothFromTheLaterSide) {
  const Bed b;
  const double m = 100000;
  // The sender computes 1 s first; the receiver waits from 0.
  const auto r = b.run({"0 compute 1e9\n0 send 1 3 100000\n", "1 recv 0 3 100000\n"}, 0);
  EXPECT_DOUBLE_EQ(r.end[0], 1 + b.T(0, 5, m));
  EXPECT_DOUBLE_EQ(r.end[1], 1 + b.T(0, 5, m));
  EXPECT_DOUBLE_EQ(r.compute[0], 1);
}

TEST(Replay, NonblockingRequestsCompleteAtTheirWait) {
  const Bed b;
  const double m = 100000;
  ASSERT_LT(b.T(0, 5, m), 1);
  // isend at 0, the receive posted at 1 s: the transfer runs from 1; rank 0 computes to 2 s.
  const auto r = b.run({"0 isend 1 5 100000\n0 compute 2e9\n0 wait 0 1 5\n",
                        "1 compute 1e9\n1 irecv 0 5 100000\n1 wait 0 1 5\n"},
                       0);
  EXPECT_DOUBLE_EQ(r.end[0], 2);
  EXPECT_DOUBLE_EQ(r.end[1], 1 + b.T(0, 5, m));
}

TEST(Replay, ABarrierStartsWithTheLastToArrive) {
  const Bed b;
  const auto r = b.run({"0 barrier\n", "1 compute 5e8\n1 barrier\n"}, 0);
  const double hop = std::max(b.T(0, 5, 0), b.T(5, 0, 0));  // one round for two ranks
  EXPECT_DOUBLE_EQ(r.end[0], 0.5 + hop);
  EXPECT_DOUBLE_EQ(r.end[1], 0.5 + hop);
  EXPECT_EQ(r.collectives, 1);
}

TEST(Replay, AllreduceAndAlltoallAsMpichsRounds) {
  const Bed b;
  // Two ranks: recursive doubling is one exchange of the 8 bytes; pairwise alltoall one round.
  auto r = b.run({"0 allreduce 8 0\n", "1 compute 1e9\n1 allreduce 8 0\n"}, 0);
  EXPECT_DOUBLE_EQ(r.end[0], 1 + std::max(b.T(0, 5, 8), b.T(5, 0, 8)));
  r = b.run({"0 alltoall 4000 4000\n", "1 alltoall 4000 4000\n"}, 0);
  EXPECT_DOUBLE_EQ(r.seconds, std::max(b.T(0, 5, 4000), b.T(5, 0, 4000)));
  // Above 2048 bytes, Rabenseifner: half the message there and back.
  r = b.run({"0 allreduce 8000 0\n", "1 allreduce 8000 0\n"}, 0);
  EXPECT_DOUBLE_EQ(r.seconds, 2 * std::max(b.T(0, 5, 4000), b.T(5, 0, 4000)));
}

TEST(Replay, CollectivesOnPartOfTheProcessesWaitOnlyForTheirMembers) {
  Bed b;
  b.ranks = {0, 5, 1, 2};
  // Two barriers at once, on {0, 1} and on {2, 3}; rank 2 computes 1 s first.
  auto r = b.run({"0 comm 0 0 1\n0 barrier@0\n", "1 comm 4 0 1\n1 barrier@4\n",
                  "2 compute 1e9\n2 comm 0 2 3\n2 barrier@0\n", "3 comm 0 2 3\n3 barrier@0\n"},
                 0);
  const double a = std::max(b.T(0, 5, 0), b.T(5, 0, 0)), c = std::max(b.T(1, 2, 0), b.T(2, 1, 0));
  EXPECT_DOUBLE_EQ(r.end[0], a);
  EXPECT_DOUBLE_EQ(r.end[1], a);
  EXPECT_DOUBLE_EQ(r.end[2], 1 + c);
  EXPECT_DOUBLE_EQ(r.end[3], 1 + c);
  EXPECT_EQ(r.collectives, 2);
  // A bcast on {3, 1} (in that order) from rank 1, which is the communicator's rank 1: the
  // model's prediction on identities h2, h5 from their second member.
  r = b.run({"0 init\n", "1 comm 0 3 1\n1 bcast@0 100000 1\n", "2 init\n",
             "3 comm 0 3 1\n3 bcast@0 100000 1\n"},
            0);
  const double m = 100000;
  const std::vector<int> ids{2, 5};
  double picked = -1, from_first = -1;
  for (const fc::CollRow& row :
       fc::coll(*b.t.platform_model, colltune::Op::kBcast, ids, 1, std::span(&m, 1))) {
    if (row.picked) picked = row.seconds;
  }
  for (const fc::CollRow& row :
       fc::coll(*b.t.platform_model, colltune::Op::kBcast, ids, 0, std::span(&m, 1))) {
    if (row.picked) from_first = row.seconds;
  }
  ASSERT_GT(picked, 0);
  ASSERT_NE(picked, from_first);
  EXPECT_DOUBLE_EQ(r.end[1], picked);
  EXPECT_DOUBLE_EQ(r.end[3], picked);
  EXPECT_DOUBLE_EQ(r.end[0], 0);
  const auto why = [](const std::string& text) {
    try {
      fc::parse_trace(text, 1);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("1 bcast@2 8 1\n").find("communicator 2 is not defined"), std::string::npos);
  EXPECT_NE(why("1 comm 0 0 1\n1 bcast@0 8 3\n").find("root 3 is not a member"), std::string::npos);
  EXPECT_NE(why("1 comm 0 0 2\n").find("rank 1 is not among the members"), std::string::npos);
  EXPECT_NE(why("1 comm 0 0 1\n1 send@0 0 1 8\n").find("only collectives"), std::string::npos);
  EXPECT_NE(why("1 comm 0 1 1\n").find("rank 1 (valid: ranks, each once)"), std::string::npos);
}

TEST(Replay, SmallBroadcastsAndReductionsAsTheirBinomialMessages) {
  // Ranks 0-3 on h0-h3, eager. A 16-byte broadcast from rank 0 as MPICH's binomial tree: rank
  // 0 sends to 2 (the larger subtree) then to 1, each send costing it o + t m; rank 2 forwards
  // to 3 once it has the message. Each member leaves when its own part is done, not all
  // together after the model's time.
  Bed b;
  b.ranks = {0, 1, 2, 3};
  const double m = 16;
  const auto own = [&](int r) { return b.g.send_fixed[r] + b.g.send_per_byte[r] * m; };
  Traces tr;
  for (int r = 0; r < 4; ++r) {
    tr.push_back(fc::parse_trace(std::to_string(r) + " bcast 16 0\n", r));
  }
  fc::ReplayOptions o;
  o.eager = 1e9;
  o.native = o.tree_messages = true;
  const fc::ReplayResult r = fc::replay(*b.t.platform_model, b.g, b.ranks, tr, o);
  const double second = std::max(own(0), b.g.port[0] * m);  // rank 0's second send leaves
  const double at2 = b.T(0, 2, m);
  const auto near = [](double got, double want) { EXPECT_NEAR(got, want, 1e-9 + 1e-6 * want); };
  near(r.end[0], 2 * own(0));
  near(r.end[2], at2 + own(2));
  near(r.end[3], at2 + b.T(2, 3, m));
  near(r.end[1], second + b.T(0, 1, m));
  // The same trace priced as one collective: every member leaves at the same time.
  o.tree_messages = false;
  const fc::ReplayResult c = fc::replay(*b.t.platform_model, b.g, b.ranks, tr, o);
  EXPECT_EQ(c.end[0], c.end[3]);
  // An 8-byte reduction to rank 0: rank 0 takes rank 1's message (the smaller subtree) then
  // rank 2's, which rank 2 sends once it has rank 3's.
  tr.clear();
  for (int r = 0; r < 4; ++r) {
    tr.push_back(fc::parse_trace(std::to_string(r) + " reduce 8 0 0\n", r));
  }
  o.tree_messages = true;
  const fc::ReplayResult d = fc::replay(*b.t.platform_model, b.g, b.ranks, tr, o);
  const double from2 = b.T(3, 2, 8) + b.T(2, 0, 8);
  near(d.end[0], std::max(b.T(1, 0, 8), from2));
  near(d.end[2], b.T(3, 2, 8) + b.g.send_fixed[2] + b.g.send_per_byte[2] * 8);
  // On a communicator of part of the processes ({1, 3}, root 3): 3 sends to 1; 0 and 2 idle.
  tr.clear();
  for (int r = 0; r < 4; ++r) {
    tr.push_back(fc::parse_trace(
        r % 2 ? std::to_string(r) + " comm 0 1 3\n" + std::to_string(r) + " bcast@0 16 3\n"
              : std::to_string(r) + " compute 0\n",
        r));
  }
  const fc::ReplayResult e = fc::replay(*b.t.platform_model, b.g, b.ranks, tr, o);
  near(e.end[1], b.T(3, 1, m));
  near(e.end[3], own(3));
  EXPECT_EQ(e.end[0], 0);
}

TEST(Replay, TheTreesMpichRunsAsTheTablesNativeSays) {
  // MPICH 4.0.2's defaults (the table's native bcast model is MPICH's): a bcast is binomial
  // below 12288 bytes or on fewer than 8 processes, a reduction up to 2048 bytes; no bytes or
  // one member: nothing travels. A reduction is MPICH's on the colltune row too.
  const Bed b;
  fc::ModelAtSize sized(*b.t.platform_model, b.g);
  const colltune::Shape* binomial =
      colltune::find_algorithm(colltune::Op::kBcast, "binomial")->shape;
  const std::vector<int> four{0, 1, 2, 3}, eight{0, 1, 2, 3, 4, 5, 6, 7}, one{0};
  const auto tree = [&](bool reduce, const std::vector<int>& ms, double m, bool native) {
    return fc::tree_schedule(*b.t.platform_model, &sized, reduce, ms, 0, m, native).shape;
  };
  EXPECT_EQ(tree(false, eight, 12287, true), binomial);
  EXPECT_EQ(tree(false, eight, 12288, true), nullptr);
  EXPECT_EQ(tree(false, four, 20000, true), binomial);
  EXPECT_EQ(tree(true, eight, 2048, true), binomial);
  EXPECT_EQ(tree(true, eight, 2049, true), nullptr);
  EXPECT_EQ(tree(true, eight, 2048, false), binomial);
  EXPECT_EQ(tree(false, eight, 0, true), nullptr);
  EXPECT_EQ(tree(false, one, 16, true), nullptr);
}

TEST(Replay, CallsAsRecordedBesideAsReplayed) {
  // Two ranks on h0 and h5, every message eager; `# took` lines as a wall-clock recording
  // writes them. Rank 0's barrier is untimed (a computation follows it, not a `# took`).
  const Bed b;
  Traces tr{fc::parse_trace("0 init\n0 barrier\n0 compute 1e9\n0 send 1 3 1000\n# took 0.002\n"
                            "0 isend 1 4 3000\n# took 0.0001\n0 wait 0 1 4\n# took 0.0002\n"
                            "0 irecv 1 5 8\n0 send 1 5 8\n0 wait 1 0 5\n# took 0.003\n"
                            "# took 9\n0 finalize\n",
                            0),
            fc::parse_trace("1 init\n1 barrier\n# took 0.5\n1 recv 0 3 1000\n# took 1.004\n"
                            "1 recv 0 4 3000\n# took 0.0004\n1 irecv 0 5 8\n1 send 0 5 8\n"
                            "1 wait 0 1 5\n# took 0.001\n",
                            1)};
  EXPECT_EQ(tr[0][0].took, -1);     // the barrier
  EXPECT_EQ(tr[0][7].took, 0.003);  // the last of one call's three actions (not the stray 9)
  EXPECT_EQ(tr[0][6].took, -1);
  fc::ReplayOptions o;
  o.eager = 1e9;
  o.action_times = true;
  const fc::ReplayResult r = fc::replay(*b.t.platform_model, b.g, b.ranks, tr, o);
  const std::vector<fc::CallTimes> ct = fc::call_times(tr, r);
  const auto row = [&](const std::string& call, double from) {
    const auto it = std::find_if(ct.begin(), ct.end(), [&](const fc::CallTimes& c) {
      return c.call == call && c.bytes_from == from;
    });
    EXPECT_NE(it, ct.end()) << call << " " << from;
    return it == ct.end() ? fc::CallTimes{} : *it;
  };
  const double hop = std::max(b.T(0, 5, 0), b.T(5, 0, 0));  // the barrier of two
  const double own = b.g.send_fixed[0];
  // Means over the 2 ranks: what each call took as recorded, and as the replay gave it.
  fc::CallTimes x = row("barrier", 0);
  EXPECT_EQ(x.calls, 1);
  EXPECT_DOUBLE_EQ(x.recorded, 0.25);
  EXPECT_DOUBLE_EQ(x.replayed, hop / 2);
  x = row("untimed", 0);
  EXPECT_EQ(x.calls, 1);
  EXPECT_DOUBLE_EQ(x.replayed, hop / 2);
  x = row("send", 512);
  EXPECT_EQ(x.bytes_to, 1023);
  EXPECT_DOUBLE_EQ(x.recorded, 0.001);
  EXPECT_NEAR(x.replayed, (own + b.g.send_per_byte[0] * 1000) / 2, 1e-15);
  x = row("recv", 512);  // from the barrier's end: the computation, then the message
  EXPECT_DOUBLE_EQ(x.recorded, 0.502);
  EXPECT_NEAR(x.replayed, (1 + b.T(0, 5, 1000)) / 2, 1e-12);
  x = row("isend", 2048);
  EXPECT_NEAR(x.replayed, (own + b.g.send_per_byte[0] * 3000) / 2, 1e-15);
  x = row("wait", 2048);  // the size of the isend it completes
  EXPECT_DOUBLE_EQ(x.recorded, 0.0001);
  EXPECT_EQ(x.replayed, 0);  // an eager send's request is done when the send returns
  x = row("irecv+send+wait", 8);
  EXPECT_EQ(x.calls, 2);
  EXPECT_DOUBLE_EQ(x.recorded, 0.002);
  x = row("compute", 0);
  EXPECT_DOUBLE_EQ(x.recorded, 0.5);
  EXPECT_DOUBLE_EQ(x.replayed, 0.5);
  ASSERT_EQ(ct.back().call, "total");
  EXPECT_EQ(ct.back().calls, 8);
  EXPECT_NEAR(ct.back().recorded,
              (1 + 0.002 + 0.0001 + 0.0002 + 0.003 + 0.5 + 1.004 + 0.0004 + 0.001) / 2, 1e-12);
  EXPECT_NEAR(ct.back().replayed, (r.end[0] + r.end[1]) / 2, 1e-12);
  // The calls come by |replayed - recorded|, largest first, then compute, untimed, total.
  for (std::size_t k = 0; k + 4 < ct.size(); ++k) {
    EXPECT_GE(std::abs(ct[k].replayed - ct[k].recorded),
              std::abs(ct[k + 1].replayed - ct[k + 1].recorded));
  }
  // Without `# took` lines nothing was timed; a `# took` that is not seconds is named.
  tr = {fc::parse_trace("0 send 1 3 8\n", 0), fc::parse_trace("1 recv 0 3 8\n", 1)};
  EXPECT_TRUE(fc::call_times(tr, fc::replay(*b.t.platform_model, b.g, b.ranks, tr, o)).empty());
  EXPECT_THROW(fc::parse_trace("0 send 1 3 8\n# took soon\n", 0), std::invalid_argument);
  EXPECT_THROW(fc::parse_trace("0 send 1 3 8\n# took -1\n", 0), std::invalid_argument);
}

TEST(Replay, ARunThatWouldHangIsRefused) {
  const Bed b;
  EXPECT_THROW(b.run({"0 recv 1 1 8\n0 send 1 1 8\n", "1 recv 0 1 8\n1 send 0 1 8\n"}, 1e9),
               std::invalid_argument);
  EXPECT_THROW(b.run({"0 send 1 1 8\n", "1 recv 0 2 8\n"}, 1e9), std::invalid_argument);
}

TEST(Replay, WhatTheReplayCannotModelIsNamed) {
  const auto why = [](const std::string& text) {
    try {
      fc::parse_trace(text, 0);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("0 init\n0 allgather 8 8\n").find("line 2: action 'allgather' is not modelled"),
            std::string::npos);
  EXPECT_NE(why("0 init\n# unsupported: MPI_Bcast on a communicator of 2 of the 4 processes\n")
                .find("line 2: unsupported: MPI_Bcast"),
            std::string::npos);
  EXPECT_NE(why("0 send 1 x 8\n").find("missing or invalid"), std::string::npos);
  EXPECT_NE(why("1 send 0 1 8\n").find("rank 1 in the trace of rank 0"), std::string::npos);
}

}  // namespace

// Application forecasts (forecast/app.hpp, app_yaml.hpp): models parsed from YAML text, run on
// the hetcluster table (LMO costs) and on MERPSYS's formulas with the Galera+ coefficients;
// every expected time is worked out here from the formulas of docs/app-models.md and the
// graph's links (T(m) = fixed + m per_byte, forecast::comm's own tests check that formula).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "forecast/app.hpp"
#include "forecast/app_yaml.hpp"
#include "forecast/comm.hpp"
#include "forecast/expr.hpp"
#include "forecast/links.hpp"
#include "forecast/merpsys_fit.hpp"
#include "forecast/mpich_colls.hpp"
#include "forecast/replay.hpp"
#include "forecast/to_model.hpp"
#include "table/model_table.hpp"
#include "table/yaml_util.hpp"

namespace {

namespace fc = colltune::forecast;

const std::string kSrc = COLLTUNE_SOURCE_DIR;

struct Bed {
  colltune::ModelTable t = colltune::load_model_table(kSrc + "/tests/data/hetcluster8-table.yaml");
  fc::LinkGraph g = fc::graph_of(*t.platform_model, t.calibrated_ranks);
  fc::AppPlatform plat{*t.platform_model, g};
  double T(int a, int b, double m) const {
    const std::size_t e = static_cast<std::size_t>(a) * g.size() + b;
    return g.fixed[e] + m * g.per_byte[e];
  }
};

fc::AppModel model(const std::string& body) {
  return colltune::parse_app_model("colltune_app: 1\n" + body, "test.yaml");
}

// The one line a model's text is refused with ("no error": accepted).
std::string error(const std::string& text) {
  try {
    model(text);
  } catch (const colltune::InputError& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

fc::NodeSpec galera() { return colltune::read_node_spec(kSrc + "/config/nodes/galera-plus.yaml"); }

TEST(AppExpr, EvaluatesWithVariablesAndRejectsUnknownNames) {
  EXPECT_DOUBLE_EQ(fc::Expr("5 * N * N / P").eval({{"N", 4}, {"P", 2}}), 40);
  EXPECT_DOUBLE_EQ(fc::Expr("ceil(N / 3) + log2(P)").eval({{"N", 7}, {"P", 8}}), 6);
  EXPECT_THROW(fc::Expr("N +").eval({{"N", 1}}), std::invalid_argument);
  EXPECT_THROW(fc::Expr("M * 2").eval({{"N", 1}}), std::invalid_argument);
  EXPECT_THROW(fc::Expr("1 / 0").eval({}), std::invalid_argument);
}

TEST(AppYaml, BadInputNamesTheLineAndTheValidChoices) {
  const std::string groups = "groups:\n  - {label: w, count: P}\n";
  EXPECT_NE(error(groups + "blocks:\n  - spin: {bytes: 1}\n").find("test.yaml:5"),
            std::string::npos);
  EXPECT_NE(error(groups + "blocks:\n  - spin: {bytes: 1}\n").find("valid: compute"),
            std::string::npos);
  EXPECT_NE(error(groups + "blocks:\n  - bcast: {bytes: K}\n").find("unknown name 'K'"),
            std::string::npos);
  EXPECT_NE(error(groups + "blocks:\n  - compute: {flops: 1, groups: [x]}\n")
                .find("unknown group 'x' (valid: w)"),
            std::string::npos);
  EXPECT_NE(error(groups + "blocks:\n  - compute: {threads: 2}\n").find("flops or seconds"),
            std::string::npos);
  EXPECT_NE(error("groups: []\nblocks: []\n").find("empty"), std::string::npos);
  EXPECT_EQ(error(groups + "blocks:\n  - loop: {count: 3, var: i, do: [{bcast: {bytes: i}}]}\n"),
            "no error");
}

TEST(App, MerpsysFormulasAsInTheirTable) {
  const fc::NodeSpec n = galera();
  const fc::AppModel m = model(
      "groups:\n  - {label: w, count: P}\n"
      "blocks:\n"
      "  - compute: {flops: 1e6}\n"
      "  - bcast: {bytes: 3000}\n"
      "  - barrier:\n");
  fc::AppOptions o;
  o.processes = 8, o.per_node = 4, o.merpsys = true;
  const fc::AppResult r = fc::simulate_app(m, nullptr, n, o);
  // 4 active threads <= P_low: T_min h; bcast T + K ceil(3000/2048) 2048 log2 8; barrier
  // T + K log2 8 (microseconds).
  const double expect =
      1e6 * 0.00165e-6 + (1.7 + 0.00188 * 4096 * 3) * 1e-6 + (1.4 + 7.5 * 3) * 1e-6;
  EXPECT_NEAR(r.seconds, expect, 1e-15);
  EXPECT_EQ(r.nodes, 2);
  // 30 threads on a node (P_hi 24 < 30): (T_hi + K_hi 30) h / threads.
  const fc::AppModel busy =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - compute: {flops: 1e6, threads: 15}\n");
  o.per_node = 2;
  EXPECT_NEAR(fc::simulate_app(busy, nullptr, n, o).seconds,
              (3.29e-4 + 7.96e-5 * 30) * 1e-6 * 1e6 / 15, 1e-15);
}

TEST(App, MasterSendsToEachWorkerInTurnOnTheLinks) {
  Bed b;
  const fc::AppModel m = model(
      "vars: {B: 100000}\n"
      "groups:\n  - {label: master, count: 1}\n  - {label: workers, count: P - 1}\n"
      "blocks:\n  - send: {from: master, to: workers, bytes: B}\n");
  fc::AppOptions o;
  o.processes = 3, o.per_node = 1;  // ranks 0, 1, 2 on h0, h1, h2; rendezvous (eager 0)
  const fc::AppResult r = fc::simulate_app(m, &b.plat, {}, o);
  const double first = b.T(0, 1, 1e5), second = first + b.T(0, 2, 1e5);
  EXPECT_DOUBLE_EQ(r.groups[0].end, second);
  EXPECT_DOUBLE_EQ(r.groups[1].end, second);
  EXPECT_DOUBLE_EQ(r.seconds, second);
  // --var B=10 and eager: the master pays only its own costs, each worker gets its message a
  // link's time after it left.
  o.vars["B"] = 10, o.eager = 1e9;
  const fc::AppResult e = fc::simulate_app(m, &b.plat, {}, o);
  const double leave2 = b.g.send_fixed[0] + b.g.send_per_byte[0] * 10;
  EXPECT_DOUBLE_EQ(e.seconds, std::max(b.T(0, 1, 10), leave2 + b.T(0, 2, 10)));
}

TEST(App, AnEagerMessageWaitsBehindTheOneBeforeItOnItsLink) {
  // 60000 B then 10000 B from h0 to h1, eager: alone the second would arrive first; a link
  // carries one message at a time, so it is in after the first plus its bytes at the link's rate.
  Bed b;
  const fc::AppModel m = model(
      "groups:\n  - {label: master, count: 1}\n  - {label: worker, count: 1}\n"
      "blocks:\n  - send: {from: master, to: worker, bytes: 60000}\n"
      "  - send: {from: master, to: worker, bytes: 10000}\n");
  fc::AppOptions o;
  o.processes = 2, o.per_node = 1, o.eager = 1e9;
  const double leave2 =
      std::max(b.g.send_fixed[0] + b.g.send_per_byte[0] * 60000, b.g.port[0] * 60000);
  ASSERT_LT(leave2 + b.T(0, 1, 10000), b.T(0, 1, 60000));  // the case the rule is for
  const fc::AppResult r = fc::simulate_app(m, &b.plat, {}, o);
  EXPECT_DOUBLE_EQ(r.groups[1].end, b.T(0, 1, 60000) + b.g.per_byte[1] * 10000);
}

TEST(App, WorkersSendingToTheMasterAtOnceComeInOneAtATime) {
  // Two workers (h0, h1) send 100000 B each to the master on h7 at once, eager. Alone, each is in
  // at A_k = T(h_k, h7); the master takes one at a time at t_h7 per byte (x = t_h7 m): the one
  // that comes in first as alone, the other x after it if that is later.
  Bed b;
  const fc::AppModel m = model(
      "groups:\n  - {label: master, count: 1, on: [h7]}\n  - {label: workers, count: P - 1}\n"
      "blocks:\n  - send: {from: workers, to: master, bytes: 100000}\n");
  fc::AppOptions o;
  o.processes = 3, o.per_node = 1, o.eager = 1e9;
  const double x = b.g.send_per_byte[7] * 1e5;
  const double A0 = b.T(0, 7, 1e5), A1 = b.T(1, 7, 1e5);
  const double first = std::min(A0, A1), second = std::max(A0, A1);
  ASSERT_GT(first + x, second);  // the case the rule is for
  EXPECT_DOUBLE_EQ(fc::simulate_app(m, &b.plat, {}, o).groups[0].end, first + x);
}

TEST(App, AGroupPlacedOnNamedIdentities) {
  Bed b;
  const fc::AppModel m = model(
      "groups:\n  - {label: master, count: 1, on: [h5]}\n  - {label: workers, count: P - 1}\n"
      "blocks:\n  - send: {from: master, to: workers, bytes: 100000}\n");
  fc::AppOptions o;
  o.processes = 3, o.per_node = 1;  // the master on h5, the workers on h0 and h1
  const fc::AppResult r = fc::simulate_app(m, &b.plat, {}, o);
  EXPECT_DOUBLE_EQ(r.seconds, b.T(5, 0, 1e5) + b.T(5, 1, 1e5));
  EXPECT_EQ(r.nodes, 3);
  const fc::AppModel bad = model(
      "groups:\n  - {label: master, count: 1, on: [h9]}\n  - {label: workers, count: P - 1}\n"
      "blocks:\n  - barrier:\n");
  try {
    fc::simulate_app(bad, &b.plat, {}, o);
    FAIL() << "h9 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown identity 'h9' (valid: h0, h1,"),
              std::string::npos)
        << e.what();
  }
  o.merpsys = true;
  EXPECT_THROW(fc::simulate_app(m, nullptr, galera(), o), std::invalid_argument);
}

TEST(App, NeighboursWaitForTheLaterSideAndAllreduceFollowsMpichRounds) {
  Bed b;
  const fc::AppModel m = model(
      "groups:\n  - {label: w, count: P}\n"
      "blocks:\n"
      "  - neighbours: {offsets: [1], bytes: 1000}\n"
      "  - allreduce: {bytes: 8}\n");
  fc::AppOptions o;
  o.processes = 4, o.per_node = 1;
  const fc::AppResult r = fc::simulate_app(m, &b.plat, {}, o);
  // Offset 1: rank i sends to i + 1 and receives from i - 1, both at once.
  double after[4];
  for (int i = 0; i < 4; ++i) {
    double c = 0;
    if (i + 1 < 4) c = std::max(c, b.T(i, i + 1, 1000));
    if (i - 1 >= 0) c = std::max(c, b.T(i - 1, i, 1000));
    after[i] = c;
  }
  const double start = std::max({after[0], after[1], after[2], after[3]});
  // Recursive doubling on 4 ranks: partners r ^ 1, then r ^ 2.
  const double round1 = std::max({b.T(0, 1, 8), b.T(1, 0, 8), b.T(2, 3, 8), b.T(3, 2, 8)});
  const double round2 = std::max({b.T(0, 2, 8), b.T(2, 0, 8), b.T(1, 3, 8), b.T(3, 1, 8)});
  EXPECT_DOUBLE_EQ(r.seconds, start + round1 + round2);
}

TEST(App, EagerNeighboursWaitOnlyForTheirIncomingMessage) {
  Bed b;
  const fc::AppModel late = model(
      "groups:\n  - {label: early, count: 2}\n  - {label: late, count: 1}\n"
      "blocks:\n"
      "  - compute: {seconds: 1, groups: [late]}\n"
      "  - neighbours: {offsets: [1], bytes: 1000}\n");
  fc::AppOptions o;
  o.processes = 3, o.per_node = 1, o.eager = 1e9;
  const fc::AppResult r = fc::simulate_app(late, &b.plat, {}, o);
  // Rank 0 only sends (its own cost); rank 1 gets 0's message; rank 2 (late by 1 s) gets 1's
  // message long before it is there, and sends nothing: none waits for rank 2.
  const double own0 = b.g.send_fixed[0] + b.g.send_per_byte[0] * 1000;
  const double own1 = b.g.send_fixed[1] + b.g.send_per_byte[1] * 1000;
  EXPECT_DOUBLE_EQ(r.groups[0].end, std::max(own0, std::max(own1, b.T(0, 1, 1000))));
  EXPECT_DOUBLE_EQ(r.groups[1].end, std::max(1.0, b.T(1, 2, 1000)));
  // Rendezvous: rank 1 waits for rank 2 (its receiver) to be there.
  o.eager = 0;
  const fc::AppResult h = fc::simulate_app(late, &b.plat, {}, o);
  EXPECT_GT(h.groups[0].end, 1.0);
}

TEST(App, RingForwardsFromTheRootOneHopAfterAnother) {
  Bed b;
  const fc::AppModel m = model(
      "groups:\n  - {label: a, count: 1}\n  - {label: b, count: 1}\n"
      "  - {label: c, count: 1}\n  - {label: d, count: 1}\n"
      "blocks:\n  - ring: {bytes: 100000, root: 2}\n");
  fc::AppOptions o;
  o.processes = 4, o.per_node = 1;  // ranks 0-3 on h0-h3; rendezvous: a hop holds both sides
  const fc::AppResult r = fc::simulate_app(m, &b.plat, {}, o);
  // 2 -> 3, then 3 -> 0 once 3 has it, then 0 -> 1; each on its own link.
  const double h1 = b.T(2, 3, 1e5), h2 = h1 + b.T(3, 0, 1e5), h3 = h2 + b.T(0, 1, 1e5);
  EXPECT_DOUBLE_EQ(r.groups[2].end, h1);
  EXPECT_DOUBLE_EQ(r.groups[3].end, h2);
  EXPECT_DOUBLE_EQ(r.groups[0].end, h3);
  EXPECT_DOUBLE_EQ(r.groups[1].end, h3);
  // Split (BLACS's S-ring) on 5 members from 1: 1 -> 2, then 1 -> 0 (root's second send);
  // the right chain to distance n / 2 = 2 (2 -> 3), the left one back to distance 3 (0 -> 4).
  const fc::AppModel split = model(
      "groups:\n  - {label: a, count: 1}\n  - {label: b, count: 1}\n  - {label: c, count: 1}\n"
      "  - {label: d, count: 1}\n  - {label: e, count: 1}\n"
      "blocks:\n  - ring: {bytes: 100000, root: 1, split: 1}\n");
  o.processes = 5;
  const fc::AppResult sr = fc::simulate_app(split, &b.plat, {}, o);
  const double right = b.T(1, 2, 1e5), left = right + b.T(1, 0, 1e5);
  EXPECT_DOUBLE_EQ(sr.groups[2].end, right + b.T(2, 3, 1e5));
  EXPECT_DOUBLE_EQ(sr.groups[3].end, right + b.T(2, 3, 1e5));
  EXPECT_DOUBLE_EQ(sr.groups[0].end, left + b.T(0, 4, 1e5));
  EXPECT_DOUBLE_EQ(sr.groups[4].end, left + b.T(0, 4, 1e5));
  EXPECT_DOUBLE_EQ(sr.groups[1].end, left);
  o.processes = 4;
  // Not the loop of neighbours steps it replaces in a model: every member sending each step.
  const fc::AppModel steps = model(
      "groups:\n  - {label: w, count: P}\n"
      "blocks:\n  - loop: {count: P - 1, do: [neighbours: {offsets: [1], bytes: 100000}]}\n");
  EXPECT_GT(fc::simulate_app(steps, &b.plat, {}, o).seconds, r.seconds);
  const fc::AppModel bad =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - ring: {bytes: 10, root: P}\n");
  try {
    fc::simulate_app(bad, &b.plat, {}, o);
    FAIL() << "root P accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ring: root 4 (valid: 0 to 3"), std::string::npos)
        << e.what();
  }
}

TEST(App, ExchangeSwapsWithTheOtherMembersInTurn) {
  Bed b;
  const fc::AppModel m = model(
      "groups:\n  - {label: w, count: P}\n"
      "blocks:\n  - exchange: {root: 1, count: 4, bytes: 100000}\n");
  fc::AppOptions o;
  o.processes = 4, o.per_node = 1;  // rendezvous: both wait, the slower way ends each swap
  const fc::AppResult r = fc::simulate_app(m, &b.plat, {}, o);
  // Four swaps over three others from root 1: 2 twice (the remainder goes first), then 3, 0.
  const auto x = [&](int a, int c) { return std::max(b.T(a, c, 1e5), b.T(c, a, 1e5)); };
  const double t2 = 2 * x(1, 2), t3 = t2 + x(1, 3), t0 = t3 + x(1, 0);
  EXPECT_DOUBLE_EQ(r.groups[0].end, t0);
  // Written out, it reads back the same.
  const fc::AppModel back =
      colltune::parse_app_model(colltune::emit_app_model(m, "test"), "back.yaml");
  EXPECT_DOUBLE_EQ(fc::simulate_app(back, &b.plat, {}, o).seconds, t0);
  double ends[4];
  const fc::AppModel each = model(
      "groups:\n  - {label: a, count: 1}\n  - {label: b, count: 1}\n"
      "  - {label: c, count: 1}\n  - {label: d, count: 1}\n"
      "blocks:\n  - exchange: {root: 1, count: 4, bytes: 100000}\n");
  const fc::AppResult e = fc::simulate_app(each, &b.plat, {}, o);
  for (int i = 0; i < 4; ++i) ends[i] = e.groups[i].end;
  EXPECT_DOUBLE_EQ(ends[2], t2);
  EXPECT_DOUBLE_EQ(ends[3], t3);
  EXPECT_DOUBLE_EQ(ends[0], t0);
  EXPECT_DOUBLE_EQ(ends[1], t0);
  // Eager: each side pays its own send and waits for the other's message.
  const fc::AppModel two = model(
      "groups:\n  - {label: a, count: 1}\n  - {label: b, count: 1}\n"
      "blocks:\n  - exchange: {count: 1, bytes: 1000}\n");
  o.processes = 2, o.eager = 1e9;
  const fc::AppResult g = fc::simulate_app(two, &b.plat, {}, o);
  const double own0 = b.g.send_fixed[0] + b.g.send_per_byte[0] * 1000;
  const double own1 = b.g.send_fixed[1] + b.g.send_per_byte[1] * 1000;
  EXPECT_DOUBLE_EQ(g.groups[0].end, std::max(own0, b.T(1, 0, 1000)));
  EXPECT_DOUBLE_EQ(g.groups[1].end, std::max(own1, b.T(0, 1, 1000)));
  const fc::AppModel bad =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - exchange: {count: 0 - 1, bytes: 8}\n");
  try {
    fc::simulate_app(bad, &b.plat, {}, o);
    FAIL() << "count -1 accepted";
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("exchange: count -1"), std::string::npos) << ex.what();
  }
}

TEST(App, CommunicatorsOfPartOfTheMembersRunApart) {
  Bed b;
  fc::AppOptions o;
  o.processes = 4, o.per_node = 1;  // ranks 0-3 on h0-h3; rendezvous
  // Rank 3 alone computes 1 s; then two rings, one per column of a 2 x 2 grid (colour: the
  // member's index mod 2), each from its second member: 2 -> 0 and 3 -> 1. Only the second
  // waits for the late rank.
  const fc::AppModel m = model(
      "groups:\n  - {label: w, count: P}\n"
      "blocks:\n"
      "  - compute: {seconds: 1, comm: \"member == 3 ? 0 : 0 - 1\"}\n"
      "  - ring: {bytes: 100000, root: 1, comm: member - 2 * floor(member / 2)}\n");
  const auto ends = [&](const fc::AppModel& x) {
    fc::AppModel each = x;  // one group per rank, to read each rank's end
    each.groups.clear();
    for (const char* l : {"a", "b", "c", "d"}) each.groups.push_back({l, fc::Expr("1"), {}});
    const fc::AppResult r = fc::simulate_app(each, &b.plat, {}, o);
    return std::vector<double>{r.groups[0].end, r.groups[1].end, r.groups[2].end, r.groups[3].end};
  };
  const std::vector<double> e = ends(m);
  EXPECT_DOUBLE_EQ(e[0], b.T(2, 0, 1e5));
  EXPECT_DOUBLE_EQ(e[2], b.T(2, 0, 1e5));
  EXPECT_DOUBLE_EQ(e[1], 1 + b.T(3, 1, 1e5));
  EXPECT_DOUBLE_EQ(e[3], 1 + b.T(3, 1, 1e5));
  // Written out, it reads back the same.
  const fc::AppModel back =
      colltune::parse_app_model(colltune::emit_app_model(m, "test"), "back.yaml");
  EXPECT_EQ(ends(back), e);
  // Rows: member i exchanges with i + 1 within its row only (no 1 <-> 2), and a row's barrier
  // does not wait for the other row's late rank.
  const fc::AppModel rows = model(
      "groups:\n  - {label: w, count: P}\n"
      "blocks:\n"
      "  - neighbours: {offsets: [1], bytes: 100000, comm: floor(member / 2)}\n"
      "  - compute: {seconds: 1, comm: \"member == 3 ? 0 : 0 - 1\"}\n"
      "  - barrier: {comm: floor(member / 2)}\n");
  const std::vector<double> r = ends(rows);
  const fc::PairCost T01 = [&](int x, int y, double n) { return b.T(x, y, n); };
  const fc::PairCost T23 = [&](int x, int y, double n) { return b.T(x + 2, y + 2, n); };
  EXPECT_DOUBLE_EQ(r[0], b.T(0, 1, 1e5) + fc::mpich_barrier(2, T01));
  EXPECT_DOUBLE_EQ(r[1], r[0]);
  EXPECT_DOUBLE_EQ(r[2], 1 + b.T(2, 3, 1e5) + fc::mpich_barrier(2, T23));
  EXPECT_DOUBLE_EQ(r[3], r[2]);
  // A colour that is not a whole number names the block; `member` is no other name.
  const fc::AppModel half =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - barrier: {comm: member / 2}\n");
  try {
    fc::simulate_app(half, &b.plat, {}, o);
    FAIL() << "colour 0.5 accepted";
  } catch (const std::invalid_argument& x) {
    EXPECT_NE(std::string(x.what()).find("comm 0.5"), std::string::npos) << x.what();
  }
  EXPECT_NE(error("groups:\n  - {label: w, count: P}\nblocks:\n  - bcast: {bytes: member}\n")
                .find("unknown name 'member'"),
            std::string::npos);
  EXPECT_NE(error("vars: {member: 1}\ngroups:\n  - {label: w, count: P}\nblocks: []\n")
                .find("not P or member"),
            std::string::npos);
  EXPECT_NE(error("groups:\n  - {label: w, count: P}\nblocks:\n"
                  "  - send: {from: w, to: w, bytes: 1, comm: 0}\n")
                .find("comm"),
            std::string::npos);
}

TEST(App, SmallBroadcastsAndReductionsAsTheirBinomialMessages) {
  // As the replay (Replay.SmallBroadcastsAndReductionsAsTheirBinomialMessages): ranks 0-3 on
  // h0-h3, eager, MPICH's binomial tree: 0 sends to 2 then 1, 2 forwards to 3.
  Bed b;
  fc::AppOptions o;
  o.processes = 4, o.per_node = 1, o.eager = 1e9, o.native = true;
  fc::AppModel m = model("groups:\n  - {label: w, count: P}\nblocks:\n  - bcast: {bytes: 16}\n");
  m.groups.clear();
  for (const char* l : {"a", "b", "c", "d"}) m.groups.push_back({l, fc::Expr("1"), {}});
  const fc::AppResult r = fc::simulate_app(m, &b.plat, {}, o);
  const auto own = [&](int x, double n) { return b.g.send_fixed[x] + b.g.send_per_byte[x] * n; };
  const double at2 = b.T(0, 2, 16), second = std::max(own(0, 16), b.g.port[0] * 16);
  EXPECT_DOUBLE_EQ(r.groups[0].end, 2 * own(0, 16));
  EXPECT_DOUBLE_EQ(r.groups[2].end, at2 + own(2, 16));
  EXPECT_DOUBLE_EQ(r.groups[3].end, at2 + b.T(2, 3, 16));
  EXPECT_DOUBLE_EQ(r.groups[1].end, second + b.T(0, 1, 16));
  // A reduction of 8 bytes to 0: 1's message, then 2's once 2 has 3's.
  fc::AppModel red = m;
  red.blocks = model("groups:\n  - {label: w, count: P}\nblocks:\n  - reduce: {bytes: 8}\n").blocks;
  const fc::AppResult d = fc::simulate_app(red, &b.plat, {}, o);
  const double want0 = std::max(b.T(1, 0, 8), b.T(3, 2, 8) + b.T(2, 0, 8));
  EXPECT_NEAR(d.groups[0].end, want0, 1e-9 * want0);
  EXPECT_DOUBLE_EQ(d.groups[2].end, b.T(3, 2, 8) + own(2, 8));
  // MPICH's bcast of 12288 bytes or more: binomial below 8 processes, else its scatter and
  // allgather, priced as one collective that every member leaves at once.
  fc::AppModel big = m;
  big.blocks =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - bcast: {bytes: 20000}\n").blocks;
  const fc::AppResult g4 = fc::simulate_app(big, &b.plat, {}, o);
  EXPECT_DOUBLE_EQ(g4.groups[3].end, b.T(0, 2, 20000) + b.T(2, 3, 20000));
  big.groups.clear();
  for (const char* l : {"a", "b", "c", "d", "e", "f", "g", "h"})
    big.groups.push_back({l, fc::Expr("1"), {}});
  o.processes = 8;
  const fc::AppResult g8 = fc::simulate_app(big, &b.plat, {}, o);
  EXPECT_EQ(g8.groups[0].end, g8.groups[7].end);
}

TEST(App, MpichCollectivesRoundByRound) {
  // Every message costs 1 + m: the rounds alone decide.
  const fc::PairCost T = [](int, int, double m) { return 1 + m; };
  EXPECT_DOUBLE_EQ(fc::mpich_barrier(5, T), 3);                   // ceil(log2 5) empty rounds
  EXPECT_DOUBLE_EQ(fc::mpich_reduce(8, 10, T), 3 * 11);           // binomial
  EXPECT_DOUBLE_EQ(fc::mpich_allreduce(6, 8, T), 2 * 9 + 2 * 9);  // fold, 2 rounds, unfold
  // Rabenseifner on 4: halving 4096 -> 2048 -> 1024, each round there and back.
  EXPECT_DOUBLE_EQ(fc::mpich_allreduce(4, 4096, T), 2 * 2049 + 2 * 1025);
  EXPECT_DOUBLE_EQ(fc::mpich_alltoall(4, 1000, T), 3 * 1001);  // pairwise, n - 1 rounds
  // Bruck on 8, 100 B: rounds 1, 2, 4 each carry the 4 destinations with that bit.
  EXPECT_DOUBLE_EQ(fc::mpich_alltoall(8, 100, T), 3 * 401);
}

TEST(App, NodesBeyondTheTableRepeatItsIdentitiesOnTheirFastestLink) {
  Bed b;
  const fc::AppModel m = model(
      "groups:\n  - {label: w, count: P}\nblocks:\n  - neighbours: {offsets: [8], bytes: 0}\n");
  fc::AppOptions o;
  o.processes = 16, o.per_node = 1;  // rank 8 on the second node of h0's kind
  const fc::AppResult r = fc::simulate_app(m, &b.plat, {}, o);
  const auto& p = b.t.platform_model->params;
  // Two nodes of h0's kind: h0's fastest link (its port bounds every link it has), not the mean.
  double mean = 0, fastest = 1;
  for (int j = 1; j < 8; ++j) mean += p.ib(0, j) / 7, fastest = std::min(fastest, p.ib(0, j));
  const double expected = std::max({2 * p.t[0].value + fastest, p.u(0), p.u_in(0)});
  ASSERT_GT(std::max({2 * p.t[0].value + mean, p.u(0), p.u_in(0)}), expected * 1.1);
  EXPECT_GT(r.seconds, 0);
  const fc::LinkGraph& g = b.plat.links();
  EXPECT_DOUBLE_EQ(g.fixed[0 * 16 + 8], p.C[0].value * 2);
  EXPECT_NEAR(g.per_byte[0 * 16 + 8], expected, 1e-18);
  // A table of one host cannot place processes on two nodes.
  colltune::ModelTable one = b.t;
  auto pm = std::make_shared<colltune::model::PlatformModel>(*b.t.platform_model);
  pm->identities.resize(1);
  pm->params.C.resize(1), pm->params.t.resize(1);
  pm->params.inv_beta.resize(1);
  fc::AppPlatform single(*pm, b.g);
  o.processes = 2;
  EXPECT_THROW(fc::simulate_app(m, &single, {}, o), std::invalid_argument);
}

TEST(App, NodesBeyondTheTableKeepTheLinksMeasuredAgain) {
  // h0-h1 measured again (a links file): 7e-4 s fixed, 1e-6 s/B above 3000 B. On 16 nodes, rank
  // 0 (h0's first node) and rank 9 (h1's second) are joined by that link: 1000 B take 7e-4 s,
  // 10000 B 7e-4 + 7000 * 1e-6 s.
  Bed b;
  fc::LinkMeasurement l{"h0", "h1", 7e-4, 1e-6, 0, 65536, 0};
  l.free_bytes = 3000;
  l.small_bytes = 16384;
  ASSERT_EQ(fc::apply(b.g, std::span(&l, 1)), 1);
  fc::AppOptions o;
  o.processes = 16, o.per_node = 1;
  const fc::AppModel m = model(
      "groups:\n  - {label: w, count: P}\nblocks:\n  - neighbours: {offsets: [8], bytes: 0}\n");
  fc::simulate_app(m, &b.plat, {}, o);
  const fc::LinkGraph& g = b.plat.links();
  ASSERT_EQ(g.size(), 16);
  EXPECT_EQ(g.time(0 * 16 + 9, 1000), 7e-4);
  EXPECT_DOUBLE_EQ(g.time(9 * 16 + 0, 10000), 7e-4 + 7000 * 1e-6);
  EXPECT_EQ(g.free_bytes(0 * 16 + 2), 0);  // h0-h2: as calibrated
}

TEST(App, EnergyFromThePowerSegmentsAndTheChanceOfFinishing) {
  const fc::NodeSpec n = galera();
  // 2 nodes x 3 processes, all busy (one thread each, MPICH polls) until the end: pw(3) each.
  const fc::AppModel m =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - compute: {seconds: 2}\n");
  fc::AppOptions o;
  o.processes = 6, o.per_node = 3, o.merpsys = true;
  fc::AppResult r = fc::simulate_app(m, nullptr, n, o);
  EXPECT_NEAR(r.energy, 2 * 2 * (78 + 4.84 * 3), 1e-6);
  EXPECT_NEAR(r.success, std::exp(-5.03372e-10 * 2 * 2), 1e-15);
  // One process per node, 20 threads for 1 s, then 1 s of one: pw(20) + pw(1) per node.
  const fc::AppModel t = model(
      "groups:\n  - {label: w, count: P}\nblocks:\n"
      "  - compute: {seconds: 1, threads: 20}\n  - compute: {seconds: 1}\n");
  o.processes = 2, o.per_node = 1;
  r = fc::simulate_app(t, nullptr, n, o);
  EXPECT_NEAR(r.energy, 2 * ((109 + 1.90 * 20) + (78 + 4.84)), 1e-6);
  // Blocking waits (no polling): a node whose process finished early draws pw(0) after.
  const fc::AppModel idle = model(
      "groups:\n  - {label: a, count: 1}\n  - {label: b, count: 1}\nblocks:\n"
      "  - compute: {seconds: 1, groups: [a]}\n  - compute: {seconds: 3, groups: [b]}\n");
  o.busy_wait = false;
  r = fc::simulate_app(idle, nullptr, n, o);
  EXPECT_NEAR(r.energy, (1 * (78 + 4.84) + 2 * 78) + 3 * (78 + 4.84), 1e-6);
}

TEST(App, ExpectedTimeWithFailures) {
  // lambda nodes T = 1: (e - 1) / (lambda nodes).
  EXPECT_NEAR(fc::expected_from_scratch(100, 0.001, 10), (std::exp(1) - 1) * 100, 1e-9);
  EXPECT_DOUBLE_EQ(fc::expected_from_scratch(100, 0, 10), 100);
  // Daly: M = 1000 s, C = 10 s: tau = sqrt(2 10 1000) - 10.
  EXPECT_NEAR(fc::daly_interval(1e-4, 10, 10), std::sqrt(20000) - 10, 1e-9);
  const double tau = 100;
  EXPECT_NEAR(fc::expected_with_checkpoints(5000, 1e-4, 10, 10, tau),
              1000 * std::exp(0.01) * std::expm1(0.11) * 50, 1e-6);
}

TEST(App, ExpectedTimesMatchASimulationOfTheFailuresTheyModel) {
  // The processes the formulas describe, simulated here with exponential failures (rate
  // lambda nodes): from scratch, a run of T restarts after each failure; with checkpoints, each
  // segment of tau work and C checkpoint runs again after a failure and a restart of C (which a
  // failure can interrupt too). Mean of n runs against the formula, within 4 standard errors.
  std::mt19937_64 rng(20261129);
  const double lambda = 1e-3, rate = lambda * 4;
  std::exponential_distribution<double> fail(rate);
  const auto mean_se = [](const std::vector<double>& x) {
    double m = 0, v = 0;
    for (const double y : x) m += y;
    m /= x.size();
    for (const double y : x) v += (y - m) * (y - m);
    return std::pair{m, std::sqrt(v / (x.size() - 1) / x.size())};
  };
  const auto through = [&](double length) {  // one stretch that a failure sends back to its start
    double t = 0;
    for (double f = fail(rng); f < length; f = fail(rng)) t += f;
    return t + length;
  };
  const int n = 100000;
  std::vector<double> scratch(n), ckpt(n);
  const double T = 200, C = 10, tau = 100, T2 = 1000;
  for (int i = 0; i < n; ++i) {
    scratch[i] = through(T);
    double t = 0;
    for (int seg = 0; seg < T2 / tau; ++seg) {
      double f = fail(rng);
      while (f < tau + C) {  // failed: the time lost, a restart, the segment again
        t += f + through(C);
        f = fail(rng);
      }
      t += tau + C;
    }
    ckpt[i] = t;
  }
  const auto [ms, ss] = mean_se(scratch);
  EXPECT_NEAR(fc::expected_from_scratch(T, lambda, 4), ms, 4 * ss);
  const auto [mc, sc] = mean_se(ckpt);
  EXPECT_NEAR(fc::expected_with_checkpoints(T2, lambda, 4, C, tau), mc, 4 * sc);
  EXPECT_GT(ms, 1.2 * T);  // failures matter at these rates
  EXPECT_GT(mc, 1.3 * T2);
}

TEST(App, OsNoiseStretchesComputeByTheTracesLostShare) {
  // 10 of every 100 cycles lost: 1e6 cycles of work take 1e6 / 0.9, to within one event.
  colltune::jitter::Trace tr;
  tr.header.hz = 1e9;
  tr.jitter = {10};
  tr.gap = {90};
  const colltune::jitter::Timeline tl(tr);
  const fc::AppModel m =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - compute: {seconds: 1e-3}\n");
  fc::AppOptions o;
  o.processes = 3, o.per_node = 1, o.merpsys = true, o.noise = &tl, o.hz = 1e9;
  const fc::AppResult r = fc::simulate_app(m, nullptr, galera(), o);
  EXPECT_NEAR(r.seconds, 1e-3 / 0.9, 20e-9);
}

TEST(App, AComputeBlocksRateFollowsItsWorkingSet) {
  // Rates 1e9 flops/s at 1e8 bytes and 4e9 at 1e6 (given in that order): 1e9 flops take 0.25 s
  // at or below 1e6 bytes, 1 s at or above 1e8, and at 1e7, half way in log, half of each
  // time per flop: 0.5 / 4e9 + 0.5 / 1e9 = 0.625e-9 s a flop. No working set: the first rate.
  const fc::AppModel m = model(
      "vars: {W: 1}\ngroups:\n  - {label: w, count: P}\nblocks:\n"
      "  - compute: {flops: 1e9, working_set: W}\n");
  const fc::AppModel plain =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - compute: {flops: 1e9}\n");
  fc::AppOptions o;
  o.processes = 2, o.merpsys = true;
  o.flops_rate = fc::parse_rate("1e9@1e8,4e9@1e6", "--flops-rate");
  const auto at = [&](double w) {
    o.vars["W"] = w;
    return fc::simulate_app(m, nullptr, galera(), o).seconds;
  };
  EXPECT_NEAR(at(1e5), 0.25, 1e-12);
  EXPECT_NEAR(at(1e6), 0.25, 1e-12);
  EXPECT_NEAR(at(1e7), 0.625, 1e-12);
  EXPECT_NEAR(at(1e8), 1.0, 1e-12);
  EXPECT_NEAR(at(1e10), 1.0, 1e-12);
  o.vars.clear();
  EXPECT_NEAR(fc::simulate_app(plain, nullptr, galera(), o).seconds, 1.0, 1e-12);
  o.flops_rate = fc::parse_rate("2e9", "--flops-rate");
  EXPECT_NEAR(fc::simulate_app(plain, nullptr, galera(), o).seconds, 0.5, 1e-12);
  for (const char* bad : {"1e9,2e9@5", "abc", "1e9@1e6,2e9@1e6", "0", "1e9@", "1e9@-4", ""}) {
    EXPECT_THROW(fc::parse_rate(bad, "--flops-rate"), std::invalid_argument) << bad;
  }
  EXPECT_NE(error("groups:\n  - {label: w, count: P}\nblocks:\n"
                  "  - compute: {seconds: 1, working_set: 8}\n")
                .find("test.yaml:5: blocks[0].compute.working_set: needs flops"),
            std::string::npos);
}

TEST(App, BadValuesNameTheBlockLine) {
  const fc::AppModel m =
      model("groups:\n  - {label: w, count: P / 2}\nblocks:\n  - bcast: {bytes: 8, root: P}\n");
  fc::AppOptions o;
  o.processes = 3, o.merpsys = true;
  try {
    fc::simulate_app(m, nullptr, galera(), o);
    FAIL() << "3 / 2 processes accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("whole number"), std::string::npos) << e.what();
  }
  o.processes = 4;
  const fc::AppModel full =
      model("groups:\n  - {label: w, count: P}\nblocks:\n  - bcast: {bytes: 8, root: P}\n");
  try {
    fc::simulate_app(full, nullptr, galera(), o);
    FAIL() << "root P accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 5: bcast: root 4 (valid: 0 to 3"), std::string::npos)
        << e.what();
  }
}

}  // namespace

namespace {

TEST(MerpsysFit, ANegativeCoefficientIsHeldAtZero) {
  // Reads of 1, 2, 3 KiB in 1, 3, 5 us: the least-squares line is -1 us + 2 us/KiB, which prices
  // a small read below 0. Held at T = 0: K = sum x y / sum x^2 = 22 / 14 us/KiB (sum of squares
  // 0.43 us^2, against 8 for the flat line at 3 us).
  const double us = 1e-6;
  std::vector<fc::BlockSample> s;
  for (const double k : {1.0, 2.0, 3.0}) s.push_back({"read", 1, 1024 * k, 1, (2 * k - 1) * us});
  const fc::MerpsysFit f = fc::fit_merpsys(s, 1024, 2, 2);
  EXPECT_EQ(f.blocks.at("read").held, "T");
  EXPECT_DOUBLE_EQ(f.coefficients.read.T, 0);
  EXPECT_NEAR(f.coefficients.read.K, 22.0 / 14 / 1024 * us, 1e-18);
  // Times that fall as the size grows: K held at 0, T their mean.
  s = {{"write", 1, 1024, 1, 5 * us}, {"write", 1, 2048, 1, 4 * us}, {"write", 1, 3072, 1, 3 * us}};
  const fc::MerpsysFit g = fc::fit_merpsys(s, 1024, 2, 2);
  EXPECT_EQ(g.blocks.at("write").held, "K");
  EXPECT_DOUBLE_EQ(g.coefficients.write.K, 0);
  EXPECT_NEAR(g.coefficients.write.T, 4 * us, 1e-15);
  EXPECT_TRUE(std::isnan(g.blocks.at("write").r2));  // a flat line explains nothing
}

TEST(MerpsysFit, RecoversTheFormulasFromExactSamplesAndSaysWhatItCouldNotFit) {
  const double us = 1e-6;
  std::vector<fc::BlockSample> s;
  // bcast: T 2 us, K 0.001 us/B, on P 2, 4, 8 and sizes that round up to D_tu = 1024.
  for (const double P : {2.0, 4.0, 8.0}) {
    for (const double d : {100.0, 3000.0, 70000.0}) {
      const double D = std::ceil(d / 1024) * 1024;
      s.push_back({"bcast", P, d, 1, (2 + 0.001 * D * std::log2(P)) * us});
      s.push_back({"p2p", P, d, 1, (5 + 0.0005 * D) * us});
    }
  }
  for (const double d : {4096.0, 65536.0, 1048576.0}) {  // a disk: 100 us + 0.0004 us/B
    s.push_back({"read", 1, d, 1, (100 + 0.0004 * d) * us});
  }
  s.push_back({"barrier", 4, 0, 1, 9 * us});  // one P: T alone
  s.push_back({"barrier", 4, 0, 1, 11 * us});
  // compute on 2 cores (P_low = P_hi = 2): 1 ns an instruction up to 2 threads, then 0.5 + 0.25 p.
  for (const double p : {1.0, 2.0, 3.0, 4.0}) {
    const double per = p <= 2 ? 1e-9 : (0.5 + 0.25 * p) * 1e-9;
    s.push_back({"compute", 1, 1e7, p, per * 1e7});
  }
  const fc::MerpsysFit f = fc::fit_merpsys(s, 1024, 2, 2);
  EXPECT_NEAR(f.coefficients.bcast.T, 2 * us, 1e-12);
  EXPECT_NEAR(f.coefficients.bcast.K, 0.001 * us, 1e-15);
  EXPECT_NEAR(f.blocks.at("bcast").r2, 1, 1e-9);
  EXPECT_FALSE(f.blocks.at("bcast").mpe);
  EXPECT_TRUE(f.blocks.at("p2p").mpe);
  EXPECT_NEAR(f.coefficients.p2p.K, 0.0005 * us, 1e-15);
  EXPECT_FALSE(f.blocks.at("barrier").slope);
  EXPECT_NEAR(f.coefficients.read.T, 100 * us, 1e-12);
  EXPECT_NEAR(f.coefficients.read.K, 0.0004 * us, 1e-16);
  EXPECT_FALSE(f.coefficients.write.given());  // not measured: none
  // MPE weights 1/y^2: the mean of 9 and 11 weighted so.
  const double w9 = 1 / 81.0, w11 = 1 / 121.0;
  EXPECT_NEAR(f.coefficients.barrier.T, (w9 * 9 + w11 * 11) / (w9 + w11) * us, 1e-12);
  EXPECT_NEAR(f.coefficients.T_min, 1e-9, 1e-20);
  EXPECT_NEAR(f.coefficients.T_hi, 0.5e-9, 1e-18);
  EXPECT_NEAR(f.coefficients.K_hi, 0.25e-9, 1e-18);
  EXPECT_NEAR(f.blocks.at("compute").r2, 1, 1e-9);
  // The fit written as a node file reads back to the same coefficients.
  fc::NodeSpec n;
  n.merpsys = f.coefficients;
  const fc::NodeSpec back =
      colltune::parse_node_spec(colltune::emit_node_spec(n, "a test"), "fit.yaml");
  EXPECT_NEAR(back.merpsys.bcast.K, f.coefficients.bcast.K, 1e-8 * f.coefficients.bcast.K);
  EXPECT_NEAR(back.merpsys.T_hi, f.coefficients.T_hi, 1e-8 * f.coefficients.T_hi);
  EXPECT_DOUBLE_EQ(back.merpsys.D_tu, 1024);
  // Noise lowers r^2 below 1.
  s.push_back({"bcast", 8, 70000, 1, 1e-3});
  EXPECT_LT(fc::fit_merpsys(s, 1024, 2, 2).blocks.at("bcast").r2, 0.99);
  EXPECT_THROW(fc::fit_merpsys({{"bcast", 2, 8, 1, 0}}, 1024, 2, 2), std::invalid_argument);
}

}  // namespace

namespace {

std::vector<std::vector<fc::TraceAction>> traces(const std::vector<std::string>& texts) {
  std::vector<std::vector<fc::TraceAction>> t;
  for (std::size_t r = 0; r < texts.size(); ++r) {
    t.push_back(fc::parse_trace(texts[r], static_cast<int>(r)));
  }
  return t;
}

TEST(App, TraceToModelFoldsAJacobiRunIntoNestedLoops) {
  // 3 ranks, 8 iterations: send down, receive from above, 1 ms of work; allreduce every 2
  // (every inner loop must form before the outer one: one loop of 4, not loops of 2 in loops).
  std::vector<std::string> texts(3);
  for (int r = 0; r < 3; ++r) {
    for (int it = 0; it < 8; ++it) {
      std::string& t = texts[r];
      const std::string R = std::to_string(r);
      if (r + 1 < 3) t += R + " send " + std::to_string(r + 1) + " 1 8000\n";
      if (r > 0)
        t += R + " irecv " + std::to_string(r - 1) + " 1 8000\n" + R + " wait " +
             std::to_string(r - 1) + " " + R + " 1\n";
      t += R + " compute " + (it == 0 ? "1.1e6" : "1e6") + "\n";
      if (it % 2 == 1) t += R + " allreduce 8 0\n";
    }
  }
  const fc::AppModel m = fc::model_of_trace(traces(texts));
  ASSERT_EQ(m.groups.size(), 1u);
  EXPECT_EQ(m.groups[0].count.text(), "3");
  ASSERT_EQ(m.blocks.size(), 1u);
  const fc::Block& outer = m.blocks[0];
  EXPECT_EQ(outer.kind, fc::Block::kLoop);
  EXPECT_EQ(outer.count.text(), "4");
  ASSERT_EQ(outer.body.size(), 2u);
  const fc::Block& inner = outer.body[0];
  EXPECT_EQ(inner.kind, fc::Block::kLoop);
  EXPECT_EQ(inner.count.text(), "2");
  ASSERT_EQ(inner.body.size(), 2u);
  EXPECT_EQ(inner.body[0].kind, fc::Block::kNeighbours);
  ASSERT_EQ(inner.body[0].offsets.size(), 1u);
  EXPECT_EQ(inner.body[0].offsets[0].text(), "1");
  EXPECT_EQ(inner.body[0].bytes.text(), "8000");
  EXPECT_EQ(inner.body[1].kind, fc::Block::kCompute);
  EXPECT_NEAR(std::stod(inner.body[1].seconds.text()), 1.0125e-3, 1e-9);  // the 8 copies' mean
  EXPECT_EQ(outer.body[1].kind, fc::Block::kAllreduce);
  // Written out, it reads back and runs: 8 computations of the mean, in MERPSYS's costs with
  // no communication priced (zero coefficients).
  const std::string yaml = colltune::emit_app_model(m, "test");
  const fc::AppModel back = colltune::parse_app_model(yaml, "back.yaml");
  fc::NodeSpec zero;
  zero.merpsys.p2p = zero.merpsys.bcast = {0, 0};
  fc::AppOptions o;
  o.processes = 3, o.merpsys = true;
  EXPECT_NEAR(fc::simulate_app(back, nullptr, zero, o).seconds, 8 * 1.0125e-3, 1e-9);
}

TEST(App, TraceToModelGroupsTheMasterApartAndRefusesOtherPatterns) {
  std::vector<std::string> texts(3);
  for (int r = 0; r < 3; ++r) {
    for (int it = 0; it < 3; ++it) {
      const std::string R = std::to_string(r);
      texts[r] += R + " scatter 4096 4096 0\n";
      if (r > 0) texts[r] += R + " compute 2e6\n";
      texts[r] += R + " gather 512 512 0\n";
    }
  }
  const fc::AppModel m = fc::model_of_trace(traces(texts));
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.groups[0].count.text(), "1");
  EXPECT_EQ(m.groups[1].count.text(), "2");
  ASSERT_EQ(m.blocks.size(), 1u);
  EXPECT_EQ(m.blocks[0].count.text(), "3");
  ASSERT_EQ(m.blocks[0].body.size(), 3u);
  EXPECT_EQ(m.blocks[0].body[1].groups, std::vector<int>{1});
  // Ranks 0 and 1 both send to rank 2: offsets 2 and 1, but rank 0 sends nothing to rank 1.
  try {
    fc::model_of_trace(
        traces({"0 send 2 1 8\n", "1 send 2 1 8\n", "2 recv 0 1 8\n2 recv 1 1 8\n"}));
    FAIL() << "a fan-in taken for a neighbour exchange";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0, its item 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not send to rank 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fc::model_of_trace(traces({"0 barrier\n", "1 allreduce 8 0\n"})),
               std::invalid_argument);
}

}  // namespace

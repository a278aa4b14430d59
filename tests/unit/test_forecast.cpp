// Forecasts (src/forecast/): links as the model delivers them, FAST's combination of links no
// table measured, the output formats. Expected values are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "forecast/coll.hpp"
#include "forecast/comm.hpp"
#include "forecast/output.hpp"

using namespace colltune;
using namespace colltune::forecast;

namespace {

// A table of named identities, C = c[i] s, t = 0, 1/beta(i, j) = ib[i][j] s/B.
model::PlatformModel table(std::vector<std::string> ids, std::vector<double> c,
                           std::vector<std::vector<double>> ib) {
  model::PlatformModel pm;
  const int n = static_cast<int>(ids.size());
  pm.identities = std::move(ids);
  pm.params = model::LmoParams::uniform(n, 0, 0, 0);
  for (int i = 0; i < n; ++i) {
    pm.params.C[i].value = c[i];
    for (int j = 0; j < n; ++j) pm.params.inv_beta[i * n + j].value = ib[i][j];
  }
  return pm;
}

const std::vector<int> kTwoEach = {0, 0, 1, 1, 2, 2, 3, 3};

}  // namespace

TEST(Forecast, AMeasuredLinkIsTheModelsDelivery) {
  // C = 1e-6, 2e-6; t = 1e-9, 3e-9; 1/beta = 4e-9: fixed 3e-6, per byte 1e-9 + 4e-9 + 3e-9 =
  // 8e-9; with a sending port of 10e-9 s/B on identity 0 the port bounds instead (10e-9).
  model::PlatformModel pm = table({"a", "b"}, {1e-6, 2e-6}, {{4e-9, 4e-9}, {4e-9, 4e-9}});
  pm.params.t[0].value = 1e-9;
  pm.params.t[1].value = 3e-9;
  const std::vector<int> ranks = {0, 1};
  Link l = comm(graph_of(pm, ranks), 0, 1, 1000);
  EXPECT_EQ(l.source, LinkSource::kMeasured);
  EXPECT_DOUBLE_EQ(l.fixed, 3e-6);
  EXPECT_DOUBLE_EQ(l.per_byte, 8e-9);
  EXPECT_DOUBLE_EQ(l.at(1000), 3e-6 + 8e-6);
  pm.params.port.assign(2, {});
  pm.params.port[0].value = 10e-9;
  l = comm(graph_of(pm, ranks), 0, 1, 1000);
  EXPECT_DOUBLE_EQ(l.per_byte, 10e-9);
  // The other way the port is the receiver's outgoing one: not in the path.
  EXPECT_DOUBLE_EQ(comm(graph_of(pm, ranks), 1, 0, 1000).per_byte, 8e-9);
}

TEST(Forecast, AnIdentitysOwnLinkIsMeasuredOnlyWithTwoProcesses) {
  const model::PlatformModel pm = table({"a", "b"}, {1e-6, 1e-6}, {{1e-9, 2e-9}, {2e-9, 5e-9}});
  const std::vector<int> one_each = {0, 1}, two_of_b = {0, 1, 1};
  EXPECT_EQ(comm(graph_of(pm, one_each), 1, 1, 10).source, LinkSource::kFilled);
  EXPECT_EQ(comm(graph_of(pm, two_of_b), 1, 1, 10).source, LinkSource::kMeasured);
  // A filled link is never combined through another identity: its own (filled) value.
  EXPECT_DOUBLE_EQ(comm(graph_of(pm, one_each), 1, 1, 10).per_byte, 5e-9);
}

TEST(Forecast, TablesCalibratedApartCombineAlongTheFastestPathAtEachSize) {
  // Table 1: a, g1, g2; table 2: g1, g2, b. a and b never met. Hops (fixed = C_i + C_j,
  // per byte = 1/beta, t = 0), C: a 1, g1 1, g2 10, b 1 (us):
  //   a-g1: 2 us, 10 ns/B   g1-b: 2 us, 10 ns/B      via g1: 4 us + 10 ns/B
  //   a-g2: 11 us, 1 ns/B   g2-b: 11 us, 1 ns/B      via g2: 22 us + 1 ns/B
  //   g1-g2: 11 us, 1 ns/B (in both tables)
  // a>g1>b wins below (22 - 4) us / 9 ns/B = 2000 B, a>g2>b above; a>g1>g2>b (24 us, 10 ns/B)
  // never.
  const double us = 1e-6, ns = 1e-9;
  const model::PlatformModel t1 =
      table({"a", "g1", "g2"}, {1 * us, 1 * us, 10 * us},
            {{0, 10 * ns, 1 * ns}, {10 * ns, 0, 1 * ns}, {1 * ns, 1 * ns, 0}});
  const model::PlatformModel t2 =
      table({"g1", "g2", "b"}, {1 * us, 10 * us, 1 * us},
            {{0, 1 * ns, 10 * ns}, {1 * ns, 0, 1 * ns}, {10 * ns, 1 * ns, 0}});
  const std::vector<LinkGraph> both = {graph_of(t1, std::vector<int>{0, 1, 2}),
                                       graph_of(t2, std::vector<int>{0, 1, 2})};
  const LinkGraph g = merge(both);
  ASSERT_EQ(g.identities, (std::vector<std::string>{"a", "g1", "g2", "b"}));
  const int a = g.find("a"), b = g.find("b"), g1 = g.find("g1"), g2 = g.find("g2");
  Link small = comm(g, a, b, 1000);
  EXPECT_EQ(small.source, LinkSource::kCombined);
  EXPECT_EQ(small.path, (std::vector<int>{a, g1, b}));
  EXPECT_NEAR(small.fixed, 4 * us, 1e-15);
  EXPECT_NEAR(small.per_byte, 10 * ns, 1e-18);
  Link large = comm(g, a, b, 3000);
  EXPECT_EQ(large.path, (std::vector<int>{a, g2, b}));
  EXPECT_NEAR(large.fixed, 22 * us, 1e-15);
  EXPECT_NEAR(large.per_byte, 1 * ns, 1e-18);
  EXPECT_EQ(comm(g, a, b, 0).path, (std::vector<int>{a, g1, b}));  // latency alone
  // A link one table measured stays as measured.
  EXPECT_EQ(comm(g, g1, g2, 1000).source, LinkSource::kMeasured);
  EXPECT_NEAR(comm(g, g1, g2, 1000).fixed, 11 * us, 1e-15);
}

TEST(Forecast, NoMeasuredPathIsSaid) {
  const model::PlatformModel t1 = table({"a", "b"}, {1e-6, 1e-6}, {{0, 1e-9}, {1e-9, 0}});
  const model::PlatformModel t2 = table({"c", "d"}, {1e-6, 1e-6}, {{0, 1e-9}, {1e-9, 0}});
  const std::vector<LinkGraph> both = {graph_of(t1, kTwoEach), graph_of(t2, kTwoEach)};
  const LinkGraph g = merge(both);
  EXPECT_EQ(comm(g, g.find("a"), g.find("d"), 100).source, LinkSource::kNone);
  EXPECT_EQ(comm(g, g.find("a"), g.find("b"), 100).source, LinkSource::kMeasured);
}

TEST(Forecast, OutputQuotesCsvAndEscapesJson) {
  const std::vector<std::vector<Cell>> rows = {{text("a,b"), number(1.5), boolean(true)},
                                               {text("say \"x\""), number(2e-9), boolean(false)}};
  EXPECT_EQ(render({"name", "s", "ok"}, rows, Format::kCsv),
            "name,s,ok\n\"a,b\",1.5,true\n\"say \"\"x\"\"\",2e-09,false\n");
  EXPECT_EQ(render({"name", "s", "ok"}, rows, Format::kJson),
            "[\n {\"name\": \"a,b\", \"s\": 1.5, \"ok\": true},\n"
            " {\"name\": \"say \\\"x\\\"\", \"s\": 2e-09, \"ok\": false}\n]\n");
  EXPECT_EQ(render({"name", "s"}, {{text("x"), number(10)}}, Format::kTable),
            "name   s\nx     10\n");
  EXPECT_EQ(render({"a"}, {}, Format::kJson), "[]\n");
}

TEST(Forecast, CollRowsAreTheDecisionsCandidatesOrOneAlgorithm) {
  // Four identities, two calibrated processes each: native, linear, binomial and ecef are the
  // bcast candidates of a table without built sweeps (chain is not `decided`: absent).
  const model::PlatformModel pm =
      table({"a", "b", "c", "d"}, {1e-6, 2e-6, 3e-6, 4e-6},
            std::vector<std::vector<double>>(4, std::vector<double>(4, 1e-9)));
  const std::vector<double> sizes = {100, 1e6};
  const auto rows = coll(pm, Op::kBcast, kTwoEach, 0, sizes);
  std::vector<std::string> names;
  int picked = 0;
  for (const CollRow& r : rows) {
    if (r.bytes == 100) names.emplace_back(r.algorithm->name);
    picked += r.picked;
    EXPECT_GT(r.seconds, 0);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"native", "linear", "binomial", "ecef"}));
  EXPECT_EQ(picked, 2);  // one per size
  const Algorithm* chain = nullptr;
  for (const Algorithm* a : algorithms_of(Op::kBcast)) {
    if (a->name == "chain") chain = a;
  }
  ASSERT_NE(chain, nullptr);
  const auto only = coll(pm, Op::kBcast, kTwoEach, 0, sizes, chain);
  ASSERT_EQ(only.size(), 2u);
  EXPECT_EQ(only[0].algorithm, chain);
  EXPECT_FALSE(only[0].picked);  // never a candidate here
}

// Forecasts (src/forecast/): links as the model delivers them, FAST's combination of links no
// table measured, the output formats. Expected values are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "forecast/clocks.hpp"
#include "forecast/coll.hpp"
#include "forecast/comm.hpp"
#include "forecast/comp.hpp"
#include "forecast/comp_yaml.hpp"
#include "forecast/output.hpp"
#include "forecast/regression.hpp"
#include "forecast/routine.hpp"
#include "table/yaml_util.hpp"

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
  std::vector<std::string> decided;  // the registry's candidates (no sweeps in this table)
  for (const Algorithm* a : candidates_of(Op::kBcast)) decided.emplace_back(a->name);
  EXPECT_EQ(names, decided);
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

// Found on a hetero16 table: at 90000 B (decided at the grid size 65536, where calibration
// validated chain) the library runs chain, but chain had no row there (not validated beyond
// 65536 B), so `coll` showed no pick at all.
TEST(Forecast, CollShowsThePickWhereItsGridSizeWasValidated) {
  model::PlatformModel pm =
      table({"a", "b", "c", "d"}, {1e-6, 2e-6, 3e-6, 4e-6},
            std::vector<std::vector<double>>(4, std::vector<double>(4, 1e-9)));
  pm.correction[static_cast<int>(Op::kBcast)]["chain"] = model::Curve{{1024, 32768}, {0.01, 0.01}};
  const std::vector<double> sizes = {60000, 90000};
  int picked = 0;
  for (const CollRow& r : coll(pm, Op::kBcast, kTwoEach, 0, sizes)) {
    if (r.picked) {
      ++picked;
      EXPECT_EQ(r.algorithm->name, "chain") << r.bytes;
    }
  }
  EXPECT_EQ(picked, 2);  // one per size
}

TEST(Forecast, MonomialsUpToADegree) {
  // 3 sizes, degree <= 3: C(3 + 3, 3) = 20 terms; 1 size, degree 2: 1, n, n^2.
  EXPECT_EQ(monomials(3, 3).size(), 20u);
  EXPECT_EQ(monomials(1, 2), (std::vector<std::vector<int>>{{0}, {1}, {2}}));
  EXPECT_EQ(monomials(2, 1), (std::vector<std::vector<int>>{{0, 0}, {1, 0}, {0, 1}}));
}

TEST(Forecast, RegressionRecoversAPolynomialAndChoosesItsDegree) {
  // Times of a dgemm-like kernel: 2 ns per multiply-add plus 3 us per call, at sizes of a
  // fixed plan; exact data: the degree-3 fit reproduces it (relative error ~0) and degree 3 is
  // chosen (degrees 1 and 2 cannot represent m n k).
  auto y = [](const std::vector<double>& x) { return 2e-9 * x[0] * x[1] * x[2] + 3e-6; };
  std::vector<Sample> train, held;
  const Plan p = plan(Kernel::kDgemm, false);
  for (const auto& x : p.train) train.push_back({x, y(x)});
  for (const auto& x : p.select) held.push_back({x, y(x)});
  const Polynomial f = fit_by_held_out(train, held, 3);
  EXPECT_EQ(f.degree, 3);
  EXPECT_LT(relative_error(f, held).max, 1e-6);
  EXPECT_NEAR(f.at({1000, 1000, 1000}), 2.000003, 1e-6);
  // Linear data (daxpy-like, 1 ns per element + 1 us): degree 1 is exact and chosen first.
  std::vector<Sample> t1, h1;
  const Plan q = plan(Kernel::kDaxpy, false);
  for (const auto& x : q.train) t1.push_back({x, 1e-9 * x[0] + 1e-6});
  for (const auto& x : q.select) h1.push_back({x, 1e-9 * x[0] + 1e-6});
  EXPECT_EQ(fit_by_held_out(t1, h1, 3).degree, 1);
}

TEST(Forecast, CompModelsJudgeTheirFitOnSizesNeverFitted) {
  // A synthetic timer: dgemm 1 ns per multiply-add, except 20% slower for sizes multiple of
  // 128 (which the plan fits none of, and validates every one of): the validation error
  // shows it (~0.2), the selection error does not.
  const auto timer = [](Kernel, const std::vector<double>& x) {
    const bool square = x[0] == x[1] && x[1] == x[2] && static_cast<int>(x[0]) % 128 == 0;
    return 1e-9 * x[0] * x[1] * x[2] * (square ? 1.2 : 1.0);
  };
  const CompModel m = benchmark({Kernel::kDgemm}, false, "h", "test", timer);
  ASSERT_EQ(m.kernels.size(), 1u);
  const KernelModel& k = m.kernels[0];
  EXPECT_EQ(k.validated.size(), 16u);  // 128 .. 2048 by 128
  EXPECT_LT(k.selection.max, 1e-6);
  EXPECT_NEAR(k.validation.mean, 0.2 / 1.2, 1e-3);  // |1 - 1.2| / 1.2
  // Forecast: time, operand memory 8 (mk + kn + mn), and whether it extrapolates.
  const CompForecast f = comp(m, Kernel::kDgemm, {100, 200, 300});
  EXPECT_NEAR(f.seconds, 1e-9 * 100 * 200 * 300, 1e-9);
  EXPECT_DOUBLE_EQ(f.bytes, 8.0 * (100 * 300 + 300 * 200 + 100 * 200));
  EXPECT_FALSE(f.outside);
  EXPECT_TRUE(comp(m, Kernel::kDgemm, {100, 200, 4096}).outside);
}

TEST(Forecast, CompModelSurvivesItsYamlAndBadFilesAreNamed) {
  const auto timer = [](Kernel k, const std::vector<double>& x) {
    return k == Kernel::kDaxpy ? 1e-9 * x[0] + 1e-6 : 1e-9 * x[0] * x[1] + 1e-6;
  };
  CompModel m = benchmark({Kernel::kAdd, Kernel::kDaxpy}, true, "h0", "test", timer);
  m.occupancy = 3;
  const CompModel back = parse_comp_model(emit_comp_model(m), "comp.yaml");
  ASSERT_EQ(back.kernels.size(), 2u);
  EXPECT_EQ(back.host, "h0");
  EXPECT_EQ(back.occupancy, 3);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.kernels[i].kernel, m.kernels[i].kernel);
    EXPECT_EQ(back.kernels[i].time.terms, m.kernels[i].time.terms);
    EXPECT_EQ(back.kernels[i].time.coef, m.kernels[i].time.coef);  // to the last bit
    EXPECT_EQ(back.kernels[i].validated.size(), m.kernels[i].validated.size());
  }
  auto error_of = [](const std::string& text) {
    try {
      parse_comp_model(text, "c.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error_of("colltune_comp: 2\nkernels: {}\n").find("c.yaml:1: colltune_comp: not a"),
            std::string::npos);
  EXPECT_NE(error_of("colltune_comp: 1\nkernels: {dgemv: {}}\n").find("valid: dgemm, dtrsm"),
            std::string::npos);
  EXPECT_NE(error_of("colltune_comp: 1\nkernels:\n  daxpy: {range: [1, 10], terms: [[0, 1]], "
                     "coef: [1]}\n")
                .find("kernels.daxpy.terms: each term needs 1 exponents (N)"),
            std::string::npos);
  EXPECT_NE(error_of("colltune_comp: 1\nkernels:\n  daxpy: {range: [1, 10], terms: [[0]], "
                     "coef: [x]}\n")
                .find("kernels.daxpy.coef: 'x' is not a finite number"),
            std::string::npos);
  EXPECT_NE(error_of("colltune_comp: 1\noccupancy: 0\nkernels: {}\n")
                .find("c.yaml:2: occupancy: '0' is not a whole number from 1 to 4096"),
            std::string::npos);
  EXPECT_EQ(parse_comp_model("colltune_comp: 1\nkernels: {}\n", "c.yaml").occupancy, 1);
}

namespace {

// A kernel of exactly 1 ns per unit of the monomial `term` of its sizes.
KernelModel one_ns(Kernel kernel, std::vector<int> term) {
  KernelModel k;
  k.kernel = kernel;
  k.time.terms = {std::move(term)};
  k.time.coef = {1e-9};
  k.time.degree = 3;
  k.lo = 1;
  k.hi = 1e6;
  return k;
}

// A computation model whose dgemm takes exactly 1 ns per multiply-add.
CompModel one_ns_dgemm() {
  CompModel m;
  m.kernels.push_back(one_ns(Kernel::kDgemm, {1, 1, 1}));
  return m;
}

// The same with a dtrsm of exactly 1 ns per M^2 N (M the triangle's order).
CompModel one_ns_kernels() {
  CompModel m = one_ns_dgemm();
  m.kernels.push_back(one_ns(Kernel::kDtrsm, {2, 1}));
  return m;
}

// The same with an add of exactly 1 ns per element.
CompModel one_ns_kernels_and_add() {
  CompModel m = one_ns_kernels();
  m.kernels.push_back(one_ns(Kernel::kAdd, {1, 1}));
  return m;
}

// op(A) X = B (M = N = 64, R = 32) on grid g (2 processes) of identities a and b, links of
// 2 us + 1 ns/B (every message rendezvous), the 1 ns kernels and add; modelled (checked).
RoutineForecast two_process_trsm(Trsm t, Grid g = Grid{2, 1}) {
  const model::PlatformModel pm = table({"a", "b"}, {1e-6, 1e-6}, {{1e-9, 1e-9}, {1e-9, 1e-9}});
  const std::vector<int> ranks = {0, 1};
  EXPECT_EQ(pdtrsm_unmodelled(g, t, 64, 64, 32), "");
  return pdtrsm(graph_of(pm, ranks), ranks, one_ns_kernels_and_add(), g, t, 64, 64, 32);
}

}  // namespace

TEST(Forecast, NumrocIsScalapacksLocalExtent) {
  // 100 rows in blocks of 32 on 3 processes: blocks 0, 1, 2 full on processes 0, 1, 2, the
  // 4-row remainder (block 3) on process 0.
  EXPECT_EQ(numroc(100, 32, 0, 3), 36);
  EXPECT_EQ(numroc(100, 32, 1, 3), 32);
  EXPECT_EQ(numroc(100, 32, 2, 3), 32);
  EXPECT_EQ(numroc(64, 32, 1, 4), 32);
  EXPECT_EQ(numroc(64, 32, 3, 4), 0);
}

TEST(Forecast, PdgemmOnOneProcessIsItsMultiplies) {
  // 1 x 1: no messages, one multiply of 100 x 100 x 100 (1 ms).
  const model::PlatformModel pm = table({"a"}, {1e-6}, {{1e-9}});
  const LinkGraph g = graph_of(pm, std::vector<int>{0});
  const RoutineForecast f =
      pdgemm(g, std::vector<int>{0}, one_ns_dgemm(), Grid{1, 1}, 100, 100, 100, 32);
  EXPECT_NEAR(f.seconds, 1e-3, 1e-12);
  EXPECT_NEAR(f.compute, 1e-3, 1e-12);
}

TEST(Forecast, PdgemmWalksTheRingsAndTheMultiplies) {
  // 1 x 2, M = N = K = 64, R = 32; link a-b: 2 us + 1 ns/B. Step 0: process 0 owns A's first
  // block column and sends its 64 x 32 part (16384 B) to process 1: T = 2e-6 + 16384e-9; then
  // each multiplies 64 x 32 x 32 (65536 ns). Step 1: process 1 sends to process 0, same sizes.
  // Both: 2 T + 2 d.
  const model::PlatformModel pm = table({"a", "b"}, {1e-6, 1e-6}, {{1e-9, 1e-9}, {1e-9, 1e-9}});
  const std::vector<int> ranks = {0, 1};
  const LinkGraph g = graph_of(pm, ranks);
  const double T = 2e-6 + 16384e-9, d = 64 * 32 * 32 * 1e-9;
  const RoutineForecast f = pdgemm(g, ranks, one_ns_dgemm(), Grid{1, 2}, 64, 64, 64, 32);
  EXPECT_NEAR(f.seconds, 2 * T + 2 * d, 1e-12);
  EXPECT_NEAR(f.compute, 2 * d, 1e-12);
  // Local A 64 x 32, B 64 x 32, C 64 x 32, panels 64 x 32 and 32 x 32, in doubles.
  EXPECT_DOUBLE_EQ(f.bytes, 8.0 * (64 * 32 + 64 * 32 + 64 * 32 + 64 * 32 + 32 * 32));
}

TEST(Forecast, PdgemmPanelsAre32ColumnsWhateverTheBlock) {
  // 1 x 2, M = N = K = 128, R = 64: PBLAS's panels are 32 wide (PILAENV), so 4 panels, two
  // from each process column, each one hop of 128 x 32 doubles (32768 B) then a local
  // 128 x 64 x 32 multiply on both. Panels of R would make 2 hops of twice the bytes (4 us less).
  const model::PlatformModel pm = table({"a", "b"}, {1e-6, 1e-6}, {{1e-9, 1e-9}, {1e-9, 1e-9}});
  const std::vector<int> ranks = {0, 1};
  const double T = 2e-6 + 32768e-9, d = 128 * 64 * 32 * 1e-9;
  const RoutineForecast f =
      pdgemm(graph_of(pm, ranks), ranks, one_ns_dgemm(), Grid{1, 2}, 128, 128, 128, 64);
  EXPECT_NEAR(f.seconds, 4 * T + 4 * d, 1e-12);
}

TEST(Forecast, AnEagerSendFreesItsSender) {
  // 1 x 2, M = N = 64, K = 128, R = 64: C's 64 columns are one block, all on process 0, which
  // multiplies 64 x 64 x 32 per panel (d = 131.072 us); process 1 only owns A's panels 2 and 3.
  // Panels 0, 1 go from process 0 to 1, panels 2, 3 from 1 to 0, each 16384 B (T = 2 us +
  // 16.384 us). Rendezvous (default): every panel holds both, 4 (T + d) = 597.824 us. Eager (a
  // sender free after C = 1 us): process 0 pays its two sends and four multiplies and never
  // waits (panels 2 and 3 leave process 1 at 150.456 and 151.456 us, in by 169.84 us):
  // 2 us + 4 d = 526.288 us.
  const model::PlatformModel pm = table({"a", "b"}, {1e-6, 1e-6}, {{1e-9, 1e-9}, {1e-9, 1e-9}});
  const std::vector<int> ranks = {0, 1};
  const LinkGraph g = graph_of(pm, ranks);
  EXPECT_NEAR(pdgemm(g, ranks, one_ns_dgemm(), Grid{1, 2}, 64, 64, 128, 64).seconds, 597.824e-6,
              1e-12);
  EXPECT_NEAR(pdgemm(g, ranks, one_ns_dgemm(), Grid{1, 2}, 64, 64, 128, 64, 1e18).seconds,
              526.288e-6, 1e-12);
  // A threshold below the panels' 16384 bytes: rendezvous again.
  EXPECT_NEAR(pdgemm(g, ranks, one_ns_dgemm(), Grid{1, 2}, 64, 64, 128, 64, 16383).seconds,
              597.824e-6, 1e-12);
}

TEST(Forecast, PdgemmTakesEachOwnersBlocksTogether) {
  // PB_CpgemmAB walks K owner by owner: on 1 x 2 with K = 128, R = 32 the blocks go 0, 2 (from
  // process 0), then 1, 3 (from process 1), not 0, 1, 2, 3. M = N = 64: each panel is one
  // block, a 16384 B hop (T = 18.384 us, eager: the sender free after 1 us) and a 64 x 32 x 32
  // multiply on both (d = 65.536 us). Process 0: sends 0 (free at 1), multiplies (66.536), sends
  // 2 (67.536), multiplies (133.072). Process 1: 0 in at 18.384, multiplies (83.92), 2 in at
  // 84.92, multiplies (150.456), sends 1 (151.456), multiplies (216.992), sends 3 (217.992),
  // multiplies (283.528). Process 0: 1 in at 168.84, multiplies (234.376), 3 in at 235.376,
  // multiplies: 300.912 us. In block order the owners alternate and each waits: 335.68 us.
  const model::PlatformModel pm = table({"a", "b"}, {1e-6, 1e-6}, {{1e-9, 1e-9}, {1e-9, 1e-9}});
  const std::vector<int> ranks = {0, 1};
  EXPECT_NEAR(
      pdgemm(graph_of(pm, ranks), ranks, one_ns_dgemm(), Grid{1, 2}, 64, 64, 128, 32, 1e18).seconds,
      300.912e-6, 1e-12);
}

TEST(Forecast, AnEagerLinkCarriesOneMessageAtATime) {
  // Link a-b: 2 us + 100 ns/B (C = 1 us each, 1/beta = 100 ns/B, t = 0); eager. Two messages of
  // 10000 B from a to b, sent 1 us apart (a is free after C): each takes 1002 us alone, so the
  // first is in at 1002 us and the second, its bytes behind the first's on the link, at 2002 us
  // (not 1003).
  const model::PlatformModel pm = table({"a", "b"}, {1e-6, 1e-6}, {{1e-7, 1e-7}, {1e-7, 1e-7}});
  const std::vector<int> ranks = {0, 1};
  const LinkGraph g = graph_of(pm, ranks);
  Clocks c(g, ranks, 2, 1e18);
  c.hop(0, 1, 10000);
  EXPECT_NEAR(c.t[1], 1002e-6, 1e-12);
  c.hop(0, 1, 10000);
  EXPECT_NEAR(c.t[0], 2e-6, 1e-12);
  EXPECT_NEAR(c.t[1], 2002e-6, 1e-12);
}

TEST(Forecast, AReceiverTakesInOneMessageAtATime) {
  // a and b both send 10000 B to c at time 0 (eager; C = 1 us each, 1/beta 1 ns/B; c's t = 50
  // ns/B, a's and b's 0): alone each is in at 2 us + 10000 x 51 ns = 512 us. c takes in a's
  // first (its program order), then b's bytes: 512 + 500 = 1012 us. The same without c's t:
  // both in at 12 us.
  model::PlatformModel pm = table({"a", "b", "c"}, {1e-6, 1e-6, 1e-6},
                                  std::vector<std::vector<double>>(3, {1e-9, 1e-9, 1e-9}));
  pm.params.t[2].value = 50e-9;
  const std::vector<int> ranks = {0, 1, 2};
  const LinkGraph g = graph_of(pm, ranks);
  Clocks c(g, ranks, 3, 1e18);
  c.hop(0, 2, 10000);
  EXPECT_NEAR(c.t[2], 512e-6, 1e-12);
  c.hop(1, 2, 10000);
  EXPECT_NEAR(c.t[2], 1012e-6, 1e-12);
  pm.params.t[2].value = 0;
  const LinkGraph fast = graph_of(pm, ranks);
  Clocks d(fast, ranks, 3, 1e18);
  d.hop(0, 2, 10000);
  d.hop(1, 2, 10000);
  EXPECT_NEAR(d.t[2], 12e-6, 1e-12);
}

TEST(Forecast, AnExchangeSendsBothWaysAtOnce) {
  // MPI_Sendrecv of 10000 B between a (clock 0) and b (clock 5 us), links 2 us + 1 ns/B (12 us
  // a message). Eager: a's message leaves at 0 and is in at 12 us, b's leaves at 5 and is in at
  // 17: a ends at 17 us, b at 12 (its send cost of 1 us ends at 6). Rendezvous: both from 5 us,
  // held until the transfers (12 us each, at once) are done: 17 us both. A receive before the
  // send (a hop each way) would end b at 12 + 1 and a at 12 + 12 = 24 us.
  const model::PlatformModel pm = table({"a", "b"}, {1e-6, 1e-6}, {{1e-9, 1e-9}, {1e-9, 1e-9}});
  const std::vector<int> ranks = {0, 1};
  const LinkGraph g = graph_of(pm, ranks);
  Clocks e(g, ranks, 2, 1e18);
  e.t[1] = 5e-6;
  e.exchange(0, 1, 10000);
  EXPECT_NEAR(e.t[0], 17e-6, 1e-12);
  EXPECT_NEAR(e.t[1], 12e-6, 1e-12);
  Clocks r(g, ranks, 2, 0);
  r.t[1] = 5e-6;
  r.exchange(0, 1, 10000);
  EXPECT_NEAR(r.t[0], 17e-6, 1e-12);
  EXPECT_NEAR(r.t[1], 17e-6, 1e-12);
}

TEST(Forecast, PdtrsmLeftLowerSolvesThenSendsTheSolvedPanelDown) {
  // 2 x 1, L X = B with M = N = 64, R = 32 (PDTRSM's AB variant here). Panel 0 (rows 0-31,
  // process row 0): process 0 solves 32 x 64 (32^2 64 ns = 65.536 us), sends its 32 x 64
  // solved rows (16384 B: 2 us + 16.384 us) to process 1, which updates its rows 32-63
  // (32 x 64 x 32 ns = 65.536 us); panel 1 (process row 1): process 1 solves (65.536 us).
  const RoutineForecast f = two_process_trsm(Trsm{'L', 'L', 'N'});
  EXPECT_NEAR(f.seconds, (3 * 65.536 + 18.384) * 1e-6, 1e-12);
  EXPECT_NEAR(f.compute, 2 * 65.536e-6, 1e-12);
}

TEST(Forecast, PdtrsmRightUpperBroadcastsAsRowPanelDownTheProcessColumn) {
  // 2 x 1, X U = B with M = N = 64, R = 32: B's columns are all in process column 0, its rows
  // split over the two process rows. Panel 0 (columns 0-31): A's rows 0-31, columns 0-63, from
  // process row 0 to 1 (16384 B: 18.384 us); each solves its 32 rows x 32 (32^2 32 ns) and
  // updates its 32 rows for columns 32-63 (32 x 32 x 32 ns). Panel 1: A's rows 32-63, columns
  // 32-63 (8192 B: 10.192 us) from process row 1 to 0; each solves (32.768 us).
  const RoutineForecast f = two_process_trsm(Trsm{'R', 'U', 'N'});
  EXPECT_NEAR(f.seconds, (18.384 + 3 * 32.768 + 10.192) * 1e-6, 1e-12);
}

TEST(Forecast, PdtrsmOnOneRowSolvesEachRowChunkPieceByPieceAndBroadcastsEachPiece) {
  // X U = B on 1 x 2: B's rows in 2 chunks of 32, each solved by both processes in place. Per
  // chunk: process 0 solves columns 0-31 (32^2 32 ns = 32.768 us) and sends the piece (32 x 32,
  // 8192 B: 10.192 us) to process 1, which updates its columns 32-63 (32^3 ns) and solves them
  // (32.768 us), then sends its piece back to process 0 (the ring goes on).
  const RoutineForecast f = two_process_trsm(Trsm{'R', 'U', 'N'}, Grid{1, 2});
  EXPECT_NEAR(f.seconds, 2 * (3 * 32.768 + 2 * 10.192) * 1e-6, 1e-12);
  EXPECT_NEAR(f.compute, 4 * 32.768e-6, 1e-12);
}

TEST(Forecast, PdtrsmOnOneRowMovesEachColumnChunkAndCombinesTheSolution) {
  // L X = B on 1 x 2: B's columns 0-31 (process 0) then 32-63 (process 1), one chunk each. A
  // chunk goes to process 0, whose column block starts the solve (process 1's: 16384 B, 18.384
  // us); process 0 solves rows 0-31 (32.768 us), updates rows 32-63 (32.768 us) and sends them
  // (8192 B, 10.192 us) to process 1, which adds them (1.024 us) and solves (32.768 us). The
  // solution is combined to the chunk's owner, MPI_Reduce of 16384 B as MPICH runs it there:
  // halves exchanged both ways at once (MPI_Sendrecv, 10.192 us), added (1.024 us), one half
  // sent (10.192 us). Chunk 1: solve and update to 65.536, sent to 75.728, added and solved to
  // 109.52, exchanged to 119.712, added, the half in by 130.928. Chunk 2: moved by 149.312, the
  // same 131.712 us again in sequence: 280.24 us.
  const RoutineForecast f = two_process_trsm(Trsm{'L', 'L', 'N'}, Grid{1, 2});
  EXPECT_NEAR(f.seconds, 280.24e-6, 1e-12);
  EXPECT_NEAR(f.compute, 2 * (2 * 32.768 + 1.024) * 1e-6, 1e-12);
}

TEST(Forecast, PdtrsmRefusesTheVariantsItDoesNotModel) {
  // pdtrsm_.c: on one process row a solve ships only B (PB_CptrsmB): modelled there.
  EXPECT_EQ(pdtrsm_unmodelled(Grid{1, 2}, Trsm{'L', 'U', 'N'}, 1024, 1024, 64), "");
  EXPECT_EQ(pdtrsm_unmodelled(Grid{1, 2}, Trsm{'R', 'U', 'N'}, 1024, 1024, 64), "");
  EXPECT_NE(pdtrsm_unmodelled(Grid{1, 2}, Trsm{'L', 'U', 'T'}, 1024, 1024, 64), "");
  EXPECT_EQ(pdtrsm_unmodelled(Grid{2, 2}, Trsm{'L', 'U', 'N'}, 1024, 1024, 64), "");
  EXPECT_EQ(pdtrsm_unmodelled(Grid{2, 1}, Trsm{'R', 'L', 'N'}, 1024, 1024, 64), "");
  EXPECT_NE(pdtrsm_unmodelled(Grid{2, 2}, Trsm{'L', 'U', 'T'}, 1024, 1024, 64), "");
  EXPECT_NE(pdtrsm_unmodelled(Grid{2, 2}, Trsm{'L', 'U', 'N'}, 32, 1024, 64), "");
}

TEST(Forecast, AGridRunsAtTheOccupancyOfItsBusiestHost) {
  // Ranks on identities 0 0 1 1: a 1 x 2 grid puts two processes on identity 0, 2 x 2 two on
  // each, 1 x 1 one. Models measured at 1 and 2 processes at once, and a lone one at 4.
  const std::vector<int> ranks = {0, 0, 1, 1};
  EXPECT_EQ(busiest_host(ranks, Grid{1, 1}), 1);
  EXPECT_EQ(busiest_host(ranks, Grid{1, 2}), 2);
  EXPECT_EQ(busiest_host(ranks, Grid{2, 2}), 2);
  EXPECT_EQ(busiest_host(std::vector<int>{0, 1, 0, 1}, Grid{1, 3}), 2);
  std::vector<CompModel> models(2);
  models[0].occupancy = 2;
  models[1].occupancy = 1;
  EXPECT_EQ(for_occupancy(models, 1)->occupancy, 1);
  EXPECT_EQ(for_occupancy(models, 2)->occupancy, 2);
  EXPECT_EQ(for_occupancy(models, 3)->occupancy, 2);  // the largest below
  std::vector<CompModel> four(1);
  four[0].occupancy = 4;
  EXPECT_EQ(for_occupancy(four, 1)->occupancy, 4);  // none below: the smallest
  EXPECT_EQ(for_occupancy(std::vector<CompModel>{}, 1), nullptr);
}

TEST(Forecast, ACoreIsSharedByTheRunningProcessesAndTheNewOne) {
  EXPECT_DOUBLE_EQ(cpu_share(0, 2), 1);    // idle: a whole core
  EXPECT_DOUBLE_EQ(cpu_share(1, 2), 1);    // one busy, one free core
  EXPECT_DOUBLE_EQ(cpu_share(3, 2), 0.5);  // 4 processes on 2 cores
  EXPECT_DOUBLE_EQ(cpu_share(7, 4), 0.5);
  EXPECT_DOUBLE_EQ(cpu_share(-1, 0), 1);  // absurd input: no speed-up, no division by zero
}

TEST(Forecast, TheBestGridDependsOnTheLinks) {
  // Four processes of four hosts. Free links: every grid of 4 processes splits the multiplies
  // evenly (128^3 / 4 ns) and beats fewer processes. Links of 1 us/B: one process alone.
  const std::vector<int> ranks = {0, 1, 2, 3};
  const std::vector<double> Rs = {32};
  auto links = [&](double ib) {
    return graph_of(table({"a", "b", "c", "d"}, {0, 0, 0, 0},
                          std::vector<std::vector<double>>(4, std::vector<double>(4, ib))),
                    ranks);
  };
  const auto fast =
      best_pdgemm(links(0), ranks, std::vector<CompModel>{one_ns_dgemm()}, 4, 128, 128, 128, Rs);
  EXPECT_EQ(fast.front().grid.p * fast.front().grid.q, 4);
  EXPECT_NEAR(fast.front().forecast.seconds, 128.0 * 128 * 128 / 4 * 1e-9, 1e-12);
  const auto slow =
      best_pdgemm(links(1e-6), ranks, std::vector<CompModel>{one_ns_dgemm()}, 4, 128, 128, 128, Rs);
  EXPECT_EQ(slow.front().grid.p * slow.front().grid.q, 1);
  EXPECT_EQ(fast.size(), 8u);  // 1x1 1x2 1x3 1x4 2x1 2x2 3x1 4x1
}

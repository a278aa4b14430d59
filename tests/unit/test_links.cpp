// Link measurements with validity deadlines (forecast/links.hpp, links_yaml.hpp,
// docs/forecast.md "Link age"): dates, ages, re-measured links taking the calibrated ones'
// place, and their file. Expected values worked out by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "calibration/link.hpp"
#include "forecast/coll.hpp"
#include "forecast/comm.hpp"
#include "forecast/links.hpp"
#include "forecast/links_yaml.hpp"
#include "table/model_table.hpp"
#include "table/yaml_util.hpp"

namespace {

namespace fc = colltune::forecast;
const std::string kTable = std::string(COLLTUNE_SOURCE_DIR) + "/tests/data/hetcluster8-table.yaml";
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Links, UtcDatesBothWays) {
  EXPECT_EQ(colltune::parse_utc("1970-01-02T00:00:00Z"), 86400.0);
  EXPECT_EQ(colltune::parse_utc("2000-01-01T00:00:00Z"), 946684800.0);
  EXPECT_EQ(colltune::format_utc(946684800.0 + 3661), "2000-01-01T01:01:01Z");
  for (const char* bad : {"2026-02-30T00:00:00Z", "2026-11-26 10:00:00Z", "2026-11-26T10:00:00",
                          "2026-11-26T25:00:00Z", "", "yesterday"}) {
    EXPECT_FALSE(colltune::parse_utc(bad).has_value()) << bad;
  }
}

TEST(Links, Durations) {
  EXPECT_EQ(fc::parse_duration("90"), 90.0);
  EXPECT_EQ(fc::parse_duration("90s"), 90.0);
  EXPECT_EQ(fc::parse_duration("15m"), 900.0);
  EXPECT_EQ(fc::parse_duration("1.5h"), 5400.0);
  EXPECT_EQ(fc::parse_duration("7d"), 604800.0);
  for (const char* bad : {"", "m", "-1s", "1x", "1 h", "inf", "nan"}) {
    EXPECT_FALSE(fc::parse_duration(bad).has_value()) << bad;
  }
}

// Three identities a, b, c; a-b measured at 100 s, b-c at 300 s, a-c never.
fc::LinkGraph triangle(double when_bc) {
  fc::LinkGraph g;
  g.identities = {"a", "b", "c"};
  g.fixed.assign(9, 0);
  g.per_byte.assign(9, 0);
  g.measured.assign(9, 0);
  g.known.assign(9, 0);
  g.when.assign(9, std::nan(""));
  const auto link = [&](int i, int j, double fixed, double pb, double when) {
    for (const auto& [x, y] : {std::pair{i, j}, {j, i}}) {
      g.fixed[x * 3 + y] = fixed;
      g.per_byte[x * 3 + y] = pb;
      g.measured[x * 3 + y] = g.known[x * 3 + y] = 1;
      g.when[x * 3 + y] = when;
    }
  };
  link(0, 1, 1e-4, 1e-8, 100);
  link(1, 2, 2e-4, 2e-8, when_bc);
  return g;
}

TEST(Links, ACombinedLinkIsAsOldAsItsOldestHop) {
  fc::LinkGraph g = triangle(300);
  const fc::Link l = fc::comm(g, 0, 2, 1000);
  ASSERT_EQ(l.source, fc::LinkSource::kCombined);
  EXPECT_EQ(fc::age(g, l, 1000), 900);  // a-b, measured at 100
  EXPECT_EQ(fc::age(g, fc::comm(g, 1, 2, 1000), 1000), 700);
  g = triangle(std::nan(""));  // a hop of unknown date: the path's age is unknown
  EXPECT_EQ(fc::age(g, fc::comm(g, 0, 2, 1000), 1000), kInf);
}

TEST(Links, ARemeasuredLinkTakesBothDirectionsWithItsDate) {
  fc::LinkGraph g = triangle(300);
  const fc::LinkMeasurement m{"c", "a", 5e-4, 3e-8, 800, 65536, 10};
  EXPECT_EQ(fc::apply(g, std::span(&m, 1)), 1);
  for (const auto& [i, j] : {std::pair{0, 2}, {2, 0}}) {
    const fc::Link l = fc::comm(g, i, j, 1e6);
    EXPECT_EQ(l.source, fc::LinkSource::kMeasured);
    EXPECT_DOUBLE_EQ(l.at(1e6), 5e-4 + 3e-2);
    EXPECT_EQ(fc::age(g, l, 1000), 200);
  }
  const fc::LinkMeasurement stranger{"a", "zz", 1, 1, 1, 1, 1};
  EXPECT_EQ(fc::apply(g, std::span(&stranger, 1)), 0);
}

TEST(Links, MergingKeepsTheNewestMeasurement) {
  fc::LinkGraph older = triangle(300), newer = triangle(300);
  newer.fixed[1] = newer.fixed[3] = 9e-4;  // a-b again, later
  newer.when[1] = newer.when[3] = 500;
  const fc::LinkGraph both[] = {older, newer};
  EXPECT_EQ(fc::merge(both).fixed[1], 9e-4);
  const fc::LinkGraph reversed[] = {newer, older};
  EXPECT_EQ(fc::merge(reversed).fixed[1], 9e-4);
  newer.when[1] = std::nan("");  // unknown date: the first table's, as before dates
  const fc::LinkGraph undated[] = {older, newer};
  EXPECT_EQ(fc::merge(undated).fixed[1], 1e-4);
}

TEST(Links, MergingCarriesTheFreeBytesOfTheLinkItKeeps) {
  fc::LinkGraph older = triangle(300), newer = triangle(300);
  newer.free.assign(9, 0);
  newer.free[1] = newer.free[3] = 2500;  // a-b, measured again later with its free bytes
  newer.when[1] = newer.when[3] = 500;
  const fc::LinkGraph both[] = {older, newer};
  const fc::LinkGraph g = fc::merge(both);
  EXPECT_EQ(g.free_bytes(1), 2500);
  EXPECT_EQ(g.free_bytes(3), 2500);
  EXPECT_EQ(g.free_bytes(5), 0);        // b-c: the older table's, none
  newer.when[1] = newer.when[3] = 100;  // no newer than the first table's: not taken
  const fc::LinkGraph same[] = {older, newer};
  EXPECT_EQ(fc::merge(same).free_bytes(1), 0);
}

TEST(Links, TheTablesLinksDateFromItsCalibration) {
  const colltune::ModelTable t = colltune::load_model_table(kTable);
  EXPECT_TRUE(std::isnan(t.finished));  // this table records no date
  fc::LinkGraph g = fc::graph_of(*t.platform_model, t.calibrated_ranks);
  fc::date_links(g, 1000);
  EXPECT_EQ(fc::age(g, fc::comm(g, 0, 5, 1), 4600), 3600);
  // h0's link to itself: calibration ran one process there, filled, not measured: no date.
  EXPECT_EQ(fc::age(g, fc::comm(g, 0, 0, 1), 4600), kInf);
}

TEST(Links, AForecastRestsOnItsOldestLink) {
  // The table dates every link from 1000; a-b (h0-h1) measured again at 5000, h1-h2 at 4000. At
  // 6000: on h0, h1 the oldest link is h0-h1 (1000 s); with h2 as well, h0-h2 (5000 s); one
  // process rests on no link. Order of the ranks does not matter.
  const colltune::ModelTable t = colltune::load_model_table(kTable);
  fc::LinkGraph g = fc::graph_of(*t.platform_model, t.calibrated_ranks);
  fc::date_links(g, 1000);
  const fc::LinkMeasurement m[] = {{"h0", "h1", 1e-4, 1e-8, 5000, 65536, 10},
                                   {"h2", "h1", 1e-4, 1e-8, 4000, 65536, 10}};
  ASSERT_EQ(fc::apply(g, m), 2);
  const int h0 = g.find("h0"), h1 = g.find("h1"), h2 = g.find("h2");
  fc::OldestLink o = fc::oldest_link(g, std::vector<int>{h0, h1}, 6000);
  EXPECT_EQ(o.age, 1000);
  o = fc::oldest_link(g, std::vector<int>{h1, h2, h0}, 6000);
  EXPECT_EQ(o.age, 5000);
  EXPECT_EQ(std::min(o.from, o.to), h0);
  EXPECT_EQ(std::max(o.from, o.to), h2);
  o = fc::oldest_link(g, std::vector<int>{h2}, 6000);
  EXPECT_EQ(o.from, -1);
  // Two processes on h0: its own link, filled by calibration, has no date.
  EXPECT_EQ(fc::oldest_link(g, std::vector<int>{h0, h0}, 6000).age, kInf);
}

TEST(Links, TheModelTakesTheMeasuredRate) {
  colltune::ModelTable t = colltune::load_model_table(kTable);
  colltune::model::PlatformModel& pm = *t.platform_model;
  const double t0 = pm.params.t[0].value, t5 = pm.params.t[5].value;
  const double c_before = pm.params.C[0].value;
  const fc::LinkMeasurement ms[] = {{"h5", "h0", 1e-3, t0 + t5 + 5e-8, 0, 0, 0},
                                    {"h1", "h2", 1e-3, 0, 0, 0, 0}};
  EXPECT_EQ(fc::apply(pm, ms), 2);
  EXPECT_DOUBLE_EQ(pm.params.ib(0, 5), 5e-8);
  EXPECT_DOUBLE_EQ(pm.params.ib(5, 0), 5e-8);
  // Faster than the hosts' own costs: the link's part negative, the message's per-byte time 0.
  EXPECT_DOUBLE_EQ(pm.params.ib(1, 2), -pm.params.t[1].value - pm.params.t[2].value);
  EXPECT_EQ(pm.params.C[0].value, c_before);
}

TEST(Links, ALinkMeasuredAsTheTableHasItChangesNothing) {
  // h0-h2 of this table: 1/beta = -7.0e-8 s/B (calibration's fit) under t_0 + t_2, a
  // message 2.74e-7 s/B. Measured again at that rate, the model keeps its 1/beta (a clamp at 0
  // made it 3.39e-7 s/B, 24% slower, and every tree through the link with it).
  colltune::ModelTable t = colltune::load_model_table(kTable);
  colltune::model::PlatformModel& pm = *t.platform_model;
  const colltune::model::LmoParams before = pm.params;
  ASSERT_LT(before.ib(0, 2), 0);
  const double pb = before.t[0].value + before.ib(0, 2) + before.t[2].value;
  const fc::LinkMeasurement m{"h0", "h2", before.C[0].value + before.C[2].value, pb, 0, 65536, 0};
  ASSERT_EQ(fc::apply(pm, std::span(&m, 1)), 1);
  EXPECT_NEAR(pm.params.ib(0, 2), before.ib(0, 2), 1e-20);
  EXPECT_NEAR(pm.params.ib(2, 0), before.ib(0, 2), 1e-20);
}

// Small messages (docs/forecast.md "Small messages"): a link that passes its first bytes at no
// per-byte cost. Roundtrips made from a known link, its hinge found again.
TEST(Links, FittingFindsTheBytesALinkPassesFree) {
  // 1 ms empty roundtrip; 2e-7 s/B above 3000 B: 16384 B -> 1e-3 + 13384 * 2e-7 = 3.6768e-3,
  // 65536 B -> 1e-3 + 62536 * 2e-7 = 13.5072e-3.
  colltune::calibrate::LinkTimes l =
      colltune::calibrate::fit_link(1e-3, 3.6768e-3, 16384, 13.5072e-3, 65536);
  EXPECT_DOUBLE_EQ(l.fixed, 0.5e-3);
  EXPECT_NEAR(l.free, 3000, 1e-6);
  EXPECT_NEAR(l.per_byte, 2e-7, 1e-18);
  // A link without one: 16384 B on the line through 0 and 65536 B -> free 0, the same line.
  l = colltune::calibrate::fit_link(1e-3, 1e-3 + 16384 * 2e-7, 16384, 1e-3 + 65536 * 2e-7, 65536);
  EXPECT_NEAR(l.free, 0, 1e-6);
  EXPECT_NEAR(l.per_byte, 2e-7, 1e-18);
  // Slower than that line at 16384 B (a protocol switch below it): no hinge, the secant.
  l = colltune::calibrate::fit_link(1e-3, 5e-3, 16384, 1e-3 + 65536 * 2e-7, 65536);
  EXPECT_EQ(l.free, 0);
  EXPECT_NEAR(l.per_byte, 2e-7, 1e-18);
  // 16384 B as fast as an empty message: free up to the small size, no further.
  l = colltune::calibrate::fit_link(1e-3, 1e-3, 16384, 1e-3 + 49152 * 2e-7, 65536);
  EXPECT_EQ(l.free, 16384);
  EXPECT_NEAR(l.per_byte, 2e-7, 1e-18);
  // No small size: the line through 0 and m.
  l = colltune::calibrate::fit_link(1e-3, 0, 0, 1e-3 + 65536 * 2e-7, 65536);
  EXPECT_EQ(l.free, 0);
  EXPECT_NEAR(l.per_byte, 2e-7, 1e-18);
}

TEST(Links, ALinkWithFreeBytesChargesOnlyWhatExceedsThem) {
  fc::LinkGraph g = triangle(300);
  fc::LinkMeasurement m{"a", "b", 5e-4, 2e-7, 800, 65536, 10};
  m.free_bytes = 3000;
  m.small_bytes = 16384;
  ASSERT_EQ(fc::apply(g, std::span(&m, 1)), 1);
  const fc::Link l = fc::comm(g, 1, 0, 1000);
  EXPECT_EQ(l.at(1000), 5e-4);  // under the free bytes: the fixed part alone
  EXPECT_DOUBLE_EQ(l.at(8192), 5e-4 + 5192 * 2e-7);
  EXPECT_DOUBLE_EQ(g.time(1, 8192), 5e-4 + 5192 * 2e-7);  // a-b as the application walks it
  // a-c is combined over a-b (3000 free) and b-c (none): what the least of them frees.
  const fc::Link ac = fc::comm(g, 0, 2, 8192);
  ASSERT_EQ(ac.source, fc::LinkSource::kCombined);
  EXPECT_EQ(ac.free, 0);
  EXPECT_DOUBLE_EQ(ac.at(8192), 5e-4 + 2e-4 + 8192 * 2e-7);
  // The model's one line per link: through 0 and 65536 B, 1e-6 * 62536 / 65536 s/B
  // (the table's t_0 + t_5 is 2.4e-7 s/B).
  colltune::ModelTable t = colltune::load_model_table(kTable);
  colltune::model::PlatformModel& pm = *t.platform_model;
  const double t0 = pm.params.t[0].value, t5 = pm.params.t[5].value;
  fc::LinkMeasurement h{"h5", "h0", 1e-3, 1e-6, 0, 65536, 0};
  h.free_bytes = 3000;
  h.small_bytes = 16384;
  ASSERT_EQ(fc::apply(pm, std::span(&h, 1)), 1);
  EXPECT_NEAR(pm.params.ib(0, 5), 1e-6 * 62536 / 65536 - t0 - t5, 1e-18);
}

TEST(Links, ATreeOfMessagesOfOneSizePaysWhatTheLinkSays) {
  // h0-h5 re-measured: 5e-4 s fixed, 1e-6 s/B above 3000 B. At 8192 B the model at that size
  // carries (8192 - 3000) * 1e-6 = 5.192e-3 s of per-byte time on h0-h5, either way, and the
  // calibrated rate on every other link; without free bytes anywhere, the model itself.
  colltune::ModelTable t = colltune::load_model_table(kTable);
  const colltune::model::PlatformModel& pm = *t.platform_model;
  fc::LinkGraph g = fc::graph_of(pm, t.calibrated_ranks);
  fc::ModelAtSize plain(pm, g);
  EXPECT_EQ(&plain.at(8192), &pm);
  fc::LinkMeasurement m{"h0", "h5", 5e-4, 1e-6, 0, 65536, 0};
  m.free_bytes = 3000;
  m.small_bytes = 16384;
  ASSERT_EQ(fc::apply(g, std::span(&m, 1)), 1);
  fc::ModelAtSize sized(pm, g);
  const colltune::model::LmoParams& p = sized.at(8192).params;
  const double c = p.C[0].value + p.C[5].value;
  EXPECT_NEAR(p.p2p(0, 5, 8192) - c, 5.192e-3, 1e-12);
  EXPECT_NEAR(p.p2p(5, 0, 8192) - c, 5.192e-3, 1e-12);
  EXPECT_EQ(p.ib(1, 2), pm.params.ib(1, 2));
  EXPECT_EQ(&sized.at(8192), &sized.at(8192));  // made once per size
  // coll with the links: MPICH's bcast from h0 to h5 is that one message, C_0 + C_5 + 5.192e-3
  // s (calibration's corrections set aside: they scale the prediction).
  colltune::model::PlatformModel bare = pm;
  for (auto* c : {&bare.correction, &bare.correction_other_root, &bare.correction_unlike_root}) {
    for (auto& per_op : *c) per_op.clear();
  }
  fc::ModelAtSize bare_sized(bare, g);
  const double m8k = 8192;
  const std::vector<int> pair{0, 5};
  const auto rows = fc::coll(bare, colltune::Op::kBcast, pair, 0, std::span(&m8k, 1),
                             colltune::algorithms_of(colltune::Op::kBcast).front(), &bare_sized);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NEAR(rows[0].seconds, c + 5.192e-3, 1e-12);
  // All of it free: no per-byte time at all, the link's part taking the hosts' t_i + t_j back.
  EXPECT_NEAR(sized.at(1000).params.ib(0, 5), -p.t[0].value - p.t[5].value, 1e-20);
}

std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("colltune-links-" + name)).string();
}

TEST(LinksYaml, RoundTripAndOnePairPerRecord) {
  const std::string f = temp(std::to_string(::getpid()) + ".yaml");
  std::filesystem::remove(f);
  colltune::record_link({"h0", "h5", 6.5e-4, 2e-7, 946684800, 65536, 12}, f);
  colltune::record_link({"h5", "h0", 7e-4, 3e-7, 946684900, 65536, 9}, f);  // the same pair
  colltune::record_link({"h1", "h2", 1e-4, 1e-8, 946685000, 65536, 5, 2896.5, 16384}, f);
  const auto links = colltune::load_links(f);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].free_bytes, 0);
  EXPECT_EQ(links[1].free_bytes, 2896.5);
  EXPECT_EQ(links[1].small_bytes, 16384);
  EXPECT_EQ(links[0].from, "h5");
  EXPECT_EQ(links[0].fixed, 7e-4);
  EXPECT_EQ(links[0].per_byte, 3e-7);
  EXPECT_EQ(links[0].measured, 946684900);
  EXPECT_EQ(links[0].reps, 9);
  EXPECT_EQ(links[1].to, "h2");
  std::filesystem::remove(f);
}

TEST(LinksYaml, BrokenFilesNameTheField) {
  const auto why = [](const std::string& text) {
    try {
      colltune::parse_links(text, "x.yaml");
    } catch (const colltune::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string head = "colltune_links: 1\nlinks:\n";
  EXPECT_NE(why("colltune_links: 2\nlinks: []\n").find("colltune_links"), std::string::npos);
  EXPECT_NE(why("colltune_comp: 1\n").find("colltune_comp"), std::string::npos);
  EXPECT_NE(why(head + "  - {from: a, to: b, fixed: 1, per_byte: 1}\n").find("links[0].measured"),
            std::string::npos);
  EXPECT_NE(why(head + "  - {from: a, to: b, fixed: -1, per_byte: 1, measured: "
                       "2000-01-01T00:00:00Z}\n")
                .find("links[0].fixed"),
            std::string::npos);
  EXPECT_NE(
      why(head + "  - {from: a, to: b, fixed: 1, per_byte: 1, measured: 2000-13-01T00:00:00Z}\n")
          .find("YYYY-MM-DDTHH:MM:SSZ"),
      std::string::npos);
  EXPECT_NE(why(head + "  - {from: a, to: b, fixed: 1, per_byte: 1, measured: "
                       "2000-01-01T00:00:00Z, color: red}\n")
                .find("color"),
            std::string::npos);
  EXPECT_EQ(why(head + "  - {from: a, to: b, fixed: 1, per_byte: 1, measured: "
                       "2000-01-01T00:00:00Z}\n"),
            "accepted");
  EXPECT_NE(why(head + "  - {from: a, to: b, fixed: 1, per_byte: 1, measured: "
                       "2000-01-01T00:00:00Z, bytes: 65536, small_bytes: 16384, free_bytes: "
                       "20000}\n")
                .find("links[0].free_bytes"),
            std::string::npos);
  EXPECT_NE(why(head + "  - {from: a, to: b, fixed: 1, per_byte: 1, measured: "
                       "2000-01-01T00:00:00Z, bytes: 16384, small_bytes: 16384}\n")
                .find("links[0].small_bytes"),
            std::string::npos);
}

TEST(ModelTableDate, FinishedIsReadAndCheckedWhenPresent) {
  std::ifstream in(kTable);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto parse = [](const std::string& s) {
    return colltune::parse_model_table("t.yaml", YAML::Load(s));
  };
  const std::string key = "calibration:\n";
  const std::size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  std::string dated = text;
  dated.insert(at + key.size(), "  finished: 2000-01-01T00:00:10Z\n");
  EXPECT_EQ(parse(dated).finished, 946684810);
  std::string bad = text;
  bad.insert(at + key.size(), "  finished: last tuesday\n");
  try {
    parse(bad);
    ADD_FAILURE() << "accepted";
  } catch (const colltune::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("calibration.finished"), std::string::npos);
  }
}

}  // namespace

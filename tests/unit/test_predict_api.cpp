// The C API of the forecasts (include/colltune/predict.h): answers as the library's, error codes
// with one line naming what is wrong, and remembered answers.
#include <colltune/predict.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <colltune/predict.hpp>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "algorithms/registry.hpp"
#include "forecast/coll.hpp"
#include "forecast/comm.hpp"
#include "forecast/comp_yaml.hpp"
#include "forecast/routine.hpp"
#include "table/model_table.hpp"
#include "table/yaml_util.hpp"

namespace {

const std::string kData = std::string(COLLTUNE_SOURCE_DIR) + "/tests/data";
const std::string kTable = kData + "/hetcluster8-table.yaml", kComp = kData + "/comp-vm.yaml";

TEST(PredictApi, AnswersAsTheLibraryAndRemembers) {
  colltune_predictor* p = nullptr;
  ASSERT_EQ(colltune_predictor_open(kTable.c_str(), kComp.c_str(), &p), COLLTUNE_PREDICT_OK)
      << colltune_predictor_error(p);
  double s = 0;
  int combined = -1;
  ASSERT_EQ(colltune_predict_comm(p, "h0", "h5", 1e6, &s, &combined), COLLTUNE_PREDICT_OK);
  const colltune::ModelTable t = colltune::load_model_table(kTable);
  const auto g = colltune::forecast::graph_of(*t.platform_model, t.calibrated_ranks);
  EXPECT_DOUBLE_EQ(s, colltune::forecast::comm(g, g.find("h0"), g.find("h5"), 1e6).at(1e6));
  EXPECT_EQ(combined, 0);
  double again = 0;
  ASSERT_EQ(colltune_predict_comm(p, "h0", "h5", 1e6, &again, nullptr), COLLTUNE_PREDICT_OK);
  EXPECT_EQ(again, s);
  char algorithm[32] = "";
  ASSERT_EQ(
      colltune_predict_coll(p, "scatter", 0, 65536, nullptr, 0, &s, algorithm, sizeof algorithm),
      COLLTUNE_PREDICT_OK);
  EXPECT_GT(s, 0);
  EXPECT_STRNE(algorithm, "");
  const double mnk[] = {1000, 1000, 64};
  ASSERT_EQ(colltune_predict_comp(p, "dgemm", mnk, 3, &s), COLLTUNE_PREDICT_OK);
  EXPECT_GT(s, 0);
  // A routine, with the rendezvous threshold set: the library's forecast with it.
  const colltune::forecast::CompModel comp = colltune::load_comp_model(kComp);
  const double big[] = {512, 512, 512};
  for (const double eager : {0.0, 1e18}) {
    ASSERT_EQ(colltune_predictor_set_eager(p, eager), COLLTUNE_PREDICT_OK);
    ASSERT_EQ(colltune_predict_routine(p, "pdgemm", nullptr, big, 3, 64, 2, 2, nullptr, 0, &s),
              COLLTUNE_PREDICT_OK);
    EXPECT_DOUBLE_EQ(
        s, colltune::forecast::pdgemm(g, t.calibrated_ranks, comp, colltune::forecast::Grid{2, 2},
                                      512, 512, 512, 64, eager)
               .seconds);
  }
  colltune_predictor_close(p);
}

TEST(PredictApi, OneAlgorithmTheOperandsMemoryAndTheBestGrid) {
  colltune_predictor* p = nullptr;
  ASSERT_EQ(colltune_predictor_open(kTable.c_str(), kComp.c_str(), &p), COLLTUNE_PREDICT_OK)
      << colltune_predictor_error(p);
  const colltune::ModelTable t = colltune::load_model_table(kTable);
  namespace fc = colltune::forecast;
  // Every bcast algorithm of the registry: the library's forecast of it alone, and picked for
  // exactly the one colltune_predict_coll names.
  double s = 0;
  char pick[32] = "";
  ASSERT_EQ(colltune_predict_coll(p, "bcast", 3, 65536, nullptr, 0, &s, pick, sizeof pick),
            COLLTUNE_PREDICT_OK);
  int picks = 0;
  const double sizes[] = {65536};
  for (const colltune::Algorithm* a : colltune::algorithms_of(colltune::Op::kBcast)) {
    int picked = -1;
    ASSERT_EQ(colltune_predict_coll_algorithm(p, "bcast", std::string(a->name).c_str(), 3, 65536,
                                              nullptr, 0, &s, &picked),
              COLLTUNE_PREDICT_OK)
        << a->name;
    const auto rows =
        fc::coll(*t.platform_model, colltune::Op::kBcast, t.calibrated_ranks, 3, sizes, a);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_DOUBLE_EQ(s, rows[0].seconds) << a->name;
    EXPECT_EQ(picked, a->name == std::string_view(pick) ? 1 : 0) << a->name;
    picks += picked;
  }
  EXPECT_EQ(picks, 1);
  EXPECT_EQ(colltune_predict_coll_algorithm(p, "bcast", "fastest", 0, 8, nullptr, 0, &s, nullptr),
            COLLTUNE_PREDICT_BAD_ARGUMENT);
  EXPECT_NE(std::string(colltune_predictor_error(p)).find("valid: native"), std::string::npos);
  // The operands' memory: the computation model's count.
  const fc::CompModel comp = colltune::load_comp_model(kComp);
  const double mnk[] = {1000, 800, 64};
  double bytes = 0;
  ASSERT_EQ(colltune_predict_comp_memory(p, "dgemm", mnk, 3, &bytes), COLLTUNE_PREDICT_OK);
  EXPECT_DOUBLE_EQ(bytes, fc::comp(comp, fc::Kernel::kDgemm, {1000, 800, 64}).bytes);
  EXPECT_DOUBLE_EQ(bytes, 8.0 * (1000 * 64 + 64 * 800 + 1000 * 800));
  // The best grid and block: the library's fastest, then the fastest that fits a memory limit.
  const auto g = fc::graph_of(*t.platform_model, t.calibrated_ranks);
  const double n3[] = {1024, 1024, 1024};
  const int blocks[] = {32, 64};
  const std::vector<double> Rs = {32, 64};
  const std::vector<fc::CompModel> comps = {comp};
  const auto cases = fc::best_pdgemm(g, t.calibrated_ranks, comps, 4, 1024, 1024, 1024, Rs, 0);
  ASSERT_GE(cases.size(), 2u);
  int bp = 0, bq = 0, br = 0;
  ASSERT_EQ(colltune_predict_best(p, "pdgemm", nullptr, n3, 3, 4, blocks, 2, nullptr, 0, 0, &bp,
                                  &bq, &br, &s),
            COLLTUNE_PREDICT_OK)
      << colltune_predictor_error(p);
  EXPECT_EQ(bp, cases[0].grid.p);
  EXPECT_EQ(bq, cases[0].grid.q);
  EXPECT_EQ(br, cases[0].R);
  EXPECT_DOUBLE_EQ(s, cases[0].forecast.seconds);
  double least = cases[0].forecast.bytes;
  for (const auto& c : cases) least = std::min(least, c.forecast.bytes);
  const fc::BestCase* fits = nullptr;  // the fastest within the smallest footprint
  for (const auto& c : cases) {
    if (!fits && c.forecast.bytes <= least) fits = &c;
  }
  ASSERT_EQ(colltune_predict_best(p, "pdgemm", nullptr, n3, 3, 4, blocks, 2, nullptr, 0, least, &bp,
                                  &bq, &br, &s),
            COLLTUNE_PREDICT_OK);
  EXPECT_EQ(bp * 100 + bq * 10, fits->grid.p * 100 + fits->grid.q * 10);
  EXPECT_DOUBLE_EQ(s, fits->forecast.seconds);
  EXPECT_EQ(colltune_predict_best(p, "pdgemm", nullptr, n3, 3, 4, blocks, 2, nullptr, 0, least / 2,
                                  &bp, &bq, &br, &s),
            COLLTUNE_PREDICT_NO_MEMORY);
  EXPECT_EQ(colltune_predict_best(p, "pdgemm", nullptr, n3, 3, 0, blocks, 2, nullptr, 0, 0, &bp,
                                  &bq, &br, &s),
            COLLTUNE_PREDICT_BAD_ARGUMENT);
  colltune_predictor_close(p);
}

TEST(PredictApi, TheCppWrapperAnswersAsTheCApiAndThrowsItsCodes) {
  colltune::Predictor cpp(kTable, kComp);
  colltune_predictor* p = nullptr;
  ASSERT_EQ(colltune_predictor_open(kTable.c_str(), kComp.c_str(), &p), COLLTUNE_PREDICT_OK);
  double s = 0;
  ASSERT_EQ(colltune_predict_comm(p, "h0", "h5", 1e6, &s, nullptr), COLLTUNE_PREDICT_OK);
  EXPECT_EQ(cpp.comm("h0", "h5", 1e6), s);
  char pick[32] = "";
  ASSERT_EQ(colltune_predict_coll(p, "gather", 0, 4096, nullptr, 0, &s, pick, sizeof pick),
            COLLTUNE_PREDICT_OK);
  const auto c = cpp.coll("gather", 0, 4096);
  EXPECT_EQ(c.seconds, s);
  EXPECT_EQ(c.algorithm, pick);
  EXPECT_TRUE(cpp.coll_algorithm("gather", pick, 0, 4096).picked);
  const double mn[] = {512, 512};
  ASSERT_EQ(colltune_predict_routine(p, "pdtrsm", "RLN", mn, 2, 64, 2, 2, nullptr, 0, &s),
            COLLTUNE_PREDICT_OK);
  EXPECT_EQ(cpp.routine("pdtrsm", {512, 512}, 64, 2, 2, {}, "RLN"), s);
  try {
    cpp.comm("h0", "h9", 8);
    ADD_FAILURE() << "no exception for an unknown identity";
  } catch (const colltune::PredictError& e) {
    EXPECT_EQ(e.status, COLLTUNE_PREDICT_BAD_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("'h9'"), std::string::npos);
  }
  try {
    cpp.routine("pdtrsm", {1024, 1024}, 64, 2, 2, {}, "LUT");
    ADD_FAILURE() << "no exception for a transposed PDTRSM";
  } catch (const colltune::PredictError& e) {
    EXPECT_EQ(e.status, COLLTUNE_PREDICT_NOT_MODELLED);
  }
  EXPECT_THROW(colltune::Predictor("/nonexistent.yaml"), colltune::PredictError);
  colltune_predictor_close(p);
}

TEST(PredictApi, FailuresAreCodesWithOneLine) {
  colltune_predictor* p = nullptr;
  EXPECT_EQ(colltune_predictor_open("/nonexistent.yaml", nullptr, &p), COLLTUNE_PREDICT_BAD_FILE);
  EXPECT_NE(std::string(colltune_predictor_error(p)).find("/nonexistent.yaml"), std::string::npos);
  colltune_predictor_close(p);
  ASSERT_EQ(colltune_predictor_open(kTable.c_str(), kComp.c_str(), &p), COLLTUNE_PREDICT_OK);
  double s = 0;
  EXPECT_EQ(colltune_predict_comm(p, "h0", "h9", 8, &s, nullptr), COLLTUNE_PREDICT_BAD_ARGUMENT);
  EXPECT_NE(std::string(colltune_predictor_error(p)).find("to: invalid value 'h9'"),
            std::string::npos);
  EXPECT_EQ(colltune_predict_coll(p, "allreduce", 0, 8, nullptr, 0, &s, nullptr, 0),
            COLLTUNE_PREDICT_BAD_ARGUMENT);
  EXPECT_EQ(colltune_predict_coll(p, "bcast", 8, 8, nullptr, 0, &s, nullptr, 0),
            COLLTUNE_PREDICT_BAD_ARGUMENT);
  const double mn[] = {1024, 1024};
  const char* two[] = {"h0", "h1"};
  EXPECT_EQ(colltune_predict_routine(p, "pdtrsm", "LUT", mn, 2, 64, 1, 2, two, 2, &s),
            COLLTUNE_PREDICT_NOT_MODELLED);  // transposed
  EXPECT_EQ(colltune_predict_routine(p, "pdtrsm", "LUN", mn, 2, 64, 1, 2, two, 2, &s),
            COLLTUNE_PREDICT_OK);  // PB_CptrsmB on one process row
  EXPECT_EQ(colltune_predict_routine(p, "pdtrsm", "LUN", mn, 2, 64, 2, 1, two, 2, &s),
            COLLTUNE_PREDICT_OK);
  const double huge[] = {1e6, 1e6};
  EXPECT_EQ(colltune_predict_comp(p, "add", huge, 2, &s), COLLTUNE_PREDICT_NO_MEMORY);
  EXPECT_EQ(std::string(colltune_predictor_error(p)).find("add needs"), 0u);
  ASSERT_EQ(colltune_predict_comm(p, "h0", "h1", 8, &s, nullptr), COLLTUNE_PREDICT_OK);
  EXPECT_STREQ(colltune_predictor_error(p), "");  // a success clears the last failure
  colltune_predictor_close(p);
  EXPECT_EQ(colltune_predict_comm(nullptr, "h0", "h1", 8, &s, nullptr),
            COLLTUNE_PREDICT_BAD_ARGUMENT);
}

}  // namespace

namespace {

void write(const std::string& file, const std::string& text) { std::ofstream(file) << text; }

// A links file takes the calibrated link's place, gives its age, and is read again when it
// changes (the remembered answer is forgotten then, not before).
TEST(PredictApi, LinksFileTakesOverAndIsReadAgainWhenChanged) {
  const std::string f = std::filesystem::temp_directory_path() /
                        ("colltune-api-links-" + std::to_string(::getpid()) + ".yaml");
  const double measured = static_cast<double>(std::time(nullptr)) - 100;
  const auto links = [&](double fixed) {
    return "colltune_links: 1\nlinks:\n  - {from: h5, to: h0, fixed: " + std::to_string(fixed) +
           ", per_byte: 0, measured: " + colltune::format_utc(measured) + "}\n";
  };
  write(f, links(0.001));
  colltune_predictor* p = nullptr;
  ASSERT_EQ(colltune_predictor_open(kTable.c_str(), nullptr, &p), COLLTUNE_PREDICT_OK);
  double s = 0, age = 0;
  ASSERT_EQ(colltune_predict_comm(p, "h0", "h5", 1e6, &s, nullptr), COLLTUNE_PREDICT_OK);
  EXPECT_GT(s, 0.1);  // the calibrated link: 1 MB at about 5 MB/s
  ASSERT_EQ(colltune_predict_link_age(p, "h0", "h5", &age), COLLTUNE_PREDICT_OK);
  EXPECT_EQ(age, std::numeric_limits<double>::infinity());  // the table records no date
  ASSERT_EQ(colltune_predictor_set_links(p, f.c_str()), COLLTUNE_PREDICT_OK)
      << colltune_predictor_error(p);
  ASSERT_EQ(colltune_predict_comm(p, "h0", "h5", 1e6, &s, nullptr), COLLTUNE_PREDICT_OK);
  EXPECT_DOUBLE_EQ(s, 0.001);
  ASSERT_EQ(colltune_predict_link_age(p, "h0", "h5", &age), COLLTUNE_PREDICT_OK);
  EXPECT_GE(age, 100);
  EXPECT_LT(age, 160);
  // Changed: the next query after a second reads it again.
  write(f, links(0.002));
  std::filesystem::last_write_time(f,
                                   std::filesystem::last_write_time(f) + std::chrono::seconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_EQ(colltune_predict_comm(p, "h0", "h5", 1e6, &s, nullptr), COLLTUNE_PREDICT_OK);
  EXPECT_DOUBLE_EQ(s, 0.002);
  // A broken file is refused with its field named; the links in use stay.
  const std::string broken = f + ".broken";
  write(broken, "colltune_links: 1\nlinks:\n  - {from: h5, to: h0, fixed: 1, per_byte: 0}\n");
  EXPECT_EQ(colltune_predictor_set_links(p, broken.c_str()), COLLTUNE_PREDICT_BAD_FILE);
  EXPECT_NE(std::string(colltune_predictor_error(p)).find("links[0].measured"), std::string::npos);
  ASSERT_EQ(colltune_predict_comm(p, "h0", "h5", 1e6, &s, nullptr), COLLTUNE_PREDICT_OK);
  EXPECT_DOUBLE_EQ(s, 0.002);
  colltune_predictor_close(p);
  std::filesystem::remove(f);
  std::filesystem::remove(broken);
}

}  // namespace

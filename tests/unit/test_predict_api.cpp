// The C API of the forecasts (include/colltune/predict.h): answers as the library's, error codes
// with one line naming what is wrong, and remembered answers.
#include <colltune/predict.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>

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

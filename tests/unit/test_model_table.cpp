#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "table/model_table.hpp"

using namespace colltune;

namespace {
const char* kTable = R"(
colltune_model: 1
generated_by: test
platform:
  mpi_library: "MPICH Version: 4.0.2"
  hosts:
    - {name: a, topology: "packages=1 numa=1 cores=2 pus=2"}
    - {name: b, topology: "packages=2 numa=2 cores=8 pus=16"}
decisions:
  bcast:
    - comm_size: [2, 2]
      bytes:
        - {range: [0, 8KiB], algorithm: linear}
    - comm_size: [3, max]
      bytes:
        - {range: [0, 1023], algorithm: binomial}
        - {range: [1024, max], algorithm: linear}
  gather: []
model: {C: [1.5e-6, 2.0e-6]}
validation: {median_rel_error: 0.04}
)";

std::string error_of(const std::string& text) {
  try {
    YamlReader y("m.yaml");
    parse_model_table("m.yaml", y.load_string(text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(ModelTable, Parses) {
  const ModelTable t = parse_model_table("m.yaml", YAML::Load(kTable));
  EXPECT_EQ(t.platform.mpi_library, "MPICH Version: 4.0.2");
  ASSERT_EQ(t.platform.hosts.size(), 2u);
  EXPECT_EQ(t.platform.hosts[1].topology, "packages=2 numa=2 cores=8 pus=16");
  const auto& b = t.decisions[static_cast<int>(Op::kBcast)];
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].bytes[0].bytes, (Range{0, 8192}));
  EXPECT_EQ(b[1].comm_size, (Range{3, kMaxValue}));
  EXPECT_EQ(b[1].bytes[1].algorithm->name, "linear");
  EXPECT_TRUE(t.decisions[static_cast<int>(Op::kScatter)].empty());
  EXPECT_DOUBLE_EQ(t.model["C"][1].as<double>(), 2.0e-6);
}

// A table keeps copies of the document's small sections, not views into it: a yaml-cpp node
// holds its whole document's memory, most of which is the links (docs/calibration.md, "Heap
// neutrality").
TEST(ModelTable, KeepsCopiesNotViewsOfTheDocument) {
  YAML::Node root =
      YAML::Load(std::string(kTable) + "calibration: {finished: 2026-11-26T00:00:00Z}\n");
  const ModelTable t = parse_model_table("m.yaml", root);
  root["validation"]["median_rel_error"] = 0.5;
  root["calibration"]["finished"] = "changed";
  EXPECT_DOUBLE_EQ(t.validation["median_rel_error"].as<double>(), 0.04);
  EXPECT_EQ(t.calibration["finished"].as<std::string>(), "2026-11-26T00:00:00Z");
}

TEST(ModelTable, EmitParseRoundTripAndAtomicSave) {
  const ModelTable t = parse_model_table("m.yaml", YAML::Load(kTable));
  char dir[] = "/tmp/colltune-unit-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/model.yaml";
  { std::ofstream(path) << "previous contents\n"; }
  save_model_table(t, path);
  const ModelTable u = load_model_table(path);
  for (int op = 0; op < kNumOps; ++op) {
    ASSERT_EQ(t.decisions[op].size(), u.decisions[op].size());
    for (std::size_t i = 0; i < t.decisions[op].size(); ++i) {
      EXPECT_EQ(t.decisions[op][i].comm_size, u.decisions[op][i].comm_size);
      ASSERT_EQ(t.decisions[op][i].bytes.size(), u.decisions[op][i].bytes.size());
      for (std::size_t j = 0; j < t.decisions[op][i].bytes.size(); ++j) {
        EXPECT_EQ(t.decisions[op][i].bytes[j].bytes, u.decisions[op][i].bytes[j].bytes);
        EXPECT_EQ(t.decisions[op][i].bytes[j].algorithm, u.decisions[op][i].bytes[j].algorithm);
      }
    }
  }
  EXPECT_EQ(u.platform.hosts, t.platform.hosts);
  EXPECT_DOUBLE_EQ(u.validation["median_rel_error"].as<double>(), 0.04);
  EXPECT_THROW(save_model_table(t, std::string(dir) + "/missing-dir/model.yaml"), InputError);
  std::remove(path.c_str());
  rmdir(dir);
}

namespace {
// Names of the files in `dir`.
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  return out;
}
std::string contents(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

// A write that fails midway (here: the file size limit, as a full disk would) leaves the
// previous file whole and no temporary behind. Writing in place would leave a truncated file.
TEST(ModelTable, FailedSaveKeepsThePreviousFile) {
  const ModelTable t = parse_model_table("m.yaml", YAML::Load(kTable));
  char dir[] = "/tmp/colltune-unit-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/model.yaml";
  const std::string previous = "colltune_model: 1  # the table the user had\n";
  { std::ofstream(path) << previous; }
  ASSERT_GT(emit_model_table(t).size(), 200u);

  struct rlimit old_limit;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 100;  // bytes: the new table cannot be written whole
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string error;
  try {
    save_model_table(t, path);
  } catch (const InputError& e) {
    error = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);

  EXPECT_NE(error.find(path + ": file: write failed"), std::string::npos) << error;
  EXPECT_EQ(contents(path), previous);
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"model.yaml"});
  // And with room, the same save replaces it, mode 0644.
  save_model_table(t, path);
  EXPECT_EQ(contents(path), emit_model_table(t));
  EXPECT_EQ(std::filesystem::status(path).permissions(), std::filesystem::perms(0644));
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"model.yaml"});
  std::filesystem::remove_all(dir);
}

TEST(ModelTable, PlatformMismatchIsExplained) {
  const ModelTable t = parse_model_table("m.yaml", YAML::Load(kTable));
  EXPECT_EQ(platform_mismatch(t, "MPICH Version: 4.0.2", {"a", "packages=1 numa=1 cores=2 pus=2"}),
            "");
  EXPECT_NE(platform_mismatch(t, "Open MPI v5.0", {"a", "packages=1 numa=1 cores=2 pus=2"})
                .find("platform.mpi_library is 'MPICH Version: 4.0.2'"),
            std::string::npos);
  EXPECT_NE(platform_mismatch(t, "MPICH Version: 4.0.2", {"c", "x"})
                .find("host 'c' is not in platform.hosts"),
            std::string::npos);
  EXPECT_NE(platform_mismatch(t, "MPICH Version: 4.0.2", {"a", "packages=1 numa=1 cores=4 pus=4"})
                .find("has topology"),
            std::string::npos);
}

TEST(ModelTable, RejectsBadTables) {
  const std::string head =
      "colltune_model: 1\nplatform: {mpi_library: x, hosts: [{name: a, topology: t}]}\n";
  EXPECT_NE(error_of("foo: 1\n").find("top level.foo: unknown key"), std::string::npos);
  EXPECT_NE(error_of("platform: {}\n").find("colltune_model: missing: not a colltune model table"),
            std::string::npos);
  EXPECT_NE(error_of("colltune_model: 7\n").find("unsupported schema version (valid: 1 to 3)"),
            std::string::npos);
  EXPECT_NE(error_of(head + "decisions:\n  bcast:\n    - comm_size: [2, 8]\n      bytes:\n"
                            "        - {range: [0, 100], algorithm: linear}\n"
                            "        - {range: [50, 200], algorithm: binomial}\n")
                .find("m.yaml:8: decisions.bcast[0].bytes[1].range: [50, 200] overlaps or precedes "
                      "[0, 100]"),
            std::string::npos);
  EXPECT_NE(error_of(head + "decisions:\n  bcast:\n    - {comm_size: [4, 8], bytes: []}\n"
                            "    - {comm_size: [2, 3], bytes: []}\n")
                .find("decisions.bcast[1].comm_size: [2, 3] overlaps or precedes [4, 8]"),
            std::string::npos);
  EXPECT_NE(error_of(head + "decisions:\n  allreduce: []\n")
                .find("decisions.allreduce: unknown key (valid: bcast, scatter, gather)"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          head +
          "decisions:\n  gather:\n    - {comm_size: 2, bytes: [{range: 1, algorithm: ring}]}\n")
          .find("unknown algorithm 'ring' (valid: " + algorithm_choices(Op::kGather) + ")"),
      std::string::npos);
}

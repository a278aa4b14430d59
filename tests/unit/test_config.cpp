#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "table/config.hpp"

using namespace colltune;

namespace {
AdminConfig parse(const std::string& text) {
  return parse_admin_config("test.yaml", YAML::Load(text));
}
// The message of the InputError thrown by parsing `text` ("" if none).
std::string error_of(const std::string& text) {
  try {
    YamlReader y("test.yaml");
    parse_admin_config("test.yaml", y.load_string(text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(AdminConfig, ParsesEveryKey) {
  const AdminConfig c = parse(R"(
version: 1
model: /tmp/m.yaml
rules:
  - op: bcast
    comm_size: [2, 64]
    bytes: [0, 16KiB]
    algorithm: binomial
  - op: scatter
    root: 3
    nodes: [2, max]
    ppn: 1
    bytes: [1MiB, max]
    algorithm: linear
  - op: gather
    algorithm: native
)");
  ASSERT_EQ(c.rules.size(), 3u);
  EXPECT_EQ(*c.model_path, "/tmp/m.yaml");
  EXPECT_EQ(c.rules[0].op, Op::kBcast);
  EXPECT_EQ(c.rules[0].algorithm->name, "binomial");
  EXPECT_EQ(c.rules[0].comm_size, (Range{2, 64}));
  EXPECT_EQ(c.rules[0].bytes, (Range{0, 16384}));
  EXPECT_EQ(c.rules[0].line, 5);
  EXPECT_FALSE(c.rules[0].uses_topology);
  EXPECT_EQ(*c.rules[1].root, 3);
  EXPECT_EQ(c.rules[1].nodes, (Range{2, kMaxValue}));
  EXPECT_EQ(c.rules[1].ppn, (Range{1, 1}));
  EXPECT_EQ(c.rules[1].bytes, (Range{1u << 20, kMaxValue}));
  EXPECT_TRUE(c.uses_topology());
  EXPECT_EQ(c.rules[2].bytes, Range{});
}

TEST(AdminConfig, EmptyFileHasNoRules) {
  EXPECT_TRUE(parse("").rules.empty());
  EXPECT_TRUE(parse("version: 1\nrules: []\n").rules.empty());
}

// Each bad input names the file, the line, the field and (where there are any) the choices.
struct BadCase {
  const char* text;
  const char* expected;
};

class AdminConfigErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(AdminConfigErrors, NamesFileLineFieldAndChoices) {
  const std::string msg = error_of(GetParam().text);
  EXPECT_NE(msg.find(GetParam().expected), std::string::npos)
      << "message: '" << msg << "' lacks '" << GetParam().expected << "'";
  EXPECT_EQ(msg.rfind("test.yaml", 0), 0u) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AdminConfigErrors,
    ::testing::Values(
        BadCase{"rules: [\n", "test.yaml:2: yaml:"},
        BadCase{"verison: 1\n",
                "test.yaml:1: top level.verison: unknown key (valid: version, model, rules)"},
        BadCase{"version: 2\n", "version: unsupported (valid: 1)"},
        BadCase{"rules:\n  - op: bcast\n    algorithm: fastest\n",
                "test.yaml:3: rules[0].algorithm: unknown algorithm 'fastest' (valid: native, "
                "linear, binomial, ecef, chain, "},  // the registry's bcast names, in order
        BadCase{"rules:\n  - op: reduce\n    algorithm: linear\n",
                "rules[0].op: unknown op 'reduce' (valid: bcast, scatter, gather)"},
        BadCase{"rules:\n  - algorithm: linear\n",
                "rules[0].op: missing (valid: bcast, scatter, gather)"},
        BadCase{"rules:\n  - op: gather\n",
                "rules[0].algorithm: missing (valid: native, linear, binomial, split"},
        BadCase{"rules:\n  - op: bcast\n    algorithm: linear\n    bytes: [100, 10]\n",
                "rules[0].bytes: lower bound above upper bound in [100, 10]"},
        BadCase{"rules:\n  - op: bcast\n    algorithm: linear\n    bytes: [-1, 10]\n",
                "rules[0].bytes: '-1' is not a byte count"},
        BadCase{"rules:\n  - op: bcast\n    algorithm: linear\n    comm_size: [1, 99999999999]\n",
                "rules[0].comm_size: '99999999999' is absurd"},
        BadCase{"rules:\n  - op: bcast\n    algorithm: linear\n    comm_size: 0\n",
                "rules[0].comm_size: must be >= 1"},
        BadCase{"rules:\n  - op: bcast\n    algorithm: linear\n    bytes: 5XB\n",
                "unknown unit (valid: B, KiB, MiB, GiB)"},
        BadCase{"rules:\n  - op: bcast\n    algorithm: linear\n    colour: red\n",
                "rules[0].colour: unknown key (valid: op, algorithm, comm_size, bytes, root, "
                "nodes, ppn)"},
        BadCase{"rules: 3\n", "rules: must be a list"},
        BadCase{"- 1\n- 2\n", "top level: must be a mapping"}));

TEST(AdminConfig, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = ::testing::TempDir() + "colltune-test-fifo.yaml";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    load_admin_config(fifo);  // opening it for reading would block here
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), fifo + ": file: not a regular file");
  }
  ::unlink(fifo.c_str());
}

TEST(AdminConfig, MissingFileIsAnError) {
  try {
    load_admin_config("/nonexistent/colltune.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "/nonexistent/colltune.yaml: file: cannot be opened for reading: No such file or "
                 "directory");
  }
}

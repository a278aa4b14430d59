#include <gtest/gtest.h>

#include <map>
#include <string>

#include "algorithms/registry.hpp"
#include "runtime/agreement.hpp"
#include "settings.hpp"

using namespace colltune;

TEST(Settings, ReadsAndValidatesEnvironment) {
  static std::map<std::string, std::string> env;
  auto getenv_fn = [](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  env = {{"COLLTUNE_BCAST_ALGORITHM", "linear"},
         {"COLLTUNE_GATHER_ALGORITHM", "auto"},
         {"COLLTUNE_VERBOSE", "2"},
         {"COLLTUNE_FALLBACK", "error"},
         {"COLLTUNE_STATS", "1"},
         {"COLLTUNE_MODEL", "/m.yaml"}};
  Settings s = read_settings(getenv_fn);
  EXPECT_TRUE(s.errors.empty());
  EXPECT_EQ(s.forced[0]->name, "linear");
  EXPECT_EQ(s.forced[2], nullptr);
  EXPECT_EQ(s.verbose, 2);
  EXPECT_EQ(s.fallback, Fallback::kError);
  EXPECT_TRUE(s.stats);
  EXPECT_EQ(*s.model_path, "/m.yaml");

  env = {{"COLLTUNE_SCATTER_ALGORITHM", "ring"},
         {"COLLTUNE_VERBOSE", "9"},
         {"COLLTUNE_FALLBACK", "loud"},
         {"COLLTUNE_DISABLE", "maybe"}};
  s = read_settings(getenv_fn);
  ASSERT_EQ(s.errors.size(), 4u);
  const std::string all = s.errors[0] + "|" + s.errors[1] + "|" + s.errors[2] + "|" + s.errors[3];
  EXPECT_NE(all.find("COLLTUNE_SCATTER_ALGORITHM: unknown algorithm 'ring' (valid: auto, " +
                     algorithm_choices(Op::kScatter) + ")"),
            std::string::npos);
  EXPECT_NE(all.find("COLLTUNE_VERBOSE: invalid value '9' (valid: 0, 1, 2, 3)"), std::string::npos);
  EXPECT_NE(all.find("COLLTUNE_FALLBACK: invalid value 'loud' (valid: silent, warn, error)"),
            std::string::npos);
  EXPECT_NE(all.find("COLLTUNE_DISABLE: invalid value 'maybe'"), std::string::npos);
}

// Every row of the table parses its own default-free values and shows what it parsed, and
// every row that takes a closed set of values rejects a value outside it naming the choices.
TEST(Settings, TableRowsRoundTrip) {
  static std::map<std::string, std::string> env;
  auto getenv_fn = [](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  for (const SettingSpec& spec : setting_specs()) {
    EXPECT_EQ(spec.name.substr(0, 9), "COLLTUNE_");
    EXPECT_FALSE(spec.help.empty()) << spec.name;
    const std::string values = spec.values();
    if (values.find(", ") == std::string::npos || values.find("path") != std::string::npos) {
      continue;
    }
    std::size_t start = 0;
    while (start < values.size()) {
      const std::size_t end = std::min(values.find(", ", start), values.size());
      const std::string v = values.substr(start, end - start);
      env = {{std::string(spec.name), v}};
      const Settings s = read_settings(getenv_fn);
      EXPECT_TRUE(s.errors.empty()) << spec.name << "=" << v;
      EXPECT_EQ(spec.show(s), v) << spec.name;
      start = end + 2;
    }
    env = {{std::string(spec.name), "bogus"}};
    const Settings s = read_settings(getenv_fn);
    ASSERT_EQ(s.errors.size(), 1u) << spec.name;
    EXPECT_NE(s.errors[0].find(std::string(spec.name) + ": "), std::string::npos);
    EXPECT_NE(s.errors[0].find("(valid: " + values + ")"), std::string::npos) << s.errors[0];
  }
}

// The algorithm variables list exactly the registry's algorithms of their op.
TEST(Settings, AlgorithmChoicesComeFromTheRegistry) {
  for (int op = 0; op < kNumOps; ++op) {
    const std::string name = "COLLTUNE_" + [&] {
      std::string u(op_name(static_cast<Op>(op)));
      for (char& c : u) c = static_cast<char>(std::toupper(c));
      return u;
    }() + "_ALGORITHM";
    std::string want = "auto";
    for (const Algorithm& a : algorithms()) {
      if (a.op == static_cast<Op>(op)) want += ", " + std::string(a.name);
    }
    EXPECT_EQ(setting_spec(name).values(), want);
  }
}

TEST(Agreement, RankListsAreCompressed) {
  EXPECT_EQ(rank_list({1}), "1");
  EXPECT_EQ(rank_list({1, 2, 3, 5, 7, 8}), "1-3, 5, 7-8");
  EXPECT_EQ(rank_list({1, 3, 5, 7}, 2), "1, 3, ... (4 ranks)");
}

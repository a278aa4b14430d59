#include <gtest/gtest.h>

#include <string>

#include "selection.hpp"

using namespace colltune;

namespace {
AdminConfig rules(const std::string& text) {
  return parse_admin_config("admin.yaml", YAML::Load(text));
}
ModelTable table(const std::string& decisions) {
  return parse_model_table(
      "model.yaml",
      YAML::Load(
          "colltune_model: 1\nplatform: {mpi_library: x, hosts: [{name: a, topology: t}]}\n" +
          decisions));
}
std::string_view pick(const Decisions& d, std::uint64_t bytes, int root = 0) {
  return d.segment(d.find(bytes, root)).algorithm->name;
}
}  // namespace

TEST(Selection, PrecedenceEnvThenRulesThenTableThenNative) {
  const AdminConfig cfg = rules(R"(
rules:
  - {op: bcast, bytes: [0, 1000], algorithm: linear}
  - {op: bcast, bytes: [500, 5000], algorithm: native}
)");
  const ModelTable t = table(R"(
decisions:
  bcast:
    - comm_size: [1, 16]
      bytes:
        - {range: [0, 10000], algorithm: binomial}
)");
  const CommFacts facts{8, 0, 0};
  const Decisions d = resolve(Op::kBcast, facts, nullptr, &cfg, &t);
  EXPECT_EQ(pick(d, 0), "linear");
  EXPECT_EQ(pick(d, 700), "linear");  // first matching rule wins over the second
  EXPECT_EQ(pick(d, 3000), "native");
  EXPECT_EQ(pick(d, 9000), "binomial");  // table
  EXPECT_EQ(pick(d, 20000), "native");   // nothing matches: default
  EXPECT_NE(d.segment(d.find(9000, 0)).reason.find("model table model.yaml"), std::string::npos);
  EXPECT_NE(d.segment(d.find(700, 0)).reason.find("admin rule rules[0] at admin.yaml:3"),
            std::string::npos);

  const Decisions forced =
      resolve(Op::kBcast, facts, find_algorithm(Op::kBcast, "binomial"), &cfg, &t);
  EXPECT_EQ(pick(forced, 700), "binomial");
  EXPECT_NE(forced.segment(0).reason.find("COLLTUNE_BCAST_ALGORITHM=binomial"), std::string::npos);

  // A table entry for other communicator sizes does not apply.
  const Decisions big = resolve(Op::kBcast, CommFacts{32, 0, 0}, nullptr, nullptr, &t);
  EXPECT_EQ(pick(big, 9000), "native");
}

TEST(Selection, RulesMatchCommSizeRootAndTopology) {
  const AdminConfig cfg = rules(R"(
rules:
  - {op: scatter, comm_size: [4, 8], root: 2, algorithm: linear}
  - {op: scatter, nodes: [2, max], ppn: 1, algorithm: binomial}
)");
  const Decisions d4 = resolve(Op::kScatter, CommFacts{4, 1, 4}, nullptr, &cfg, nullptr);
  EXPECT_EQ(pick(d4, 10, 2), "linear");
  EXPECT_EQ(pick(d4, 10, 0), "native");  // root 0; one node, so the topology rule misses
  const Decisions d3 = resolve(Op::kScatter, CommFacts{3, 3, 1}, nullptr, &cfg, nullptr);
  EXPECT_EQ(pick(d3, 10, 2), "binomial");  // size 3 misses rule 0; 3 nodes x 1 ppn hits rule 1
  EXPECT_FALSE(rule_matches_comm(cfg.rules[1], CommFacts{3, 0, 0}));  // topology unknown
  // Rules for other ops are ignored.
  EXPECT_EQ(pick(resolve(Op::kGather, CommFacts{4, 1, 4}, nullptr, &cfg, nullptr), 10, 2),
            "native");
}

TEST(Selection, DecisionLogsOncePerSegment) {
  const AdminConfig cfg = rules("rules:\n  - {op: gather, bytes: [0, 10], algorithm: linear}\n");
  const Decisions d = resolve(Op::kGather, CommFacts{2, 0, 0}, nullptr, &cfg, nullptr);
  ASSERT_EQ(d.size(), 2u);
  const std::size_t i = d.find(5, 0);
  EXPECT_TRUE(d.first_use(i));
  EXPECT_FALSE(d.first_use(i));
  EXPECT_TRUE(d.first_use(d.find(50, 0)));
}

// Bounded mutation fuzzing of both YAML readers: seeds from config/, mutated by byte flips,
// insertions, deletions, duplications and truncation. Every input must either parse or raise
// InputError: no crash, no hang, no other exception. Deterministic (fixed seed), time-bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "config.hpp"
#include "model_table.hpp"

using namespace colltune;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string mutate(std::string s, std::mt19937& rng) {
  static const std::string alphabet = "[]{}:,-#&*!|>'\"%@` \n\t0123456789abcmaxKiB.\\";
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const std::size_t at = rng() % s.size();
    switch (rng() % 6) {
      case 0:
        s[at] = static_cast<char>(rng() % 256);
        break;
      case 1:
        s.insert(at, 1, alphabet[rng() % alphabet.size()]);
        break;
      case 2:
        s.erase(at, 1 + rng() % 16);
        break;
      case 3:
        s.insert(at, s.substr(at, rng() % 64));
        break;
      case 4:
        s.resize(at);
        break;
      case 5:
        s.insert(at, std::string(1 + rng() % 40, "[{-"[rng() % 3]));
        break;
    }
  }
  return s;
}

template <typename Parse>
void fuzz(const std::string& seed, Parse parse, int iterations) {
  std::mt19937 rng(12345);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < iterations && std::chrono::steady_clock::now() < deadline; ++i) {
    const std::string input = mutate(seed, rng);
    try {
      YamlReader y("fuzz.yaml");
      parse(y.load_string(input));
      ++parsed;
    } catch (const InputError&) {
      ++rejected;
    } catch (const std::exception& e) {
      FAIL() << "unexpected exception " << e.what() << " for input:\n" << input;
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(parsed + rejected, 1000);
}

}  // namespace

TEST(Fuzz, AdminConfigReader) {
  const std::string seed = slurp(COLLTUNE_SOURCE_DIR "/config/example-rules.yaml");
  ASSERT_FALSE(seed.empty());
  fuzz(
      seed, [](const YAML::Node& n) { parse_admin_config("fuzz.yaml", n); }, 20000);
}

TEST(Fuzz, ModelTableReader) {
  const std::string seed = slurp(COLLTUNE_SOURCE_DIR "/config/example-model.yaml");
  ASSERT_FALSE(seed.empty());
  fuzz(
      seed, [](const YAML::Node& n) { parse_model_table("fuzz.yaml", n); }, 20000);
}

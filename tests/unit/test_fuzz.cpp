// Bounded mutation fuzzing of both YAML readers: seeds from config/ and a calibrated table
// (tests/data/hetcluster8-table.yaml), mutated by byte flips, insertions, deletions,
// duplications, truncation and replaced numbers and keys. Every input must either parse or raise
// InputError: no crash, no hang, no other exception. Deterministic (fixed seed), time-bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "model/platform_model.hpp"
#include "table/config.hpp"
#include "table/model_table.hpp"

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

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A mutant of a calibrated table, mostly of its `model:` section [from, to): half the time one
// number there made NaN, infinite, negative, zero, tiny or huge; else 1 to 4 edits, each inside
// [from, to) 7 times in 8: a byte flipped, the text truncated, a line deleted or duplicated, a
// number replaced, a key renamed. Appends what it did to *log, a line per edit.
std::string mutate_table(std::string s, std::size_t from, std::size_t to, std::mt19937& rng,
                         std::string* log) {
  static const std::vector<std::string> numbers = words(
      ".nan NaN .inf -.inf inf -1 -1e-3 -1e-9 -0 0 0 1e-320 4.9e-324 1e-30 1e308 1e400 2e9 "
      "99999999999999999999 0.5 1.0e+02 0x10");
  static const std::vector<std::string> keys = words(
      "identities C t inv_beta o port port_in thresholds S M1 M2 kappa1 kappa2 margin "
      "message_bytes correction correction_other_root correction_roots correction_unlike_root "
      "roots "
      "curves error native bcast scatter "
      "gather "
      "linear binomial mpich model decisions");
  const std::string_view number_chars = "0123456789.eE+-";
  const bool one_number = rng() % 2 == 0;
  const int edits = one_number ? 1 : 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    std::size_t at = rng() % s.size();
    if ((one_number || rng() % 8 != 0) && from < to && to <= s.size()) {
      at = from + rng() % (to - from);
    }
    const std::size_t bol = s.rfind('\n', at) == std::string::npos ? 0 : s.rfind('\n', at) + 1;
    const std::size_t eol = std::min(s.find('\n', at), s.size());
    const std::string where =
        "line " + std::to_string(std::count(s.begin(), s.begin() + at, '\n') + 1) + ": ";
    switch (one_number ? 4 : rng() % 6) {
      case 0:
        s[at] = static_cast<char>(rng() % 256);
        *log += where + "byte flipped\n";
        break;
      case 1:
        s.resize(at);
        *log += where + "truncated\n";
        break;
      case 2:
        s.erase(bol, eol + 1 - bol);
        *log += where + "deleted\n";
        break;
      case 3:
        s.insert(bol, s.substr(bol, eol + 1 - bol));
        *log += where + "duplicated\n";
        break;
      case 4: {  // the number at or after `at`
        std::size_t lo = s.find_first_of("0123456789", at), hi = lo;
        if (lo == std::string::npos) break;
        while (lo > 0 && number_chars.find(s[lo - 1]) != std::string::npos) --lo;
        while (hi < s.size() && number_chars.find(s[hi]) != std::string::npos) ++hi;
        const std::string& n = numbers[rng() % numbers.size()];
        *log += where + "number " + s.substr(lo, hi - lo) + " -> " + n + "\n";
        s.replace(lo, hi - lo, n);
        break;
      }
      case 5: {  // the line's key: another one, or misspelt
        const std::size_t colon = s.find(':', bol), k = s.find_first_not_of(" -{", bol);
        if (colon >= eol || k >= colon) break;
        const std::string key =
            rng() % 2 ? keys[rng() % keys.size()] : s.substr(k, colon - k) + "x";
        *log += where + "key " + s.substr(k, colon - k) + " -> " + key + "\n";
        s.replace(k, colon - k, key);
        break;
      }
    }
  }
  return s;
}

// What a parsed model must allow: model::decide for every op, native first, at root 0 and at
// the last rank of a small member list (identities 0 twice, 1, the last, the cluster average),
// as the runtime's model_decisions does. Returns "" when every byte range [0, max] has an
// algorithm and every prediction is finite and positive, else what went wrong.
std::string check_decisions(const model::PlatformModel& pm) {
  const model::LmoParams p = model::with_average(pm.params);
  const int k = static_cast<int>(pm.identities.size());
  const std::vector<int> members = {0, k - 1, k, 0, std::min(1, k - 1)};
  for (int o = 0; o < kNumOps; ++o) {
    const Op op = static_cast<Op>(o);
    const std::vector<const Algorithm*> cands = algorithms_of(op);
    for (const int root : {0, static_cast<int>(members.size()) - 1}) {
      const std::string at = std::string(op_name(op)) + " root " + std::to_string(root) + ": ";
      const std::vector<model::Choice> choices = model::decide(pm, p, op, cands, members, root);
      if (choices.empty() || choices.front().bytes.lo != 0) return at + "no choice from 0 bytes";
      for (std::size_t i = 0; i < choices.size(); ++i) {
        const model::Choice& c = choices[i];
        if (!c.algorithm) return at + "no algorithm";
        if (i + 1 < choices.size() && choices[i + 1].bytes.lo != c.bytes.hi + 1) {
          return at + "byte ranges not contiguous";
        }
        for (std::size_t j = 0; j < c.predicted.size(); ++j) {
          // kNever: an algorithm not `decided`, where calibration did not sweep it.
          if (c.predicted[j] == model::kNever && !cands[j]->decided &&
              !model::validated_at(pm, *cands[j], c.at)) {
            continue;
          }
          if (!std::isfinite(c.predicted[j]) || c.predicted[j] <= 0) {
            std::ostringstream o;
            o << at << cands[j]->name << " predicted " << c.predicted[j] << " s at " << c.at
              << " B";
            return o.str();
          }
        }
      }
      if (choices.back().bytes.hi != kMaxValue) return at + "no choice up to max bytes";
    }
  }
  return {};
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

// A real calibrated table (colltune-calibrate, schema 3) mutated mostly in its `model:`
// section, as the preloaded library reads it from its first-launch cache: it parses or throws
// InputError naming the file, and a parsed model decides (check_decisions), else the parser
// should have refused it. Both outcomes must come from the model section: the mutants reach
// parse_platform_model (the schema-1 seed of Fuzz.ModelTableReader never does).
TEST(Fuzz, CalibratedModelTable) {
  const std::string seed = slurp(COLLTUNE_SOURCE_DIR "/tests/data/hetcluster8-table.yaml");
  const std::size_t from = seed.find("\nmodel:\n"), to = seed.find("\ncalibration:\n");
  ASSERT_LT(from, to);
  ASSERT_NE(to, std::string::npos);
  {
    YamlReader y("seed.yaml");
    const ModelTable t = parse_model_table("seed.yaml", y.load_string(seed));
    ASSERT_TRUE(t.platform_model);
    ASSERT_EQ(check_decisions(*t.platform_model), "");
  }
  const std::string file = "fuzz-table.yaml";
  const std::regex model_field("^" + file + "(:[0-9]+)?: model[.:\\[]");
  std::mt19937 rng(20240611);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int models = 0, model_refusals = 0, other_refusals = 0;
  for (int i = 0; i < 400 && std::chrono::steady_clock::now() < deadline; ++i) {
    std::string edits;
    const std::string input = mutate_table(seed, from, to, rng, &edits);
    try {
      YamlReader y(file);
      const ModelTable t = parse_model_table(file, y.load_string(input));
      if (!t.platform_model) continue;
      ++models;
      const std::string why = check_decisions(*t.platform_model);
      if (!why.empty())
        FAIL() << "mutant " << i << " parsed, then " << why << "; edits:\n" << edits;
    } catch (const InputError& e) {
      const std::string what = e.what();
      if (what.rfind(file + ":", 0) != 0) FAIL() << "InputError not naming the file: " << what;
      ++(std::regex_search(what, model_field) ? model_refusals : other_refusals);
    } catch (const std::exception& e) {
      FAIL() << "mutant " << i << ": unexpected exception " << e.what() << "; edits:\n" << edits;
    }
  }
  std::printf("calibrated table: %d models decided, %d refused in model:, %d elsewhere\n", models,
              model_refusals, other_refusals);
  EXPECT_GT(models, 0);
  EXPECT_GT(model_refusals, 0);
}

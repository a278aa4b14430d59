// COLLTUNE_* environment settings, from one declarative table (settings.cpp): the parser, the
// cross-rank check, `colltune-info --env` and the README's table all come from it.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/collective.hpp"

namespace colltune {

struct Algorithm;

enum class Fallback { kSilent, kWarn, kError };

// What every rank of a job must share for collectives to stay matched.
enum class Agree {
  kValue,     // the same value on every rank
  kContents,  // paths may differ; what they load must be the same
  kNone,      // per process (only that process reads it)
};

enum class CalibrateMode { kFirstLaunch, kNever, kAlways };

struct Settings {
  bool disabled = false;
  Fallback fallback = Fallback::kWarn;
  int verbose = 0;
  bool stats = false;
  bool verify = true;  // COLLTUNE_VERIFY: model picks checked against native in the first calls
  std::array<const Algorithm*, kNumOps> forced{};         // nullptr: auto
  std::optional<std::string> config_path;                 // COLLTUNE_CONFIG
  std::optional<std::string> model_path;                  // COLLTUNE_MODEL
  CalibrateMode calibrate = CalibrateMode::kFirstLaunch;  // COLLTUNE_CALIBRATE
  double calibrate_budget = 3.0;                          // COLLTUNE_CALIBRATE_BUDGET, seconds
  std::optional<std::string> cache_dir;                   // COLLTUNE_CACHE_DIR
  std::optional<std::string> identity;                    // COLLTUNE_IDENTITY
  std::vector<std::string> errors;                        // one line each, naming the variable
};

struct SettingSpec {
  std::string_view name;
  std::string_view default_value;
  std::string_view scope;  // what it applies to
  Agree agree;
  std::string_view help;
  // Valid values, for messages and documentation.
  std::string (*values)();
  // Parses a non-empty value into `s`; returns "" or the reason it is invalid.
  std::string (*parse)(std::string_view value, Settings& s);
  // The value in effect, canonical (equal on two ranks exactly when they behave alike).
  std::string (*show)(const Settings& s);
};

std::span<const SettingSpec> setting_specs();
// "COLLTUNE_BCAST_ALGORITHM" etc.: the variable that forces an op's algorithm.
std::string_view algorithm_variable(Op op);
const SettingSpec& setting_spec(std::string_view name);

// Reads every COLLTUNE_* setting; `getenv` is injectable for tests. Never throws for bad
// values: each lands in Settings::errors as one line with the valid choices.
Settings read_settings(const char* (*getenv_fn)(const char*));

// The settings table as Markdown (README) or as plain text (`colltune-info --env`).
std::string settings_markdown();
std::string settings_text();

}  // namespace colltune

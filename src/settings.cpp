#include "settings.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include "algorithms/registry.hpp"

namespace colltune {

namespace {

std::string parse_flag(std::string_view v, bool* out) {
  if (v == "1" || v == "yes" || v == "true" || v == "on") {
    *out = true;
  } else if (v == "0" || v == "no" || v == "false" || v == "off") {
    *out = false;
  } else {
    return "invalid value '" + std::string(v) + "' (valid: 0, 1)";
  }
  return {};
}

std::string flag_values() { return "0, 1"; }
std::string show_flag(bool b) { return b ? "1" : "0"; }

constexpr std::string_view kFallbackNames[] = {"silent", "warn", "error"};

template <Op kOp>
std::string algorithm_values() {
  return "auto, " + algorithm_choices(kOp);
}

template <Op kOp>
std::string parse_algorithm(std::string_view v, Settings& s) {
  const int op = static_cast<int>(kOp);
  if (v == "auto") {
    s.forced[op] = nullptr;
    return {};
  }
  s.forced[op] = find_algorithm(kOp, v);
  if (s.forced[op]) return {};
  return "unknown algorithm '" + std::string(v) + "' (valid: " + algorithm_values<kOp>() + ")";
}

template <Op kOp>
std::string show_algorithm(const Settings& s) {
  const Algorithm* a = s.forced[static_cast<int>(kOp)];
  return a ? std::string(a->name) : "auto";
}

constexpr std::string_view kAlgorithmVariables[kNumOps] = {
    "COLLTUNE_BCAST_ALGORITHM", "COLLTUNE_SCATTER_ALGORITHM", "COLLTUNE_GATHER_ALGORITHM"};

std::string path_values() { return "a file path, or none"; }

constexpr std::string_view kCalibrateNames[] = {"first-launch", "never", "always"};

// Seconds of a calibration budget: a decimal number in [0.1, 3600].
std::string parse_budget(std::string_view v, Settings& s) {
  const std::string text(v);
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(d >= 0.1 && d <= 3600)) {
    return "invalid value '" + text + "' (valid: seconds from 0.1 to 3600)";
  }
  s.calibrate_budget = d;
  return {};
}

const SettingSpec kSpecs[] = {
    {"COLLTUNE_DISABLE", "0", "every op", Agree::kValue,
     "`1`: every call goes straight to MPICH (the cross-rank check still runs)", flag_values,
     [](std::string_view v, Settings& s) { return parse_flag(v, &s.disabled); },
     [](const Settings& s) { return show_flag(s.disabled); }},
    {kAlgorithmVariables[0], "auto", "bcast", Agree::kValue,
     "force one algorithm for every MPI_Bcast of this run", algorithm_values<Op::kBcast>,
     parse_algorithm<Op::kBcast>, show_algorithm<Op::kBcast>},
    {kAlgorithmVariables[1], "auto", "scatter", Agree::kValue,
     "force one algorithm for every MPI_Scatter of this run", algorithm_values<Op::kScatter>,
     parse_algorithm<Op::kScatter>, show_algorithm<Op::kScatter>},
    {kAlgorithmVariables[2], "auto", "gather", Agree::kValue,
     "force one algorithm for every MPI_Gather of this run", algorithm_values<Op::kGather>,
     parse_algorithm<Op::kGather>, show_algorithm<Op::kGather>},
    {"COLLTUNE_CONFIG", "the installed etc/colltune/colltune.yaml, if present", "every op",
     Agree::kContents, "admin YAML (rules; may name the model table)", path_values,
     [](std::string_view v, Settings& s) {
       s.config_path = std::string(v);
       return std::string();
     },
     [](const Settings& s) { return s.config_path.value_or("(default)"); }},
    {"COLLTUNE_MODEL", "the `model:` key of the admin YAML", "every op", Agree::kContents,
     "model table", path_values,
     [](std::string_view v, Settings& s) {
       s.model_path = std::string(v);
       return std::string();
     },
     [](const Settings& s) { return s.model_path.value_or("(from the configuration)"); }},
    {"COLLTUNE_FALLBACK", "warn", "every op", Agree::kValue,
     "a forced algorithm that cannot run (e.g. on an intercommunicator), bad input and ranks "
     "that disagree: `error` stops the job",
     [] { return std::string("silent, warn, error"); },
     [](std::string_view v, Settings& s) {
       for (int i = 0; i < 3; ++i) {
         if (v == kFallbackNames[i]) {
           s.fallback = static_cast<Fallback>(i);
           return std::string();
         }
       }
       return "invalid value '" + std::string(v) + "' (valid: silent, warn, error)";
     },
     [](const Settings& s) { return std::string(kFallbackNames[static_cast<int>(s.fallback)]); }},
    {"COLLTUNE_VERBOSE", "0", "every op", Agree::kValue,
     "`1`: configuration loaded, each new decision once with its reason; `2`: also each new "
     "communicator; `3`: also every call (op, communicator, root, bytes, algorithm)",
     [] { return std::string("0, 1, 2, 3"); },
     [](std::string_view v, Settings& s) {
       if (v.size() == 1 && v[0] >= '0' && v[0] <= '3') {
         s.verbose = v[0] - '0';
         return std::string();
       }
       return "invalid value '" + std::string(v) + "' (valid: 0, 1, 2, 3)";
     },
     [](const Settings& s) { return std::to_string(s.verbose); }},
    {"COLLTUNE_STATS", "0", "every op", Agree::kValue,
     "`1`: at MPI_Finalize, one line per (op, algorithm) used", flag_values,
     [](std::string_view v, Settings& s) { return parse_flag(v, &s.stats); },
     [](const Settings& s) { return show_flag(s.stats); }},
    {"COLLTUNE_VERIFY", "1", "every op", Agree::kValue,
     "`1`: where the model picks an algorithm other than native, the first calls of each "
     "communicator, root and size range alternate it with native, and it is kept only if the "
     "slowest rank found it faster by the table's margin (docs/node-aware.md); `0`: the model's "
     "pick as it is",
     flag_values, [](std::string_view v, Settings& s) { return parse_flag(v, &s.verify); },
     [](const Settings& s) { return show_flag(s.verify); }},
    {"COLLTUNE_CALIBRATE", "first-launch", "every op", Agree::kValue,
     "without a model table: `first-launch` calibrates MPI_COMM_WORLD at MPI_Init when the cache "
     "has no valid table for this platform and reuses it later (a failure is remembered: the "
     "same budget runs native for 24 h); `always` calibrates every run; "
     "`never` runs native (docs/calibration.md)",
     [] { return std::string("first-launch, never, always"); },
     [](std::string_view v, Settings& s) {
       for (int i = 0; i < 3; ++i) {
         if (v == kCalibrateNames[i]) {
           s.calibrate = static_cast<CalibrateMode>(i);
           return std::string();
         }
       }
       return "invalid value '" + std::string(v) + "' (valid: first-launch, never, always)";
     },
     [](const Settings& s) { return std::string(kCalibrateNames[static_cast<int>(s.calibrate)]); }},
    {"COLLTUNE_CALIBRATE_BUDGET", "3", "every op", Agree::kValue,
     "seconds a first-launch calibration may take", [] { return std::string("0.1 to 3600"); },
     parse_budget,
     [](const Settings& s) {
       // The shortest text that reads back as the same double: ranks agree on the value used.
       char b[32];
       const auto r = std::to_chars(b, b + sizeof b, s.calibrate_budget);
       return std::string(b, r.ptr);
     }},
    {"COLLTUNE_CACHE_DIR", "`$XDG_CACHE_HOME/colltune`, else `~/.cache/colltune`", "every op",
     Agree::kNone, "where first-launch calibration keeps its tables (read and written by rank 0)",
     [] { return std::string("a directory path"); },
     [](std::string_view v, Settings& s) {
       s.cache_dir = std::string(v);
       return std::string();
     },
     [](const Settings& s) { return s.cache_dir.value_or("(default)"); }},
    {"COLLTUNE_IDENTITY", "`host` or `host/numaK` (`host/pkgK`) of the process's binding",
     "every op", Agree::kNone,
     "this process's identity in the model table; set it where emulated hosts share one host "
     "name (network namespaces)",
     [] { return std::string("a name without spaces"); },
     [](std::string_view v, Settings& s) {
       if (v.find_first_of(" \t\n") != std::string_view::npos) {
         return "invalid value '" + std::string(v) + "' (valid: a name without spaces)";
       }
       s.identity = std::string(v);
       return std::string();
     },
     [](const Settings& s) { return s.identity.value_or("(default)"); }},
};

std::string agree_text(Agree a) {
  return a == Agree::kValue ? "value" : a == Agree::kContents ? "contents" : "no (per process)";
}

}  // namespace

std::span<const SettingSpec> setting_specs() { return kSpecs; }

std::string_view algorithm_variable(Op op) { return kAlgorithmVariables[static_cast<int>(op)]; }

const SettingSpec& setting_spec(std::string_view name) {
  for (const SettingSpec& s : kSpecs) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no setting " + std::string(name));
}

Settings read_settings(const char* (*getenv_fn)(const char*)) {
  Settings s;
  for (const SettingSpec& spec : kSpecs) {
    const char* v = getenv_fn(std::string(spec.name).c_str());
    if (!v || !*v) continue;
    const std::string why = spec.parse(v, s);
    if (!why.empty()) s.errors.push_back(std::string(spec.name) + ": " + why);
  }
  return s;
}

std::string settings_markdown() {
  std::string out =
      "| variable | values | default | applies to | must agree across ranks | meaning |\n"
      "|---|---|---|---|---|---|\n";
  for (const SettingSpec& s : kSpecs) {
    out += "| `" + std::string(s.name) + "` | " + s.values() + " | " +
           std::string(s.default_value) + " | " + std::string(s.scope) + " | " +
           agree_text(s.agree) + " | " + std::string(s.help) + " |\n";
  }
  return out;
}

std::string settings_text() {
  std::string out;
  for (const SettingSpec& s : kSpecs) {
    out +=
        std::string(s.name) + "\n  values: " + s.values() +
        "\n  default: " + std::string(s.default_value) + "\n  applies to: " + std::string(s.scope) +
        "\n  must agree across ranks: " + agree_text(s.agree) + "\n  " + std::string(s.help) + "\n";
  }
  return out;
}

}  // namespace colltune

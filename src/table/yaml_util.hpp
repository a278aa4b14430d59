// Helpers shared by the two YAML readers (admin config, model table): ranges, byte sizes,
// errors that name the file, the line and the valid choices.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../mapped_alloc.hpp"
#include "../vocabulary.hpp"

namespace colltune {

// Largest byte count a range may name explicitly ("max" means unbounded): 1 PiB.
inline constexpr std::uint64_t kAbsurdBytes = 1ull << 50;
// Largest communicator size, node count or processes per node a range may name.
inline constexpr std::uint64_t kAbsurdCount = 1ull << 24;

// A rejected input: where, which field, what is wrong (including the valid choices).
struct InputError : std::runtime_error {
  InputError(const std::string& file, int line, const std::string& field, const std::string& what)
      : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
                           field + ": " + what) {}
};

// Runs f(); a yaml-cpp exception escaping it becomes an InputError naming the file and line.
template <typename F>
auto rethrow_yaml_errors(const std::string& file, F&& f) {
  try {
    return f();
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.is_null() ? 0 : e.mark.line + 1, "yaml", e.msg);
  }
}

// The whole text of a regular file of at most 16 MiB, outside malloc (mapped_alloc.hpp). Never
// waits for a writer (a FIFO is refused); `follow_links` false refuses a symbolic link.
// Throws InputError.
MappedString read_text_file(const std::string& file, bool follow_links = true);

// Seconds since the epoch as "YYYY-MM-DDTHH:MM:SSZ" (UTC, whole seconds), and back; nullopt
// when the text is not exactly that form or not a real date.
std::string format_utc(double epoch_seconds);
std::optional<double> parse_utc(std::string_view text);

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  // Reads and parses the whole file (size-bounded; aliases refused); throws InputError.
  YAML::Node load() const;
  YAML::Node load_string(std::string_view text) const;

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field,
                         const std::string& what) const;
  void require_map(const YAML::Node& n, const std::string& field) const;
  void require_seq(const YAML::Node& n, const std::string& field) const;
  // Rejects keys not in `allowed`, naming the valid ones.
  void check_keys(const YAML::Node& map, const std::string& field,
                  const std::vector<std::string>& allowed) const;
  std::string scalar(const YAML::Node& n, const std::string& field) const;
  // Non-negative integer, optionally with a K/KiB/M/MiB/G/GiB suffix when `bytes`.
  std::uint64_t number(const YAML::Node& n, const std::string& field, bool bytes,
                       std::uint64_t absurd) const;
  // `N`, `[lo, hi]` or `[lo, max]`; lo <= hi; bounds below `absurd` (or max).
  Range range(const YAML::Node& n, const std::string& field, bool bytes,
              std::uint64_t absurd) const;

 private:
  YAML::Node parse(std::istream& in) const;
  std::string file_;
};

}  // namespace colltune

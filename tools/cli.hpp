// The command line of colltune's four tools (CLI11): --help prints the tool's help and exits 0;
// bad arguments print one line "<tool>: <what is wrong>" and the usage line on stderr, exit 2.
#pragma once

// Under SMPI, smpi_helpers.h (included by SimGrid's compiler wrapper) makes exit() a macro,
// which would rewrite CLI11's App::exit.
#pragma push_macro("exit")
#undef exit
#include <CLI/CLI.hpp>
#pragma pop_macro("exit")
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace colltune::cli {

// Exit status of bad arguments.
inline constexpr int kBadArgs = 2;

// Whether this is the launcher's first process before MPI starts; true outside a launcher.
inline bool first_process() {
  for (const char* v : {"PMI_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"}) {
    if (const char* s = std::getenv(v)) return std::atoi(s) == 0;
  }
  return true;
}

// The whole of s as a finite number.
inline bool to_number(const std::string& s, double* x) {
  char* end = nullptr;
  *x = std::strtod(s.c_str(), &end);
  return !s.empty() && end != s.c_str() && *end == '\0' && std::isfinite(*x);
}

// x as written in messages: "0.1", "3600", "1e+18".
inline std::string text(double x) {
  std::ostringstream s;
  s.precision(15);
  s << x;
  return s.str();
}

// Items joined with ", ".
inline std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The items of a list: "a,b" -> {"a", "b"}; "" -> {}.
inline std::vector<std::string> split(const std::string& s, char sep = ',') {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string x;
  while (std::getline(in, x, sep)) out.push_back(x);
  return out;
}

// Accepts what ok() accepts; else "invalid value 'V' (valid: WHAT)".
inline CLI::Validator valid(const std::string& what, std::function<bool(const std::string&)> ok) {
  return CLI::Validator(
      [what, ok](std::string& v) {
        return ok(v) ? std::string() : "invalid value '" + v + "' (valid: " + what + ")";
      },
      "");
}

// Numbers from lo to hi ("NOUN from lo to hi").
inline CLI::Validator number(double lo, double hi, const std::string& noun = "numbers") {
  return valid(noun + " from " + text(lo) + " to " + text(hi), [lo, hi](const std::string& s) {
    double x = 0;
    return to_number(s, &x) && x >= lo && x <= hi;
  });
}

// Whole numbers (decimal digits) from lo to hi ("NOUN from lo to hi").
inline CLI::Validator integer(long long lo, long long hi, const std::string& noun = "integers") {
  return valid(noun + " from " + std::to_string(lo) + " to " + std::to_string(hi),
               [lo, hi](const std::string& s) {
                 char* end = nullptr;
                 errno = 0;
                 const long long x = std::strtoll(s.c_str(), &end, 10);
                 return !s.empty() &&
                        (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-') &&
                        *end == '\0' && errno == 0 && x >= lo && x <= hi;
               });
}

// One of names.
inline CLI::Validator one_of(std::vector<std::string> names) {
  return valid(join(names), [names](const std::string& s) {
    for (const std::string& n : names) {
      if (n == s) return true;
    }
    return false;
  });
}

// A comma-separated list whose every item passes item (its message names the first that fails).
inline CLI::Validator each(CLI::Validator item) {
  return CLI::Validator(
      [item](std::string& v) {
        for (const std::string& x : split(v)) {
          if (std::string why = item(x); !why.empty()) return why;
        }
        return v.empty() || v.back() == ',' ? item(std::string()) : std::string();
      },
      "");
}

// A tool's parser: options go into app (repeated: the last counts); --help prints usage + help;
// only a process that speaks prints (MPI tools: the first).
class Parser {
 public:
  Parser(std::string name, std::string usage, std::string help, bool speak = true)
      : app("", std::move(name)), usage_(std::move(usage)), help_(std::move(help)), speak_(speak) {
    app.allow_extras();  // unknown arguments are reported by parse(), with the valid options
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }

  CLI::App app;

  // -1: the arguments are valid; 0: --help was printed; 2: the error line was printed.
  int parse(int argc, char** argv) {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      if (speak_) std::printf("%s%s", usage_.c_str(), help_.c_str());
      return 0;
    } catch (const CLI::ParseError& e) {
      const std::string extra = unexpected();
      return fail(extra.empty() ? reworded(e) : extra);
    }
    std::string why = unexpected();
    if (why.empty()) why = empty_value();
    return why.empty() ? -1 : fail(why);
  }

  // Prints "<tool>: why" and the usage lines; returns 2.
  int fail(const std::string& why) const {
    if (speak_)
      std::fprintf(stderr, "%s: %s\n%s", app.get_name().c_str(), why.c_str(), usage_.c_str());
    return kBadArgs;
  }

  // The names of a's subcommands, for messages: "collect, summary"; "" if it has none.
  static std::string commands(const CLI::App& a) {
    std::vector<std::string> names;
    for (const CLI::App* c : a.get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(c->get_name());
    }
    return join(names);
  }

 private:
  // The app and the subcommands given, outermost first.
  std::vector<const CLI::App*> used() const {
    std::vector<const CLI::App*> chain{&app};
    while (!chain.back()->get_subcommands().empty()) {
      chain.push_back(chain.back()->get_subcommands().front());
    }
    return chain;
  }

  // The first argument no option or command took, with what was valid where it stood; "" if none.
  std::string unexpected() const {
    for (const CLI::App* a : used()) {
      const std::vector<std::string> rest = a->remaining();
      if (rest.empty()) continue;
      const std::string& x = rest.front();
      const bool option = x.rfind('-', 0) == 0;
      if (!option && !commands(*a).empty()) {
        return "unknown command '" + x + "' (valid: " + commands(*a) + ")";
      }
      std::vector<std::string> names;
      for (const CLI::Option* o : a->get_options()) {
        if (o->nonpositional() && o != a->get_help_ptr()) names.push_back(o->get_name());
      }
      return (option ? "unknown option '" : "unexpected argument '") + x +
             "' (valid: " + join(names) + ")";
    }
    return {};
  }

  // The first option given an empty value: "X needs a value (TYPE)"; "" if none.
  std::string empty_value() const {
    for (const CLI::App* a : used()) {
      for (const CLI::Option* o : a->get_options()) {
        for (const std::string& r : o->results()) {
          if (r.empty() && o->get_items_expected_min() > 0) {
            return o->get_name() + " needs a value (" + o->get_type_name() + ")";
          }
        }
      }
    }
    return {};
  }

  // CLI11's message, with what a missing value or option takes: "X needs a value (TYPE)",
  // "X needs N values (TYPE)", "X is required (TYPE)".
  std::string reworded(const CLI::ParseError& e) const {
    static const std::regex missing("^(\\S+): ([0-9]+) required (.*) missing$");
    static const std::regex required("^(-\\S+) is required$");
    const std::string what = e.what();
    std::smatch m;
    if (std::regex_match(what, m, missing)) {
      const std::string n = m[2].str() == "1" ? "a value" : m[2].str() + " values";
      return m[1].str() + " needs " + n + " (" + m[3].str() + ")";
    }
    if (std::regex_match(what, m, required)) {
      for (const CLI::App* a : used()) {
        if (const CLI::Option* o = a->get_option_no_throw(m[1].str())) {
          return what + " (" + o->get_type_name() + ")";
        }
      }
    }
    return what;
  }

  std::string usage_, help_;
  bool speak_;
};

}  // namespace colltune::cli

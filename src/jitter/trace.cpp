#include "trace.hpp"

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "../table/atomic_file.hpp"
#include "../table/yaml_util.hpp"

namespace colltune::jitter {

std::uint64_t Trace::length() const {
  return std::accumulate(jitter.begin(), jitter.end(), std::uint64_t{0}) +
         std::accumulate(gap.begin(), gap.end(), std::uint64_t{0});
}

std::uint64_t Trace::lost() const {
  return std::accumulate(jitter.begin(), jitter.end(), std::uint64_t{0});
}

namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

double number(const std::string& v, const std::string& path, int line, const std::string& field,
              double lo) {
  double x = 0;
  if (!parse_number(v, &x) || x < lo) {
    throw InputError(path, line, field,
                     "expected a number of at least " + std::to_string(lo) + ", got '" + v + "'");
  }
  return x;
}

}  // namespace

bool parse_number(const std::string& v, double* out) {
  std::size_t used = 0;
  try {
    *out = std::stod(v, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used > 0 && trim(v.substr(used)).empty() && std::isfinite(*out);
}

Trace parse_trace(const std::string& text, const std::string& path) {
  Trace t;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  bool magic = false;
  while (std::getline(in, raw)) {
    ++line;
    const std::string s = trim(raw);
    if (s.empty()) continue;
    if (s[0] == '#') {
      const std::string body = trim(s.substr(1));
      if (body.rfind("colltune-jitter trace", 0) == 0) {
        magic = true;
        continue;
      }
      const auto colon = body.find(':');
      if (colon == std::string::npos) continue;  // a comment
      const std::string key = trim(body.substr(0, colon)), v = trim(body.substr(colon + 1));
      if (key == "cpu")
        t.header.cpu = v;
      else if (key == "kernel")
        t.header.kernel = v;
      else if (key == "start")
        t.header.start = v;
      else if (key == "hz")
        t.header.hz = number(v, path, line, "hz", 1);
      else if (key == "threshold_cycles")
        t.header.threshold_cycles =
            static_cast<std::uint64_t>(number(v, path, line, "threshold_cycles", 0));
      else if (key == "duration_s")
        t.header.duration_s = number(v, path, line, "duration_s", 0);
      else if (key == "core")
        t.header.core = static_cast<int>(number(v, path, line, "core", -1));
      continue;
    }
    std::istringstream row(s);
    std::string a, b, extra;
    if (!(row >> a >> b) || (row >> extra)) {
      throw InputError(path, line, "row",
                       "expected '<jitter_cycles> <cycles_to_next_jitter>', got '" + s + "'");
    }
    t.jitter.push_back(static_cast<std::uint64_t>(number(a, path, line, "jitter_cycles", 0)));
    t.gap.push_back(static_cast<std::uint64_t>(number(b, path, line, "cycles_to_next_jitter", 0)));
  }
  if (!magic) {
    throw InputError(path, 1, "header",
                     "not a colltune-jitter trace (first line '# colltune-jitter trace 1'); "
                     "LogGOPSim noise files are read with 'colltune-jitter import'");
  }
  if (t.header.hz <= 0) throw InputError(path, 0, "hz", "missing (the counter's frequency)");
  if (t.jitter.empty()) throw InputError(path, 0, "rows", "the trace has no rows");
  if (t.length() == 0) throw InputError(path, 0, "rows", "the trace covers no time");
  return t;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "file", "cannot be opened for reading");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "file", "read error");
  return s.str();
}

Trace read_trace(const std::string& path) { return parse_trace(read_text(path), path); }

std::string format_trace(const Trace& t) {
  std::ostringstream o;
  o.precision(12);
  o << "# colltune-jitter trace 1\n";
  if (!t.header.cpu.empty()) o << "# cpu: " << t.header.cpu << "\n";
  o << "# hz: " << t.header.hz << "\n";
  if (!t.header.kernel.empty()) o << "# kernel: " << t.header.kernel << "\n";
  o << "# threshold_cycles: " << t.header.threshold_cycles << "\n";
  if (!t.header.start.empty()) o << "# start: " << t.header.start << "\n";
  o << "# duration_s: " << t.header.duration_s << "\n";
  if (t.header.core >= 0) o << "# core: " << t.header.core << "\n";
  for (std::size_t k = 0; k < t.jitter.size(); ++k) o << t.jitter[k] << " " << t.gap[k] << "\n";
  return o.str();
}

void write_trace(const std::string& path, const Trace& t) {
  write_file_atomically(path, format_trace(t));
}

Trace from_loggopsim(const std::string& text, const std::string& path, double hz) {
  if (!(hz > 0)) throw InputError(path, 0, "hz", "must be positive");
  Trace t;
  t.header.hz = hz;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  double end = 0;  // ns: the end of the previous event
  bool first = true;
  while (std::getline(in, raw)) {
    ++line;
    const std::string s = trim(raw);
    if (s.empty() || s[0] == '#') continue;
    std::istringstream row(s);
    std::string a, b;
    if (!(row >> a >> b)) {
      throw InputError(path, line, "row", "expected '<start ns>\\t<duration ns>', got '" + s + "'");
    }
    const double start = number(a, path, line, "start", 0);
    const double dur = number(b, path, line, "duration", 0);
    if (start < end) {
      throw InputError(path, line, "start", "events must increase and not overlap");
    }
    const auto cycles = [hz](double ns) {
      return static_cast<std::uint64_t>(std::llround(ns * 1e-9 * hz));
    };
    if (first) {  // the time before the first event: a row with no jitter
      t.jitter.push_back(0);
      t.gap.push_back(cycles(start));
      first = false;
    } else {
      t.gap.back() = cycles(start - end);
    }
    t.jitter.push_back(cycles(dur));
    t.gap.push_back(0);
    end = start + dur;
  }
  if (t.jitter.empty()) throw InputError(path, 0, "rows", "no noise events");
  t.header.duration_s = end * 1e-9;
  return t;
}

std::string to_loggopsim(const Trace& t) {
  std::ostringstream o;
  o.precision(15);
  double at = 0;  // cycles since the start
  for (std::size_t k = 0; k < t.jitter.size(); ++k) {
    if (t.jitter[k] > 0) {
      o << std::llround(at / t.header.hz * 1e9) << "\t"
        << std::llround(static_cast<double>(t.jitter[k]) / t.header.hz * 1e9) << "\n";
    }
    at += static_cast<double>(t.jitter[k] + t.gap[k]);
  }
  return o.str();
}

}  // namespace colltune::jitter

// OS-jitter traces (docs/jitter.md): what one core lost to the OS, as rows <jitter_duration,
// cycles_to_next_jitter> in time-stamp-counter cycles, with a header saying where and how the
// trace was taken. Text format, one row per line after "# key: value" header lines:
//   # colltune-jitter trace 1
//   # cpu: Intel(R) Xeon(R) ...        # hz: 2.1e9        # kernel: 6.1.0-...
//   # threshold_cycles: 420            # start: 2026-11-22T05:00:00Z
//   # duration_s: 60                   # core: 0
//   <jitter cycles> <free cycles to the next jitter>
// Also LogGOPSim's noise format: "<start>\t<duration>" in ns per line (import and export).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace colltune::jitter {

struct TraceHeader {
  std::string cpu, kernel, start;
  double hz = 0;                       // time-stamp counter frequency, cycles per second
  std::uint64_t threshold_cycles = 0;  // a delta above this was a jitter event
  double duration_s = 0;
  int core = -1;
};

// Row k: the core lost jitter[k] cycles, then ran gap[k] cycles undisturbed. The trace is
// circular for simulation: after the last row comes the first.
struct Trace {
  TraceHeader header;
  std::vector<std::uint64_t> jitter, gap;
  std::uint64_t length() const;  // sum of both columns, cycles
  std::uint64_t lost() const;    // sum of jitter
};

// The whole of `v` (surrounding blanks aside) as a finite number; false if it is not one.
bool parse_number(const std::string& v, double* out);

// The whole file; InputError naming it when it cannot be read.
std::string read_text(const std::string& path);
// Throw InputError naming the file, the line and what is wrong.
Trace read_trace(const std::string& path);
Trace parse_trace(const std::string& text, const std::string& path);
std::string format_trace(const Trace& t);
void write_trace(const std::string& path, const Trace& t);  // temporary, flushed, renamed

// LogGOPSim noise: events "<start>\t<duration>" (ns, increasing, not overlapping) over a run of
// the given length; hz converts to cycles. The first row's jitter is the first event's (its
// start becomes the row before it: a leading jitter of 0 cycles).
Trace from_loggopsim(const std::string& text, const std::string& path, double hz);
std::string to_loggopsim(const Trace& t);

}  // namespace colltune::jitter

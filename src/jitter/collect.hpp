// The jitter collector (docs/jitter.md): one thread pinned to each selected core (hwloc) reads
// the time-stamp counter in a tight loop; a delta between two reads above the threshold is a
// jitter event. The loop makes no system call and no allocation: events go to memory reserved
// before it starts. Needs an invariant TSC (x86: CPUID 0x80000007, EDX bit 8), whose rate is
// measured against CLOCK_MONOTONIC_RAW.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace.hpp"

namespace colltune::jitter {

struct CollectOptions {
  double duration_s = 10;
  std::vector<int> cores;              // logical indices of hwloc cores; empty: every core
  double threshold_factor = 10;        // a delta above factor x t_min is jitter ...
  std::uint64_t threshold_cycles = 0;  // ... unless set here (cycles)
  double threshold_ns = 0;             // ... or here (ns)
  std::size_t max_events = 1u << 22;   // per core; reserved before the loop
};

struct CoreTrace {
  Trace trace;
  std::uint64_t t_min = 0;  // the smallest delta between two reads, cycles
  bool overflow = false;    // more events than max_events: the trace stops early
};

// Runs the collectors; false with *why on failure (no invariant TSC, a core that does not
// exist, a thread that cannot be pinned).
bool collect(const CollectOptions& o, std::vector<CoreTrace>* out, std::string* why);

// The TSC's rate against CLOCK_MONOTONIC_RAW over `seconds`, cycles per second.
double tsc_hz(double seconds = 0.2);
bool tsc_invariant();

// Summary of a trace: noise fraction, events, the largest detours, a histogram of durations
// (powers of two of ns) and the dominant periods between events (text, for people).
std::string summarize(const Trace& t);

}  // namespace colltune::jitter

#include "collect.hpp"

#include <hwloc.h>
#include <sys/utsname.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define COLLTUNE_HAVE_TSC 1
#endif

namespace colltune::jitter {

namespace {

#ifdef COLLTUNE_HAVE_TSC
inline std::uint64_t tsc() { return __rdtsc(); }
#else
inline std::uint64_t tsc() { return 0; }
#endif

double monotonic_raw() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) return line.substr(line.find_first_not_of(" \t", c + 1));
    }
  }
  return "unknown";
}

std::string kernel() {
  utsname u{};
  return uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : "unknown";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct Event {
  std::uint64_t from, to;  // the last read before the detour, the first after it
};

// One core's loop, on the calling thread (already pinned). Returns the reads' minimum delta.
std::uint64_t run_loop(std::uint64_t cycles, std::uint64_t threshold_or_0, double factor,
                       std::vector<Event>& ev, bool* overflow, std::uint64_t* begin,
                       std::uint64_t* end, std::uint64_t* thr_used) {
  // t_min: the smallest delta of a short loop first.
  std::uint64_t t_min = ~0ull, prev = tsc();
  for (int i = 0; i < 1000000; ++i) {
    const std::uint64_t now = tsc();
    t_min = std::min(t_min, now - prev);
    prev = now;
  }
  t_min = std::max<std::uint64_t>(t_min, 1);
  const std::uint64_t thr =
      threshold_or_0 ? threshold_or_0 : static_cast<std::uint64_t>(factor * t_min);
  *thr_used = thr;
  Event* out = ev.data();
  const std::size_t cap = ev.size();
  std::size_t n = 0;
  prev = tsc();
  *begin = prev;
  const std::uint64_t stop = prev + cycles;
  // The loop: reads, compares, stores; nothing else.
  for (;;) {
    const std::uint64_t now = tsc();
    if (now - prev > thr) {
      if (n == cap) {
        *overflow = true;
        prev = now;
        break;
      }
      out[n++] = {prev, now};
    }
    prev = now;
    if (now >= stop) break;
  }
  *end = prev;
  ev.resize(n);
  return t_min;
}

Trace to_trace(const std::vector<Event>& ev, std::uint64_t begin, std::uint64_t end) {
  Trace t;
  std::uint64_t at = begin;
  t.jitter.push_back(0);
  for (const Event& e : ev) {
    t.gap.push_back(e.from - at);
    t.jitter.push_back(e.to - e.from);
    at = e.to;
  }
  t.gap.push_back(end > at ? end - at : 0);
  return t;
}

}  // namespace

bool tsc_invariant() {
#ifdef COLLTUNE_HAVE_TSC
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d >> 8) & 1u;
#else
  return false;
#endif
}

double tsc_hz(double seconds) {
  const double t0 = monotonic_raw();
  const std::uint64_t c0 = tsc();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const std::uint64_t c1 = tsc();
  const double t1 = monotonic_raw();
  return static_cast<double>(c1 - c0) / (t1 - t0);
}

bool collect(const CollectOptions& o, std::vector<CoreTrace>* out, std::string* why) {
#ifndef COLLTUNE_HAVE_TSC
  *why = "the collector needs an x86 time-stamp counter";
  return false;
#else
  if (!tsc_invariant()) {
    *why =
        "the time-stamp counter is not invariant (CPUID 0x80000007 EDX bit 8): its rate "
        "changes with frequency scaling, so cycles are not time";
    return false;
  }
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    *why = "hwloc could not read the topology";
    return false;
  }
  const int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  std::vector<int> cores = o.cores;
  if (cores.empty()) {
    for (int i = 0; i < ncores; ++i) cores.push_back(i);
  }
  for (int c : cores) {
    if (c < 0 || c >= ncores) {
      hwloc_topology_destroy(topo);
      *why = "core " + std::to_string(c) + " does not exist (valid: 0 to " +
             std::to_string(ncores - 1) + ")";
      return false;
    }
  }
  const double hz = tsc_hz();
  const std::uint64_t cycles = static_cast<std::uint64_t>(o.duration_s * hz);
  const std::uint64_t thr =
      o.threshold_cycles ? o.threshold_cycles
                         : static_cast<std::uint64_t>(std::llround(o.threshold_ns * 1e-9 * hz));
  const std::string start = utc_now(), cpu = cpu_model(), kern = kernel();
  out->assign(cores.size(), {});
  std::vector<std::vector<Event>> ev(cores.size());
  std::vector<std::string> errors(cores.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < cores.size(); ++i) {
    ev[i].resize(o.max_events);  // reserved (and touched) before the loop
    std::fill(ev[i].begin(), ev[i].end(), Event{0, 0});
  }
  for (std::size_t i = 0; i < cores.size(); ++i) {
    threads.emplace_back([&, i] {
      hwloc_obj_t core =
          hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(cores[i]));
      hwloc_bitmap_t set = hwloc_bitmap_dup(core->cpuset);
      hwloc_bitmap_singlify(set);  // one PU of the core
      const int rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
      hwloc_bitmap_free(set);
      if (rc != 0) {
        errors[i] = "cannot pin a thread to core " + std::to_string(cores[i]);
        ev[i].clear();
        return;
      }
      std::uint64_t begin = 0, end = 0, used = 0;
      CoreTrace& ct = (*out)[i];
      ct.t_min =
          run_loop(cycles, thr, o.threshold_factor, ev[i], &ct.overflow, &begin, &end, &used);
      ct.trace = to_trace(ev[i], begin, end);
      TraceHeader& h = ct.trace.header;
      h.cpu = cpu;
      h.kernel = kern;
      h.start = start;
      h.hz = hz;
      h.threshold_cycles = used;
      h.duration_s = static_cast<double>(end - begin) / hz;
      h.core = cores[i];
    });
  }
  for (auto& t : threads) t.join();
  hwloc_topology_destroy(topo);
  for (const std::string& e : errors) {
    if (!e.empty()) {
      *why = e;
      return false;
    }
  }
  return true;
#endif
}

std::string summarize(const Trace& t) {
  const double hz = t.header.hz, len = static_cast<double>(t.length());
  std::ostringstream o;
  o.precision(4);
  std::vector<std::pair<std::uint64_t, double>> ev;  // duration, start (cycles)
  double at = 0;
  for (std::size_t k = 0; k < t.jitter.size(); ++k) {
    if (t.jitter[k] > 0) ev.push_back({t.jitter[k], at});
    at += static_cast<double>(t.jitter[k] + t.gap[k]);
  }
  o << "core " << t.header.core << ": " << len / hz << " s, " << ev.size() << " events, noise "
    << 100 * static_cast<double>(t.lost()) / len << "% (threshold " << t.header.threshold_cycles
    << " cycles = " << t.header.threshold_cycles / hz * 1e9 << " ns)\n";
  std::vector<std::pair<std::uint64_t, double>> big = ev;
  std::sort(big.begin(), big.end(), [](auto& a, auto& b) { return a.first > b.first; });
  o << "  largest detours (us at s):";
  for (std::size_t i = 0; i < std::min<std::size_t>(5, big.size()); ++i) {
    o << " " << big[i].first / hz * 1e6 << " at " << big[i].second / hz;
  }
  o << "\n  durations (ns, powers of two): ";
  std::map<int, int> hist;
  for (const auto& e : ev) ++hist[static_cast<int>(std::floor(std::log2(e.first / hz * 1e9)))];
  for (const auto& [b, c] : hist)
    o << "[" << (1ll << std::max(b, 0)) << ", " << (2ll << std::max(b, 0)) << "): " << c << "  ";
  // Dominant periods: the commonest gaps between successive events of at least 1 us, rounded
  // to two significant digits.
  std::map<double, int> periods;
  double last = -1;
  for (const auto& e : ev) {
    if (e.first / hz < 1e-6) continue;
    if (last >= 0) {
      const double p = (e.second - last) / hz;
      const double scale = std::pow(10.0, std::floor(std::log10(p)) - 1);
      ++periods[std::round(p / scale) * scale];
    }
    last = e.second;
  }
  std::vector<std::pair<int, double>> top;
  for (const auto& [p, c] : periods) top.push_back({c, p});
  std::sort(top.rbegin(), top.rend());
  o << "\n  dominant periods (events of 1 us or more):";
  for (std::size_t i = 0; i < std::min<std::size_t>(3, top.size()); ++i) {
    o << " " << top[i].second * 1e3 << " ms (" << top[i].first << "x)";
  }
  o << "\n";
  return o.str();
}

}  // namespace colltune::jitter

// global timing: T = max_p t_end,p - min_p t_start,p on synchronized clocks.
// window timing (ReproMPI's window-based start): every process starts the operation at one
// instant t_s of the synchronized clocks, announced by the root (a broadcast) a window ahead;
// a process waits for it (busy on MPI_Wtime; under SMPI a simulated sleep). T = max_p t_end,p
// - max(t_s, latest start): simultaneous starts, as the LMO model assumes, without a barrier's
// skew. A process that arrives late (by more than 1% of the time) doubles the window for the
// following repetitions, up to kMaxWindowGrowth times where it started: (2 + log2 n) times the
// largest minimum round trip of the synchronization. The wait sleeps until 1 ms before the start,
// then polls the clock, yielding the core (more processes than cores must not starve the late one)
// but, when each process of the host has a core, spun for the last 20 us (a yield's return
// would be counted in the time).
// Synchronization
// (root with each process in turn): the root pings, the process answers with its clock; the
// exchange with the smallest round trip so far gives offset = t_p - (t_send + rtt / 2); it
// stops after 10 exchanges without a new minimum (at most 200). The offsets serve every series
// on the communicator and root for kMaxSyncAge seconds; every `resync_every` measurements
// (0: never) they are measured again too, for clock drift.
// Test builds (COLLTUNE_BENCH_TEST_CLOCK_SKEW=S, src/test_hooks.hpp): S seconds shift this method's
// clock on world rank r by r * S, as unsynchronized clocks would be; the result must not change.
#include <sched.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <thread>
#include <vector>

#include "../algorithms/waits.hpp"
#include "../test_hooks.hpp"
#include "timing.hpp"

#ifdef SMPI_SHARED_MALLOC
#include <simgrid/actor.h>
#endif

namespace colltune::bench {
namespace {

class GlobalTiming final : public TimingMethod {
 public:
  GlobalTiming(int resync_every, bool window) : resync_every_(resync_every), window_(window) {}
  std::string_view name() const override { return window_ ? "window" : "global"; }

  int prepare(MPI_Comm comm, int root) override {
    bool reuse = false;
    if (const int rc = mark_.reuse(comm, root, kMaxSyncAge, &reuse); rc != MPI_SUCCESS) return rc;
    measured_ = 0;
    window_s_ = base_window_s_;  // a window widened for one series does not carry over
    return reuse ? MPI_SUCCESS : synchronize(comm, root);
  }

  // Measures every process's clock offset against the root's.
  int synchronize(MPI_Comm comm, int root) {
    measured_ = 0;
    if (const char* skew = hooks::value(hooks::Hook::kClockSkew)) {
      int world_rank = 0;
      if (const int rc = PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank); rc != MPI_SUCCESS) return rc;
      skew_ = std::atof(skew) * world_rank;
    }
    int rank, size;
    if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
#ifndef SMPI_SHARED_MALLOC  // simulated waits sleep
    if (const int rc = own_core(comm, &spin_); rc != MPI_SUCCESS) return rc;
#endif
    std::vector<double> offsets(size, 0.0);
    double worst_rtt = 0;
    for (int p = 0; p < size; ++p) {
      if (p == root) continue;
      int rc = MPI_SUCCESS;
      if (rank == root) {
        double best = std::numeric_limits<double>::infinity();
        int stale = 0;
        for (int k = 0; k < 200 && stale < 10 && rc == MPI_SUCCESS; ++k) {
          const double go = 1;
          double tp = 0;
          const double ts = now();
          rc = waits::send(&go, 1, MPI_DOUBLE, p, kTagClock, comm);
          if (rc == MPI_SUCCESS)
            rc = waits::recv(&tp, 1, MPI_DOUBLE, p, kTagClock, comm, MPI_STATUS_IGNORE);
          const double rtt = now() - ts;
          if (rtt < best) {
            best = rtt;
            offsets[p] = tp - (ts + rtt / 2);
            stale = 0;
          } else {
            ++stale;
          }
        }
        const double stop = 0;
        if (rc == MPI_SUCCESS) rc = waits::send(&stop, 1, MPI_DOUBLE, p, kTagClock, comm);
        worst_rtt = std::max(worst_rtt, best);
      } else if (rank == p) {
        for (;;) {
          double go = 0;
          rc = waits::recv(&go, 1, MPI_DOUBLE, root, kTagClock, comm, MPI_STATUS_IGNORE);
          if (rc != MPI_SUCCESS || go == 0) break;
          const double mine = now();
          rc = waits::send(&mine, 1, MPI_DOUBLE, root, kTagClock, comm);
          if (rc != MPI_SUCCESS) break;
        }
      }
      if (rc != MPI_SUCCESS) return rc;
    }
    base_window_s_ = window_s_ = worst_rtt * (2 + std::ceil(std::log2(size)));  // root only
    max_window_s_ = window_s_ * kMaxWindowGrowth;
    const int rc =
        waits::scatter(offsets.data(), 1, MPI_DOUBLE, &offset_, 1, MPI_DOUBLE, root, comm);
    return rc != MPI_SUCCESS ? rc : mark_.mark(comm, root);
  }

  int measure(MPI_Comm comm, int root, bool isolate, const std::function<int()>& op,
              double* seconds) override {
    int rc = MPI_SUCCESS;
    if (resync_every_ > 0 && measured_ >= resync_every_ &&
        (rc = synchronize(comm, root)) != MPI_SUCCESS) {
      return rc;
    }
    ++measured_;
    if (window_) return measure_window(comm, root, op, seconds);
    if (isolate && (rc = waits::barrier(comm)) != MPI_SUCCESS) return rc;
    const double t0 = now() - offset_;
    const int orc = op();
    const double t1 = orc == MPI_SUCCESS ? now() - offset_ : kFailed;
    double in[2] = {-t0, t1}, out[2] = {0, 0};  // max(-t0) = -min(t0)
    if ((rc = waits::allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, comm)) != MPI_SUCCESS) return rc;
    *seconds = out[1] + out[0];
    return outcome(orc, out[1]);
  }

 private:
  double now() const { return PMPI_Wtime() + skew_; }

  int measure_window(MPI_Comm comm, int root, const std::function<int()>& op, double* seconds) {
    int rank;
    int rc = PMPI_Comm_rank(comm, &rank);
    if (rc != MPI_SUCCESS) return rc;
    double start = rank == root ? now() - offset_ + window_s_ : 0;
    if ((rc = waits::bcast(&start, 1, MPI_DOUBLE, root, comm)) != MPI_SUCCESS) return rc;
    const double arrived = now() - offset_;
    if (arrived < start) wait_for(start - arrived);
    const double t0 = std::max(start, arrived);  // later than start only if it came late
    const int orc = op();
    const double t1 = orc == MPI_SUCCESS ? now() - offset_ : kFailed;
    double in[2] = {t0, t1}, out[2] = {0, 0};
    if ((rc = waits::allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, comm)) != MPI_SUCCESS) return rc;
    *seconds = out[1] - out[0];
    // Someone was late by more than kLateTolerance of the time (the head start the others
    // had): the root widens the window.
    if (out[0] - start > kLateTolerance * *seconds) {
      window_s_ = std::min(2 * window_s_, max_window_s_);
    }
    return outcome(orc, out[1]);
  }

  void wait_for(double s) const {
#ifdef SMPI_SHARED_MALLOC  // simulated time passes only in a simulated call
    sg_actor_sleep_for(s);
#else
    const double until = now() + s;
    if (s > kSleepMargin) {
      const double nap = s - kSleepMargin;
      timespec ts{static_cast<time_t>(nap), static_cast<long>((nap - std::floor(nap)) * 1e9)};
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
      }
    }
    // Yield while the start is far, spin on the clock near it: a yield's return (0.2-1 us) late
    // at the start would be counted in the time.
    while (now() < until - (spin_ ? kSpinMargin : 0)) sched_yield();
    while (now() < until) {
    }
#endif
  }

  static constexpr double kMaxSyncAge = 1;  // seconds, the root's clock
  static constexpr double kMaxWindowGrowth = 16;
  static constexpr double kLateTolerance = 0.01;
  static constexpr double kSleepMargin = 1e-3;  // seconds polled after a sleep (timer slack)
  static constexpr double kSpinMargin = 20e-6;  // seconds spun before the start
  double base_window_s_ = 0;                    // root: the window synchronization set
  double window_s_ = 0;                         // root: how far ahead it announces the start
  double max_window_s_ = 0;                     // root: the window never grows beyond this

  // Whether every process of the communicator on this host has a core of its own (else the
  // wait never spins: a spinning process would hold the core the late one needs).
  static int own_core(MPI_Comm comm, bool* spin) {
    MPI_Comm node;
    int rc = waits::comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return rc;
    int local = 1;
    rc = PMPI_Comm_size(node, &local);
    const int frc = PMPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) return rc;
    *spin = local <= std::thread::hardware_concurrency();
    return frc;
  }
  bool spin_ = false;
  double skew_ = 0;  // the test hook's shift of this process's clock
  int resync_every_;
  bool window_;
  PreparedMark mark_;
  int measured_ = 0;
  double offset_ = 0;  // this process's clock minus the root's
};

}  // namespace

std::unique_ptr<TimingMethod> make_global_timing(int resync_every) {
  return std::make_unique<GlobalTiming>(resync_every, false);
}

std::unique_ptr<TimingMethod> make_window_timing(int resync_every) {
  return std::make_unique<GlobalTiming>(resync_every, true);
}

}  // namespace colltune::bench

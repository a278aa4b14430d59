// Timing methods (docs/benchmarking.md; MPIBlib, section 2.1): how one repetition of an operation
// is timed. Every method returns the same value on every rank, so that adaptive series stop alike.
//   root   the root's local time until every process confirmed completion (an empty message
//          to the root), corrected by the cost of a confirmation round alone (may go negative
//          for tiny messages: the confirmation overlaps the operation);
//   max    the largest local time over processes;
//   global last finish minus first start on clocks synchronized by ping-pong with minimum-RTT
//          filtering, re-synchronized every `resync_every` repetitions for drift;
//   window every process starts at one instant of those synchronized clocks, announced a window
//          ahead (ReproMPI); last finish minus that start. What the LMO model predicts.
// With isolation a barrier precedes each repetition (no pipelining between repetitions).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace colltune::bench {

class TimingMethod {
 public:
  virtual ~TimingMethod() = default;
  virtual std::string_view name() const = 0;
  // Collective over comm, before each series (clock synchronization, confirmation cost). One
  // object serves many series: what it measured for a communicator and root is kept until
  // the communicator is freed (a mark in its attributes, so a new communicator that reuses the
  // handle is measured afresh), the root changes or, for the synchronized clocks, a second
  // has passed on the root's clock (drift); the root decides, everyone follows.
  virtual int prepare(MPI_Comm comm, int root) = 0;
  // Runs op once (collective) and stores its time in *seconds, equal on every rank. When op
  // fails on any rank, every rank returns an error (outcome()) and *seconds is meaningless.
  virtual int measure(MPI_Comm comm, int root, bool isolate, const std::function<int()>& op,
                      double* seconds) = 0;
  // What measure() subtracts from the raw time (root: the confirmation cost found by
  // prepare(), on the root); 0 for methods without a correction.
  virtual double correction() const { return 0; }
};

// "root", "max", "global" or "window"; nullptr for another name.
std::unique_ptr<TimingMethod> make_timing(std::string_view name, int resync_every = 0);
std::vector<std::string> timing_names();

// Implementations (one file each).
std::unique_ptr<TimingMethod> make_root_timing();
std::unique_ptr<TimingMethod> make_max_timing();
std::unique_ptr<TimingMethod> make_global_timing(int resync_every);
std::unique_ptr<TimingMethod> make_window_timing(int resync_every);

// Every process but root sends root an empty message with `tag`; root posts all receives at
// once (not in rank order: under SMPI a message moves only once its receive is posted, and eager
// protocols elsewhere also prefer posted receives) and returns when all arrived. Collective.
int notify_root(MPI_Comm comm, int root, int tag);

// What a timing object measured for a communicator, kept in its attributes. reuse() is
// collective: true on every rank when `owner` prepared `comm` for `root` at most `max_age`
// seconds ago (the root's view, broadcast); mark() records it, on every rank.
class PreparedMark {
 public:
  int reuse(MPI_Comm comm, int root, double max_age, bool* yes) const;
  int mark(MPI_Comm comm, int root) const;

 private:
  std::uint64_t owner_ = next_owner();
  static std::uint64_t next_owner();
};

// PMPI_Comm_rank and PMPI_Comm_size, checked.
int rank_size(MPI_Comm comm, int* rank, int* size);

// A repetition's outcome, agreed: the last collective of a measurement carries +inf from a
// rank whose operation failed (every rank still completes the method's protocol, so no peer
// waits), and every rank then returns an error; a failed repetition is never a time.
inline constexpr double kFailed = std::numeric_limits<double>::infinity();
// `local_rc`: this rank's outcome; `agreed`: the value the closing collective produced.
inline int outcome(int local_rc, double agreed) {
  if (local_rc != MPI_SUCCESS) return local_rc;
  return agreed == kFailed ? MPI_ERR_OTHER : MPI_SUCCESS;
}

inline constexpr int kTagConfirm = 201;
inline constexpr int kTagClock = 202;

}  // namespace colltune::bench

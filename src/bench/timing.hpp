// Timing methods (paper 000 section 2.1): how one repetition of an operation is timed.
// Every method returns the same value on every rank, so that adaptive series stop alike.
//   root   the root's local time until every process confirmed completion (an empty message
//          to the root), corrected by the cost of a confirmation round alone (may go negative
//          for tiny messages: the confirmation overlaps the operation);
//   max    the largest local time over processes;
//   global last finish minus first start on clocks synchronized by ping-pong with minimum-RTT
//          filtering, re-synchronized every `resync_every` repetitions for drift.
// With isolation a barrier precedes each repetition (no pipelining between repetitions).
#pragma once

#include <mpi.h>

#include <functional>
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
  // object may serve many series on one communicator: what does not change between series
  // (root's confirmation cost) is measured on the first call only; global timing synchronizes
  // clocks again on every call.
  virtual int prepare(MPI_Comm comm, int root) = 0;
  // Runs op once (collective) and stores its time in *seconds, equal on every rank.
  virtual int measure(MPI_Comm comm, int root, bool isolate, const std::function<int()>& op,
                      double* seconds) = 0;
  // What measure() subtracts from the raw time (root: the confirmation cost found by
  // prepare(), on the root); 0 for methods without a correction.
  virtual double correction() const { return 0; }
};

// "root", "max" or "global"; nullptr for another name.
std::unique_ptr<TimingMethod> make_timing(std::string_view name, int resync_every = 0);
std::vector<std::string> timing_names();

// Implementations (one file each).
std::unique_ptr<TimingMethod> make_root_timing();
std::unique_ptr<TimingMethod> make_max_timing();
std::unique_ptr<TimingMethod> make_global_timing(int resync_every);

// Every process but root sends root an empty message with `tag`; root posts all receives at
// once (not in rank order: under SMPI a message moves only once its receive is posted, and eager
// protocols elsewhere also prefer posted receives) and returns when all arrived. Collective.
int notify_root(MPI_Comm comm, int root, int tag);

inline constexpr int kTagConfirm = 201;
inline constexpr int kTagClock = 202;

}  // namespace colltune::bench

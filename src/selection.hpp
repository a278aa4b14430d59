// Selection: resolved once per communicator and op into an ordered list of segments
// (bytes range, optional root) -> algorithm; the per-call path is a short scan.
// Precedence: env force > admin rules (first match) > model table > native.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "table/config.hpp"
#include "table/model_table.hpp"

namespace colltune {

struct Segment {
  Range bytes;
  int root = -1;  // -1: any root
  const Algorithm* algorithm = nullptr;
  std::string reason;  // shown once in verbose logs
  // A built algorithm's tree for this range and root (model decisions); nullptr: built on
  // first use (forced, admin rules) or not a built algorithm.
  std::shared_ptr<const BuiltTree> tree;
  // A model's pick other than native, to be verified against native in its first calls
  // (COLLTUNE_VERIFY), and its predicted time at the size it was decided at (seconds).
  bool verify = false;
  double predicted = 0;
  double margin = 0;  // the gain over native that keeps it (the table's margin)
};

// The verification of one segment's pick (COLLTUNE_VERIFY): its first 2 x pairs calls
// alternate the pick (even calls) and native (odd), each rank timing its own; then the
// slowest rank's sums over the calls after the first pair decide, agreed on the private
// communicator. Not thread-safe: the calls of one communicator are ordered (MPI).
struct Verification {
  enum State { kPending, kKept, kRejected };
  State state = kPending;
  int pairs = 0;  // calls to alternate: 2 x pairs (0: not yet sized)
  int calls = 0;
  double pick = 0, native = 0;  // this rank's seconds, calls after the first pair
};

// What is known of a communicator when its decisions are resolved. nodes/ppn are 0 when they
// were not computed (no rule needs them).
struct CommFacts {
  int size = 1;
  int nodes = 0;
  int ppn = 0;
};

class Decisions {
 public:
  Decisions() = default;
  explicit Decisions(std::vector<Segment> segments);
  // Always finds a segment: the list ends with a catch-all.
  std::size_t find(std::uint64_t bytes, int root) const {
    for (std::size_t i = 0; i < segments_.size(); ++i) {
      const Segment& s = segments_[i];
      if (s.bytes.contains(bytes) && (s.root < 0 || s.root == root)) return i;
    }
    return segments_.size() - 1;
  }
  const Segment& segment(std::size_t i) const { return segments_[i]; }
  std::size_t size() const { return segments_.size(); }
  // True the first time it is called for segment i (for log-once).
  bool first_use(std::size_t i) const {
    return !logged_[i].exchange(true, std::memory_order_relaxed);
  }
  Verification& verification(std::size_t i) const { return verified_[i]; }

 private:
  std::vector<Segment> segments_;
  std::unique_ptr<std::atomic<bool>[]> logged_;
  std::unique_ptr<Verification[]> verified_;
};

bool rule_matches_comm(const Rule& r, const CommFacts& facts);

// `forced`: the algorithm of COLLTUNE_<OP>_ALGORITHM, nullptr for auto. `model`: the model's
// choices for this communicator and root, in place of the table's decisions (model-driven).
Decisions resolve(Op op, const CommFacts& facts, const Algorithm* forced, const AdminConfig* config,
                  const ModelTable* table, const std::vector<Segment>* model = nullptr);

}  // namespace colltune

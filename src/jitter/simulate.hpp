// Trace-driven simulation of bulk-synchronous programs under OS jitter (docs/jitter.md; after
// "jitSim", trace-driven OS-jitter simulation): every task walks its own stretch of a jitter
// trace, doing compute phases of a fixed number of cycles and, between them, a synchronization
// along a tree given as data (a barrier: messages up to the root, then down), every send and
// receive costing cycles walked through the task's trace, so that jitter hits communication
// too. No MPI; O(tasks x phases) time and O(tasks) memory.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include "algorithms/shape.hpp"
#include "trace.hpp"

namespace colltune::jitter {

// A trace laid out in time: jitter events [start, end) in cycles, on a circle of `length()`.
class Timeline {
 public:
  explicit Timeline(const Trace& t);
  // No jitter at all (the ideal run).
  static Timeline quiet(double length);
  double length() const { return length_; }

  // One task's place in the trace: it covers [from, from + span) of the circle, repeatedly
  // (span <= length()); `pos` is where it is now, `t` its clock (cycles since it started).
  struct Cursor {
    double pos = 0, t = 0, from = 0, span = 0;
    std::size_t k = 0;  // the first event that ends after pos
    // Free cycles before `from` and before `from + span`, and the first event ending after
    // `from` (fixed per cursor).
    double f_from = 0, f_limit = 0;
    std::size_t k_from = 0;
  };
  Cursor cursor(double from, double span) const;
  // Time passes without work until the task's clock reads at least `t`.
  void wait_until(Cursor& c, double t) const;
  // The task does `w` cycles of work: free cycles count, jitter events add their length (one
  // that is under way when the work starts is waited out first). O(log events), whatever the
  // number of events the work crosses.
  void work(Cursor& c, double w) const;

 private:
  Timeline() = default;
  void seek(Cursor& c) const;  // k for c.pos (binary search)
  void wrap(Cursor& c) const;  // back to c.from once c.pos reached the end of its span
  void prefix();               // busy_ and free_ from the events
  // Free cycles before position x (*k: the first event that ends after x), and the first
  // position where they reach f, searched from event `from` on (*k likewise).
  double free_at(double x, std::size_t* k) const;
  double position_of(double f, std::size_t from, std::size_t* k) const;
  double length_ = 0;
  // Two laps of events (the second shifted by length_), so that a span never needs a modulo.
  std::vector<double> start_, end_;
  // busy_[k]: jitter cycles before event k starts (size events + 1); free_[k]: free cycles
  // before it starts.
  std::vector<double> busy_, free_;
};

// A synchronization schedule as data: a tree over tasks 0..n-1, root 0, and each node's
// children in the order it exchanges with them.
struct Tree {
  std::vector<int> parent;              // -1 for the root
  std::vector<int> first, count, kids;  // each node's children: kids[first .. first + count)
  std::vector<int> order;               // breadth first: parents before children
  std::vector<int> level;               // order[level[d] .. level[d + 1]): the nodes at depth d
  std::vector<int> sub;                 // nodes in each node's subtree, itself included
  int size() const { return static_cast<int>(parent.size()); }
};
// Complete k-ary tree in heap order (children of v: k v + 1 .. k v + k).
Tree kary_tree(int n, int k);
// A colltune schedule (src/algorithms/shape.hpp, rooted at 0): the tree its bcast and gather
// follow.
Tree shape_tree(const Shape& s, int n);

// Costs of one message, cycles: the sender's and the receiver's CPU time (walked through their
// traces) and the time between them (not CPU: jitter does not stretch it).
// A message of b bytes: send + b send_per_byte at the sender, then wire + b wire_per_byte,
// then recv + b recv_per_byte at the receiver.
struct MessageCost {
  double send = 0, recv = 0, wire = 0;
  double send_per_byte = 0, recv_per_byte = 0, wire_per_byte = 0;
};
struct Latencies {
  MessageCost shm;         // between tasks of one node
  MessageCost net;         // between nodes
  int tasks_per_node = 1;  // tasks v and w share a node when v / tasks_per_node == w / ...
  const MessageCost& between(int v, int w) const {
    return v / tasks_per_node == w / tasks_per_node ? shm : net;
  }
};

enum class StartMode { kUnsync, kSync, kCosched };

// What synchronizes the phases, along the tree: a barrier (empty messages up, then down), or
// a collective of `bytes` per process: bcast (down, bytes each), scatter (down, each child its
// subtree's blocks), gather (up, each node its subtree's blocks), allreduce (bytes up, then
// bytes down: a reduce and a bcast).
enum class Sync { kBarrier, kBcast, kScatter, kGather, kAllreduce };

struct SimOptions {
  double quantum = 0;  // cycles of work per compute phase
  int phases = 1;
  StartMode mode = StartMode::kUnsync;
  double coverage = 1;  // fraction of the trace each task covers, (0, 1]
  Latencies latency;
  Sync sync = Sync::kBarrier;
  double bytes = 0;  // per process, for the collectives
  // kCosched: where high-priority windows start (cycles, in the timeline); a task starts at
  // one of them, chosen at random.
  std::vector<double> window_starts;
};

// One run: every task starts at its point of `tl` (by opts.mode, from rng), then opts.phases
// times computes and synchronizes along `tree`. The nodes of one depth are independent in
// either direction: they run in parallel (OpenMP), with the same result on any thread count.
// Returns the time the last task was released from the last synchronization, cycles.
double simulate(const Timeline& tl, const Tree& tree, const SimOptions& opts, std::mt19937_64& rng);

// The same with explicit starting points (one per task, cycles in the timeline).
double simulate_from(const Timeline& tl, const Tree& tree, const SimOptions& opts,
                     std::span<const double> starts);

// Co-scheduling (docs/jitter.md): the favoured task runs in high-priority windows of `high`
// cycles and yields for `low` cycles after each; the OS's jitter is deferred into the low
// windows (what does not fit there runs over into the next high one). Returns the trace seen
// by the task and, in *starts, where its high windows begin.
Trace coschedule(const Trace& t, std::uint64_t high, std::uint64_t low,
                 std::vector<double>* starts);

// Slowdown at one task count: `reps` runs from independent random starts, each against the
// same schedule on a quiet timeline (no jitter, the same tree and costs).
struct Point {
  int tasks = 0, reps = 0, phases = 0;
  double mean = 0, ci95 = 0;  // slowdown (time with jitter / without) and its 95% half-width
  double seconds = 0;         // wall time of the runs with jitter
  double task_phases_per_second() const {
    return seconds > 0 ? static_cast<double>(tasks) * phases * reps / seconds : 0;
  }
};
Point slowdown(const Timeline& tl, const std::function<Tree(int)>& make_tree, int tasks,
               const SimOptions& o, int reps, std::uint64_t seed);

}  // namespace colltune::jitter

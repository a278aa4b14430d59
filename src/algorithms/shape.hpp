// A tree algorithm's schedule as data: who sends what to whom, in which order. The executors
// (src/algorithms/<op>/tree.cpp), the cost model (src/model/) and the simulators all read this one
// description; none keeps a second copy of its arithmetic.
//
// Positions: a schedule is laid out on positions 0..n-1, the root at 0; position p owns the
// blocks of positions [p, p + subtree(p)), a contiguous range. A fixed Shape maps position vr to
// rank (vr + root) mod n; a BuiltTree (computed from the model per communicator and root) maps
// each position to any rank. Top-down ops (bcast, scatter): a process receives from its parent
// (all its subtree's data), then sends to its children one after another in issue order, each
// child its whole subtree. Bottom-up (gather): a process receives every child's subtree, then
// sends its own to its parent.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace colltune {

// The size grid that calibration sweeps and decisions are made on: the grid size 2^k stands
// for the byte counts [grid_lo(k), grid_lo(k + 1) - 1], from 2^(k - 1/2) rounded up.
inline std::uint64_t grid_lo(int k) {
  return k == 0 ? 1 : static_cast<std::uint64_t>(std::ceil(std::ldexp(1.0, k) / std::sqrt(2.0)));
}

struct Shape {
  std::string_view name;
  int (*parent)(int vr, int n);        // -1 for the root
  int (*subtree)(int vr, int n);       // processes in vr's subtree, vr included
  int (*child)(int vr, int n, int k);  // k-th child in issue order; -1 past the last
};

// Calls f(child, child_subtree) for each child of vr in issue order.
template <typename F>
void for_each_child(const Shape& s, int vr, int n, F&& f) {
  for (int k = 0;; ++k) {
    const int c = s.child(vr, n, k);
    if (c < 0) return;
    f(c, s.subtree(c, n));
  }
}

inline int child_count(const Shape& s, int vr, int n) {
  int k = 0;
  while (s.child(vr, n, k) >= 0) ++k;
  return k;
}

// A tree computed for one communicator and root, as arrays over positions in preorder
// (children in issue order), so that every subtree is a contiguous range of positions.
struct BuiltTree {
  std::vector<int> parent;       // per position; -1 for the root (position 0)
  std::vector<int> sub;          // per position: positions in its subtree, itself included
  std::vector<int> first, kids;  // children of p in issue order: kids[first[p] .. first[p + 1])
  std::vector<int> rank;         // per position: its communicator rank
  std::vector<int> pos;          // per rank: its position
  bool rank_order = false;       // rank[p] == p for every p (blocks are in the buffer's order)
  // Bcast: messages larger than this many bytes travel in segments of it, pipelined down the
  // tree (a process forwards each segment as it arrives). Gather: each child of the root sends
  // its subtree in segments of it, each but the first after the root's credit for it (paced:
  // one segment per child in flight); below the root's children, whole messages. 0: whole
  // messages.
  std::uint64_t segment = 0;
  // Bcast: the segment by message size where it depends on it, (first byte count, segment)
  // ascending; empty: `segment` at every size. Every rank of a bcast has the same size.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> segment_from;
  std::uint64_t segment_for(std::uint64_t bytes) const {
    std::uint64_t s = segment;
    for (const auto& [from, seg] : segment_from) {
      if (bytes < from) break;
      s = seg;
    }
    return s;
  }
  int size() const { return static_cast<int>(rank.size()); }
};

// Lays out a tree given as each rank's children in issue order (children[r]), from `root`:
// positions in preorder. Every rank must be reachable from the root exactly once. O(n).
BuiltTree lay_out(int root, const std::vector<std::vector<int>>& children);
// The same from edges (parent rank, child rank), each parent's in issue order, over n ranks.
BuiltTree lay_out(int n, int root, std::span<const std::pair<int, int>> edges);
// A fixed shape on n = rank_of_pos.size() positions whose position p is rank rank_of_pos[p].
BuiltTree lay_out(const Shape& s, const std::vector<int>& rank_of_pos);
// A fixed shape on n ranks from root, as the shape maps it (position p: rank (p + root) mod n).
BuiltTree lay_out(const Shape& s, int n, int root);

// What a tree builder may know of a communicator's n ranks (the model's costs, src/model/).
struct TreeCosts {
  virtual ~TreeCosts() = default;
  virtual int size() const = 0;
  // How long a message of m bytes keeps its sender from starting the next one.
  virtual double occupy(int from, double m) const = 0;
  // From the sender starting a message of m bytes until the receiver has it.
  virtual double deliver(int from, int to, double m) const = 0;
  // The message size per sender from which a gather's concurrent messages escalate (lost
  // packets, retransmission time-outs: the model's M1); infinity: none measured.
  virtual double escalation() const = 0;
  // Whether a message of m bytes moves only once its receive is posted (rendezvous).
  virtual bool waits(double m) const = 0;
  // The host rank r runs on: ranks of one host share its network link (node-aware trees).
  // Any integer; equal for ranks of one host. Default: each rank its own host.
  virtual int host(int r) const { return r; }

 private:
  friend const std::vector<int>& fastest_first(const TreeCosts&, int, double);
  // fastest_first's last answer: the builders of one decision share it (same root and size).
  mutable int ff_root_ = -1;
  mutable double ff_m_ = 0;
  mutable std::vector<int> ff_;
};
// Builds the tree of one algorithm for a root and a message size (bytes per process): the same
// arrays on every rank from the same costs, no communication.
using TreeBuilder = BuiltTree (*)(const TreeCosts& costs, int root, double m);
// The ranks other than root, fastest first: by their own sending time plus their delivery from
// the root (occupy(j, m) + deliver(root, j, m)), ties by rank. O(n log n); kept on costs for
// the next builder asking the same (root, m).
const std::vector<int>& fastest_first(const TreeCosts& costs, int root, double m);

// A communicator's ranks by host, for node-aware (two-level) trees: hosts in order of their
// smallest rank, each host's ranks ascending, and each host's leader: the root on its own host,
// elsewhere the host's rank that fastest_first(costs, root, m) puts first. O(n log n).
struct Hosts {
  std::vector<std::vector<int>> ranks;
  std::vector<int> leader;  // per host
  int root_host = 0;
  // More than one host, and some host with two ranks or more; else node-aware builders build
  // their flat stand-in.
  bool two_levels() const;
  // The leaders, the root first, then the others in host order.
  std::vector<int> leaders() const;
};
Hosts hosts_of(const TreeCosts& costs, int root, double m);

// Appends t's edges (parent rank, child rank), each parent's in issue order, its ranks mapped
// through of (t's rank k is rank of[k]).
void append_edges(const BuiltTree& t, std::span<const int> of,
                  std::vector<std::pair<int, int>>* edges);

// The costs of some ranks of a communicator (index k: its rank of[k]): a tree built on them
// among the leaders of a node-aware tree.
class SubsetCosts final : public TreeCosts {
 public:
  SubsetCosts(const TreeCosts& all, std::vector<int> of) : all_(all), of_(std::move(of)) {}
  int size() const override { return static_cast<int>(of_.size()); }
  double occupy(int from, double m) const override { return all_.occupy(of_[from], m); }
  double deliver(int from, int to, double m) const override {
    return all_.deliver(of_[from], of_[to], m);
  }
  double escalation() const override { return all_.escalation(); }
  bool waits(double m) const override { return all_.waits(m); }
  int host(int r) const override { return all_.host(of_[r]); }

 private:
  const TreeCosts& all_;
  std::vector<int> of_;
};

// The schedule an executor or the model walks: a fixed shape from a root, or a built tree.
class TreeView {
 public:
  TreeView(const Shape& s, int n, int root) : shape_(&s), n_(n), root_(root) {}
  explicit TreeView(const BuiltTree& b)
      : built_(&b), n_(b.size()), root_(b.size() ? b.rank[0] : 0) {}
  int size() const { return n_; }
  int root() const { return root_; }
  int parent(int p) const { return built_ ? built_->parent[p] : shape_->parent(p, n_); }
  int subtree(int p) const { return built_ ? built_->sub[p] : shape_->subtree(p, n_); }
  // k-th child of p in issue order; -1 past the last.
  int child(int p, int k) const {
    if (!built_) return shape_->child(p, n_, k);
    const int i = built_->first[p] + k;
    return i < built_->first[p + 1] ? built_->kids[i] : -1;
  }
  int rank_of(int p) const { return built_ ? built_->rank[p] : (p + root_) % n_; }
  int pos_of(int r) const { return built_ ? built_->pos[r] : (r - root_ + n_) % n_; }
  // Position p is rank p for every p.
  bool rank_order() const { return built_ ? built_->rank_order : root_ == 0; }
  std::uint64_t segment() const { return built_ ? built_->segment : 0; }
  std::uint64_t segment_for(std::uint64_t bytes) const {
    return built_ ? built_->segment_for(bytes) : 0;
  }

 private:
  const Shape* shape_ = nullptr;
  const BuiltTree* built_ = nullptr;
  int n_ = 1, root_ = 0;
};

template <typename F>
void for_each_child(const TreeView& t, int p, F&& f) {
  for (int k = 0;; ++k) {
    const int c = t.child(p, k);
    if (c < 0) return;
    f(c, t.subtree(c));
  }
}

inline int child_count(const TreeView& t, int p) {
  int k = 0;
  while (t.child(p, k) >= 0) ++k;
  return k;
}

}  // namespace colltune

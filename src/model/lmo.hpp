// The LMO heterogeneous communication model (docs/model.md) and the prediction of any tree
// schedule (src/algorithms/shape.hpp) on it. No MPI: unit-testable, used by calibration and
// selection.
#pragma once

#include <array>
#include <limits>
#include <span>
#include <vector>

#include "../algorithms/collective.hpp"
#include "../algorithms/shape.hpp"

namespace colltune::model {

inline constexpr double kNever = std::numeric_limits<double>::infinity();

// A value with the half-width of its confidence interval.
struct Estimate {
  double value = 0;
  double ci = 0;
};

// Parameters of n processes (indices 0..n-1: identities of a model table, or ranks).
struct LmoParams {
  std::vector<Estimate> C;         // fixed delay of a process, s
  std::vector<Estimate> t;         // per-byte delay of a process, s/B
  std::vector<Estimate> inv_beta;  // n x n, symmetric: 1 / transmission rate of a link, s/B
  // Per process, s/B, or empty: the port its concurrent transfers share (one host link on a
  // switch). Messages a process sends at once take turns at this per-byte time, fairly
  // (processor sharing); 0: none (LMO as published, where only C_i + t_i m serializes).
  std::vector<Estimate> port;
  // Per process, s/B, or empty: the port its incoming transfers share (a host link's down
  // direction). Messages into a gather's parent pass it one after another: a message whose
  // bytes arrive during [at - wire, at] (wire: its own transfer time) is through no earlier
  // than the port has passed every earlier arrival's bytes and its own at this per-byte time.
  // 0: none (LMO as published).
  std::vector<Estimate> port_in;
  // Per process, s, or empty (then C): the part of C_i that occupies the process, so that its
  // sends (and a gather root's receives) take turns at it; the rest, C_i - o_i, is latency
  // that overlaps (LogP's o against L). LMO as published: o_i = C_i.
  std::vector<Estimate> o;
  double S = kNever;                // scatter: above S bytes a sender's transfers serialize
  double M1 = kNever, M2 = kNever;  // gather: below M1 small, above M2 large (serialized)
  double kappa1 = 0, kappa2 = 0;    // gather's extra per-byte cost, small and large messages
  // Messages of at most this many bytes move before their receive is posted (eager); larger
  // ones wait for it (rendezvous; SimGrid SMPI for every size). A pipelined tree's segments
  // then cross each hop one at a time, latency included (predict_pipelined, chain's builder).
  double eager = kNever;
  // Per process, or empty: the host it runs on (its identity's host, src/identity.hpp);
  // processes of one host share its network link (node-aware trees, the host-link bound of
  // predict()). -1: a host of its own for each rank (the average process of with_average).
  // Empty, or not one entry per process: each process index is a host.
  std::vector<int> host;
  // Per process, s/B, or empty (no bound): its host's network link, which the messages of
  // every process of the host to or from other hosts share: its fastest link to another host
  // (at least 0; fill_host_links). predict() never returns less than the bytes one tree puts
  // through a host's link times this.
  std::vector<double> host_link;

  int size() const { return static_cast<int>(C.size()); }
  // The host of process i (see `host`); -1: its own for each rank.
  int host_of(int i) const { return host.size() == C.size() ? host[i] : i; }
  // The host of rank r, which runs process i: host_of(i), or one of its own (size() + r).
  int rank_host(int i, int r) const {
    const int h = host_of(i);
    return h >= 0 ? h : size() + r;
  }
  double u(int i) const { return port.empty() ? 0 : port[i].value; }
  double u_in(int i) const { return port_in.empty() ? 0 : port_in[i].value; }
  double busy(int i) const { return o.empty() ? C[i].value : o[i].value; }
  double ib(int i, int j) const { return inv_beta[static_cast<std::size_t>(i) * size() + j].value; }
  // One message of m bytes from i to j: C_i + t_i m + m / beta_ij + C_j + t_j m.
  double p2p(int i, int j, double m) const {
    return C[i].value + t[i].value * m + m * ib(i, j) + C[j].value + t[j].value * m;
  }
  // 1/beta between process i and another node of its kind that nobody measured: i's fastest
  // link (its own port bounds every link it has, and an alike node's port is as fast), at
  // least -2 t_i; with one process, its own.
  double ib_alike(int i) const;
  // Roundtrip: m bytes from i to j, an empty reply back.
  double roundtrip(int i, int j, double m) const { return p2p(i, j, m) + p2p(j, i, 0); }
  // One-to-two experiment: i sends m bytes to j, then to k, each answers empty (see
  // one_to_two_time).
  double one_to_two(int i, int j, int k, double m) const;
  static LmoParams uniform(int n, double c, double t, double inv_beta);
};

// Sets p->host_link from p->host and the links; empty where there is one host (no message
// crosses a host's link). O(n^2).
void fill_host_links(LmoParams* p);

// Time of a one-to-two experiment on i from its sender cost s_i = C_i + t_i m, its fixed
// delay c_i and the roundtrips rt_j = T_ij(m), rt_k = T_ik(m), under predict()'s semantics:
// i's sends serialize (the message to j leaves after s_i, the one to k after 2 s_i), each
// transfer overlaps what follows, and i takes the replies in arrival order, C_i each, once
// both sends are done. j's reply arrives at rt_j - c_i, k's at s_i + rt_k - c_i; the time is
// max(max(2 s_i, first) + c_i, second) + c_i. Nondecreasing in s_i; it grows with s_i when k's
// reply or i's own sends come last (send first to the peer with the shorter roundtrip).
double one_to_two_time(double s_i, double c_i, double rt_j, double rt_k);

// A time (or a size) as an affine function of the message size m, a + b m: every time of a
// bcast or scatter schedule without ports is one, as long as the same messages exceed S
// (model::predict evaluates a layout so at many sizes).
struct Affine {
  double a = 0, b = 0;
  double at(double m) const { return a + b * m; }
};
inline Affine operator+(Affine x, Affine y) { return {x.a + y.a, x.b + y.b}; }
inline Affine operator+(Affine x, double y) { return {x.a + y, x.b}; }
inline Affine operator+(double x, Affine y) { return y + x; }
inline Affine& operator+=(Affine& x, Affine y) { return x = x + y; }
inline Affine operator*(double k, Affine x) { return {k * x.a, k * x.b}; }
inline Affine operator*(Affine x, double k) { return k * x; }

// The upper envelope, for sizes m >= 0, of lines (reordered and pruned): by increasing slope,
// each the highest somewhere. O(K log K) at worst, O(K) when few lines can be the highest.
std::vector<Affine> upper_envelope(std::vector<Affine>& lines);
// max(0, the envelope's highest line at m).
double highest(std::span<const Affine> envelope, double m);

// A message one process sends, and when it has arrived (computed by send_all); Time is double,
// or Affine for a schedule evaluated at every size at once.
template <typename Time>
struct BasicMessage {
  int to;
  Time bytes;
  Time arrive{};
};
using Message = BasicMessage<double>;

// Process `from`, free at `ready`, sends `msgs` in issue order (nonblocking sends). LMO: the
// sender costs o_from + t_from m serialize (o = C as published), then C_from - o_from of
// latency, the transfer and the receiver's costs overlap; above S the transfers serialize too. With
// a port (u_from > 0) the bytes of all the messages share it from the first send on, fairly:
// message k arrives no earlier than
//     ready + C_from + u_from * sum_l min(m_l, m_k) + C_to.
// Sets each arrival; returns when the sender side is free again.
double send_all(const LmoParams& p, int from, double ready, std::span<Message> msgs);

// Fan-out experiment: i sends m bytes to every peer at once (nonblocking, in order), each
// answers empty; the time until i has processed every answer (in arrival order, C_i each, once
// its sends are issued). With two peers, no port and m <= S it is one_to_two().
double fan_out_time(const LmoParams& p, int i, std::span<const int> peers, double m);
// The same until i's sends are issued (its serialized costs: o_i + t_i m each).
double fan_out_issued_time(const LmoParams& p, int i, std::span<const int> peers, double m);

// Fan-in experiment: i sends an empty message to every peer at once (nonblocking, in order),
// each answers with m bytes; the time until i has processed every answer (in arrival order,
// o_i + t_i m each, through i's incoming port as a gather's parent takes its children's).
double fan_in_time(const LmoParams& p, int i, std::span<const int> peers, double m);

// A tree laid out on one member list (a fixed shape from a root, or a built tree), built once
// for predictions at many sizes: every process's children in issue order, parents before
// children. O(n).
struct Layout {
  Layout() = default;
  Layout(const TreeView& t, std::span<const int> members) { reset(t, members); }
  Layout(const Shape& s, std::span<const int> members, int root)
      : Layout(TreeView(s, static_cast<int>(members.size()), root), members) {}
  // Lays out t anew, keeping the arrays' memory (model::decide reuses layouts so).
  void reset(const TreeView& t, std::span<const int> members);
  std::vector<int> order;         // positions, breadth first (order[0] = 0, the root)
  std::vector<int> first, count;  // per position: its children's slice of `kids`
  std::vector<int> kids;          // positions of children, each parent's in issue order
  std::vector<int> sub;           // per position: processes in its subtree
  std::vector<int> proc;          // per position: its process (members[rank of the position])
  // The parameters predictions read, gathered per position by the first prediction on
  // `costs_for` (again for others), so that a prediction at 1024 ranks walks contiguous arrays
  // instead of the n x n link matrix:
  //   c, t, o, u: C, t, o (busy) and the port of the position's process;
  //   down_ib: 1/beta of the link from the position's parent;
  //   up_fixed, up_rate, up_wire: its gather message of sub m bytes, ready at the parent's end,
  //   counted from its subtree's completion, after up_fixed + m up_rate (C_i + C_j - o_j and
  //   sub (t_i + 1/beta_ij), i its process, j its parent's), of which m up_wire on the wire.
  mutable std::vector<double> c, t, o, u, down_ib, up_fixed, up_rate, up_wire;
  mutable const LmoParams* costs_for = nullptr;
  // Per op, on costs_for: the most bytes per message byte that the tree puts through one host's
  // link in one direction, times that link's per-byte time (LmoParams::host_link; 0: none).
  mutable std::array<double, kNumOps> host_rate{};
  mutable const LmoParams* host_rate_for = nullptr;
  mutable bool ports = false;  // some process of the layout has a sending port (u > 0)
  // Bcast and scatter times without ports, per (op, regime: how many subtree sizes' messages
  // exceed S), on costs_for: the upper envelope of every process's arrival and every sender's
  // end as lines a + b m, the time being their maximum (model::predict, built when a regime is
  // asked a second time; empty until then).
  struct Envelope {
    Op op;
    int regime;
    std::vector<Affine> lines;  // by increasing slope, each the maximum somewhere
  };
  mutable std::vector<Envelope> envelopes;
  bool many_sizes = false;  // to be predicted at many sizes: envelopes from the first prediction
  mutable std::vector<int> sub_sizes;  // distinct subtree sizes below the root, increasing (lazy)
  // Per exchange step of MPICH's allgather (native.cpp), the upper envelope of every pair's
  // p2p (fixed + bytes x rate), on `exchange_for`.
  mutable std::vector<std::vector<Affine>> exchange;
  mutable const LmoParams* exchange_for = nullptr;
  // Per parent, its children's order of arrival at the last gather prediction (a starting
  // point for the next; only speed depends on it). Not for concurrent use.
  mutable std::vector<int> hint;
};
// How a gather's parent takes its children's messages. kAsTheyArrive: nonblocking receives
// (colltune's trees), processed in order of arrival. kInIssueOrder, kInReverseOrder: one
// blocking receive after another, in the children's issue order (MPICH's binomial gather:
// smallest subtree first) or its reverse (Open MPI's, largest first); a child's transfer
// starts once both its subtree is complete and its receive is posted (rendezvous), so a late
// child holds back the ones after it.
enum class Receives { kAsTheyArrive, kInIssueOrder, kInReverseOrder };

double predict(Op op, const Layout& l, const LmoParams& p, double m,
               Receives receives = Receives::kAsTheyArrive);

// A bcast of m bytes along l pipelined in segments of at most `segment` bytes (BuiltTree::
// segment): the first of k = ceil(m / segment) equal segments crosses the tree as a bcast of
// its size, each later one follows a period later, the period being the slowest stage per
// segment: a process's sends taking turns (count x max(o_i + t_i s, u_i s)), its receive
// (o_i + t_i s; receiver costs overlap the sends, as in predict()), or a link (s / beta_ij,
// the receiver's port s u_in_j); segments above p.eager bytes wait for their receive, so a
// hop's whole delivery p2p(i, j, s) too (a flow shop).
// m <= segment: predict(kBcast, l, p, m).
double predict_pipelined(const Layout& l, const LmoParams& p, double m, double segment);

// A gather of m bytes per process along l paced in segments of at most `segment` bytes
// (BuiltTree::segment; the root's children are leaves, split's star): the first of
// k = ceil(m / segment) equal segments s arrives as a gather of s, each later one a period
// later, the period being the slower of the root (per child a segment taken, o_r + t_r s, and
// a credit sent, o_r; or its incoming port, s u_in_r) and the slowest child's cycle (its
// segment to the root and the root's empty credit back, p2p(i, r, s) + p2p(r, i, 0)), plus
// kappa1 s. m <= segment: predict(kGather, l, p, m).
double predict_paced(const Layout& l, const LmoParams& p, double m, double segment);

// Predicted time of `op` run along `shape` on a communicator whose rank r is process
// members[r] of `p`, from `root`, with m bytes per process (bcast: the message). Sender costs
// C_p + t_p m_k of one process serialize, transfers and receiver costs overlap (above S, and
// for gather above M2, transfers of one process serialize too); a process forwards once its
// own receive is complete; a gather's parent processes its children's messages in arrival
// order. O(n log n) for n members.
double predict(Op op, const Shape& shape, const LmoParams& p, std::span<const int> members,
               int root, double m);

}  // namespace colltune::model

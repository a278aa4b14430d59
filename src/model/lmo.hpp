// The LMO heterogeneous communication model (docs/model.md) and the prediction of any tree
// schedule (src/algorithms/shape.hpp) on it. No MPI: unit-testable, used by calibration and
// selection.
#pragma once

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

  int size() const { return static_cast<int>(C.size()); }
  double u(int i) const { return port.empty() ? 0 : port[i].value; }
  double u_in(int i) const { return port_in.empty() ? 0 : port_in[i].value; }
  double busy(int i) const { return o.empty() ? C[i].value : o[i].value; }
  double ib(int i, int j) const { return inv_beta[static_cast<std::size_t>(i) * size() + j].value; }
  // One message of m bytes from i to j: C_i + t_i m + m / beta_ij + C_j + t_j m.
  double p2p(int i, int j, double m) const {
    return C[i].value + t[i].value * m + m * ib(i, j) + C[j].value + t[j].value * m;
  }
  // Roundtrip: m bytes from i to j, an empty reply back.
  double roundtrip(int i, int j, double m) const { return p2p(i, j, m) + p2p(j, i, 0); }
  // One-to-two experiment: i sends m bytes to j, then to k, each answers empty (see
  // one_to_two_time).
  double one_to_two(int i, int j, int k, double m) const;
  static LmoParams uniform(int n, double c, double t, double inv_beta);
};

// Time of a one-to-two experiment on i from its sender cost s_i = C_i + t_i m, its fixed
// delay c_i and the roundtrips rt_j = T_ij(m), rt_k = T_ik(m), under predict()'s semantics:
// i's sends serialize (the message to j leaves after s_i, the one to k after 2 s_i), each
// transfer overlaps what follows, and i takes the replies in arrival order, C_i each, once
// both sends are done. j's reply arrives at rt_j - c_i, k's at s_i + rt_k - c_i; the time is
// max(max(2 s_i, first) + c_i, second) + c_i. Nondecreasing in s_i; it grows with s_i when k's
// reply or i's own sends come last (send first to the peer with the shorter roundtrip).
double one_to_two_time(double s_i, double c_i, double rt_j, double rt_k);

// A message one process sends, and when it has arrived (computed by send_all).
struct Message {
  int to;
  double bytes;
  double arrive = 0;
};

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

// Fan-in experiment: i sends an empty message to every peer at once (nonblocking, in order),
// each answers with m bytes; the time until i has processed every answer (in arrival order,
// o_i + t_i m each, through i's incoming port as a gather's parent takes its children's).
double fan_in_time(const LmoParams& p, int i, std::span<const int> peers, double m);

// A tree laid out on one member list (a fixed shape from a root, or a built tree), built once
// for predictions at many sizes: every process's children in issue order, parents before
// children. O(n).
struct Layout {
  Layout(const TreeView& t, std::span<const int> members);
  Layout(const Shape& s, std::span<const int> members, int root)
      : Layout(TreeView(s, static_cast<int>(members.size()), root), members) {}
  std::vector<int> order;         // positions, breadth first (order[0] = 0, the root)
  std::vector<int> first, count;  // per position: its children's slice of `kids`
  std::vector<int> kids;          // positions of children, each parent's in issue order
  std::vector<int> sub;           // per position: processes in its subtree
  std::vector<int> proc;          // per position: its process (members[rank of the position])
  // Per relative rank c (a child of parent q, processes i and j), its gather message of
  // sub[c] m bytes: ready at q's end, counted from c's completion, after up_fixed + m up_rate
  // (C_i + C_j - o_j and sub[c] (t_i + 1/beta_ij)), of which m up_wire on the wire. Filled by
  // the first gather prediction on parameters `up_for` (again for others).
  mutable std::vector<double> up_fixed, up_rate, up_wire;
  mutable const LmoParams* up_for = nullptr;
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
// the receiver's port s u_in_j).
// m <= segment: predict(kBcast, l, p, m).
double predict_pipelined(const Layout& l, const LmoParams& p, double m, double segment);

// Predicted time of `op` run along `shape` on a communicator whose rank r is process
// members[r] of `p`, from `root`, with m bytes per process (bcast: the message). Sender costs
// C_p + t_p m_k of one process serialize, transfers and receiver costs overlap (above S, and
// for gather above M2, transfers of one process serialize too); a process forwards once its
// own receive is complete; a gather's parent processes its children's messages in arrival
// order. O(n log n) for n members.
double predict(Op op, const Shape& shape, const LmoParams& p, std::span<const int> members,
               int root, double m);

}  // namespace colltune::model

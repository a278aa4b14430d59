#include "lmo.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace colltune::model {

LmoParams LmoParams::uniform(int n, double c, double t, double inv_beta) {
  LmoParams p;
  p.C.assign(n, {c, 0});
  p.t.assign(n, {t, 0});
  p.inv_beta.assign(static_cast<std::size_t>(n) * n, {inv_beta, 0});
  return p;
}

double one_to_two_time(double s_i, double c_i, double rt_j, double rt_k) {
  const double a_j = rt_j - c_i, a_k = s_i + rt_k - c_i;
  return std::max(std::max(2 * s_i, std::min(a_j, a_k)) + c_i, std::max(a_j, a_k)) + c_i;
}

double LmoParams::ib_alike(int i) const {
  double best = kNever;
  for (int j = 0; j < size(); ++j) {
    if (j != i) best = std::min(best, ib(i, j));
  }
  // 1/beta_ij may be negative where t_i + t_j is large (docs/calibration.md); a message between
  // two nodes of i's kind, 2 t_i + 1/beta, never takes negative time.
  return best == kNever ? ib(i, i) : std::max(best, -2 * t[i].value);
}

void fill_host_links(LmoParams* p) {
  const int n = p->size();
  const auto apart = [&](int i, int j) {
    return p->host_of(i) < 0 || p->host_of(i) != p->host_of(j);
  };
  p->host_link.clear();
  bool several = false;
  for (int i = 0; i < n && !several; ++i) {
    for (int j = i + 1; j < n && !several; ++j) several = apart(i, j);
  }
  if (!several) return;
  p->host_link.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    double best = kNever;
    for (int j = 0; j < n; ++j) {
      if (j != i && apart(i, j)) best = std::min(best, p->ib(i, j));
    }
    p->host_link[i] = best == kNever ? 0 : std::max(0.0, best);
  }
}

double LmoParams::one_to_two(int i, int j, int k, double m) const {
  return one_to_two_time(C[i].value + t[i].value * m, C[i].value, roundtrip(i, j, m),
                         roundtrip(i, k, m));
}

namespace {

// sum_l min(m_l, m_k) for every k, into out (processor sharing of one port: message k is done
// when every message has received min(m_l, m_k) bytes of service). O(K) when all sizes are
// equal (linear trees), O(K^2) for short lists (binomial), else O(K log K).
void shared_service(std::span<const Message> msgs, std::vector<double>& out) {
  const std::size_t k = msgs.size();
  out.resize(k);
  bool equal = true;
  for (const Message& x : msgs) equal = equal && x.bytes == msgs.front().bytes;
  if (equal) {
    for (std::size_t l = 0; l < k; ++l) out[l] = static_cast<double>(k) * msgs[l].bytes;
    return;
  }
  if (k <= 32) {
    for (std::size_t l = 0; l < k; ++l) {
      double s = 0;
      for (const Message& x : msgs) s += std::min(x.bytes, msgs[l].bytes);
      out[l] = s;
    }
    return;
  }
  thread_local std::vector<double> sorted, prefix;
  sorted.clear();
  for (const Message& x : msgs) sorted.push_back(x.bytes);
  std::sort(sorted.begin(), sorted.end());
  prefix.assign(k + 1, 0);
  for (std::size_t l = 0; l < k; ++l) prefix[l + 1] = prefix[l] + sorted[l];
  for (std::size_t l = 0; l < k; ++l) {
    const std::size_t below = static_cast<std::size_t>(
        std::lower_bound(sorted.begin(), sorted.end(), msgs[l].bytes) - sorted.begin());
    out[l] = prefix[below] + static_cast<double>(k - below) * msgs[l].bytes;
  }
}

// What send_all reads of a sender and its receivers: by process from the parameters, or by
// position from a layout's gathered costs (Layout::costs_for), the same arithmetic.
struct ByProcess {
  const LmoParams& p;
  double c(int i) const { return p.C[i].value; }
  double t(int i) const { return p.t[i].value; }
  double busy(int i) const { return p.busy(i); }
  double u(int i) const { return p.u(i); }
  double ib(int from, int to) const { return p.ib(from, to); }
};
struct ByPosition {
  const Layout& l;
  double c(int q) const { return l.c[q]; }
  double t(int q) const { return l.t[q]; }
  double busy(int q) const { return l.o[q]; }
  double u(int q) const { return l.u[q]; }
  double ib(int, int to) const { return l.down_ib[to]; }  // `to` a child of `from`
};

// A size or time at m: a double is one already.
double at(double v, double) { return v; }
double at(Affine v, double m) { return v.at(m); }

// send_all on any costs; Time Affine evaluates every size at once (no port: the caller's
// guarantee), m_ref deciding which messages exceed S.
template <typename Costs, typename Time>
Time send_all_on(const Costs& k, double S, int from, Time ready, std::span<BasicMessage<Time>> msgs,
                 double m_ref = 0) {
  const double cf = k.c(from), tf = k.t(from), of = k.busy(from), lf = cf - of;
  Time sender = ready;
  bool serialized = false;  // above S: every sender cost first, then the transfers in turn
  for (auto& x : msgs) {
    sender += of + tf * x.bytes;
    if (at(x.bytes, m_ref) > S) {
      serialized = true;
      continue;
    }
    x.arrive = sender + lf + x.bytes * k.ib(from, x.to) + k.c(x.to) + k.t(x.to) * x.bytes;
  }
  if (serialized) {
    Time link = sender + lf;
    for (auto& x : msgs) {
      if (at(x.bytes, m_ref) <= S) continue;
      link += x.bytes * k.ib(from, x.to) + k.c(x.to) + k.t(x.to) * x.bytes;
      x.arrive = link;
    }
  }
  if constexpr (std::is_same_v<Time, double>) {
    if (const double u = k.u(from); u > 0 && !msgs.empty()) {
      thread_local std::vector<double> service;
      shared_service(msgs, service);
      for (std::size_t l = 0; l < msgs.size(); ++l) {
        msgs[l].arrive = std::max(msgs[l].arrive, ready + cf + u * service[l] + k.c(msgs[l].to));
      }
    }
  }
  return sender;
}

}  // namespace

std::vector<Affine> upper_envelope(std::vector<Affine>& lines) {
  if (lines.empty()) return {};
  // Sizes are positive: a line no higher than another in both terms is never the only
  // maximum. Two such others, found in O(n): the highest at m = 0 and the steepest.
  const Affine first = *std::max_element(lines.begin(), lines.end(), [](Affine x, Affine y) {
    return x.a < y.a || (x.a == y.a && x.b < y.b);
  });
  const Affine last = *std::max_element(lines.begin(), lines.end(), [](Affine x, Affine y) {
    return x.b < y.b || (x.b == y.b && x.a < y.a);
  });
  std::erase_if(lines, [&](Affine x) { return x.b <= first.b || x.a <= last.a; });
  lines.push_back(first);
  lines.push_back(last);
  std::sort(lines.begin(), lines.end(),
            [](Affine x, Affine y) { return x.b < y.b || (x.b == y.b && x.a < y.a); });
  std::vector<Affine> hull;
  for (const Affine& z : lines) {
    if (!hull.empty() && hull.back().b == z.b) hull.pop_back();  // z is at least as high
    // y is useless when x and z meet no lower than y does.
    while (hull.size() >= 2) {
      const Affine& x = hull[hull.size() - 2];
      const Affine& y = hull.back();
      if ((z.a - x.a) * (y.b - x.b) >= (y.a - x.a) * (z.b - x.b)) {
        hull.pop_back();
      } else {
        break;
      }
    }
    hull.push_back(z);
  }
  return hull;
}

double highest(std::span<const Affine> envelope, double m) {
  double y = 0;
  for (const Affine& x : envelope) y = std::max(y, x.at(m));
  return y;
}

double send_all(const LmoParams& p, int from, double ready, std::span<Message> msgs) {
  return send_all_on(ByProcess{p}, p.S, from, ready, msgs);
}

namespace {

// A gather message (a child's subtree to its parent, or an answer) from process i to j, b
// bytes: at j's end fixed + b rate after i is done with what it waited for (C_i + C_j - o_j
// and t_i + 1/beta_ij), of which b wire on the wire.
struct UpCost {
  double fixed, rate, wire;
};
UpCost up_cost(const LmoParams& p, int i, int j) {
  return {p.C[i].value + p.C[j].value - p.busy(j), p.t[i].value + p.ib(i, j), p.ib(i, j)};
}

}  // namespace

double fan_out_time(const LmoParams& p, int i, std::span<const int> peers, double m) {
  std::vector<Message> msgs;
  for (int j : peers) msgs.push_back({j, m});
  double proc = send_all(p, i, 0, msgs);
  // An empty answer from j is at i up_cost(j, i).fixed after j has the message; i takes o_i
  // for each.
  std::vector<double> replies;
  const double oi = p.busy(i);
  for (const Message& x : msgs) replies.push_back(x.arrive + up_cost(p, x.to, i).fixed);
  std::sort(replies.begin(), replies.end());
  for (double r : replies) proc = std::max(proc, r) + oi;
  return proc;
}

double fan_out_issued_time(const LmoParams& p, int i, std::span<const int> peers, double m) {
  std::vector<Message> msgs;
  for (int j : peers) msgs.push_back({j, m});
  return send_all(p, i, 0, msgs);
}

namespace {

// One message into a process, `at` its arrival without contention, `wire` its own transfer
// time. Through the process's link above M2 (then one message at a time) and its incoming
// port (LmoParams::port_in), in arrival order: updates both (the times they are free) and
// returns when the message is through.
struct Inbound {
  double link = 0, port = 0;
  double pass(const LmoParams& p, int me, double at, double bytes, double wire) {
    if (bytes > p.M2) {  // large messages share this process's link one after another
      link = std::max(link, at - wire) + wire;
      at = link;
    }
    if (const double u = p.u_in(me); u > 0) {
      port = std::max(port, at - wire) + u * bytes;
      at = std::max(at, port);
    }
    return at;
  }
};

}  // namespace

double fan_in_time(const LmoParams& p, int i, std::span<const int> peers, double m) {
  std::vector<Message> msgs;
  for (int j : peers) msgs.push_back({j, 0});
  double proc = send_all(p, i, 0, msgs);
  // j's answer (m bytes) leaves once j has the request: predict()'s gather message.
  const double oi = p.busy(i);
  std::vector<std::pair<double, int>> in;
  for (const Message& x : msgs) {
    const UpCost u = up_cost(p, x.to, i);
    in.push_back({x.arrive + u.fixed + m * u.rate, x.to});
  }
  std::sort(in.begin(), in.end());
  Inbound through;
  for (const auto& [at, j] : in) {
    proc = std::max(proc, through.pass(p, i, at, m, m * up_cost(p, j, i).wire)) + oi +
           p.t[i].value * m;
  }
  return proc;
}

void Layout::reset(const TreeView& t, std::span<const int> members) {
  const int n = static_cast<int>(members.size());
  order.clear();
  kids.clear();
  hint.clear();
  order.reserve(n);
  first.assign(n, 0);
  count.assign(n, 0);
  sub.assign(n, 1);
  proc.resize(n);
  costs_for = nullptr;
  host_rate_for = nullptr;
  exchange_for = nullptr;
  many_sizes = false;
  for (int vr = 0; vr < n; ++vr) proc[vr] = members[t.rank_of(vr)];
  if (n == 0) return;
  order.push_back(0);
  for (std::size_t i = 0; i < order.size(); ++i) {  // breadth first: parents before children
    const int vr = order[i];
    first[vr] = static_cast<int>(kids.size());
    for_each_child(t, vr, [&](int c, int csub) {
      kids.push_back(c);
      sub[c] = csub;
      order.push_back(c);
    });
    count[vr] = static_cast<int>(kids.size()) - first[vr];
    for (int k = 0; k < count[vr]; ++k) hint.push_back(k);
  }
  sub[0] = n;
}

namespace {

// Fills l's gathered costs on p (Layout::costs_for), once per parameters; the gather
// messages' (up_*) too when `up`, once.
void gather_costs(const Layout& l, const LmoParams& p, bool up = false) {
  const std::size_t n = l.proc.size();
  if (l.costs_for != &p) {
    for (auto* v : {&l.c, &l.t, &l.o, &l.u, &l.down_ib}) v->assign(n, 0);
    l.up_fixed.clear();
    l.ports = false;
    l.sub_sizes.clear();
    for (std::size_t q = 0; q < n; ++q) {
      const int i = l.proc[q];
      l.c[q] = p.C[i].value;
      l.t[q] = p.t[i].value;
      l.o[q] = p.busy(i);
      l.u[q] = p.u(i);
      l.ports = l.ports || (l.u[q] > 0 && l.count[q] > 0);
      for (int k = 0; k < l.count[q]; ++k) {
        const int c = l.kids[l.first[q] + k];
        l.down_ib[c] = p.ib(i, l.proc[c]);
      }
    }
    l.envelopes.clear();
    l.costs_for = &p;
  }
  if (!up || !l.up_fixed.empty()) return;
  for (auto* v : {&l.up_fixed, &l.up_rate, &l.up_wire}) v->assign(n, 0);
  for (std::size_t q = 0; q < n; ++q) {
    for (int k = 0; k < l.count[q]; ++k) {
      const int c = l.kids[l.first[q] + k];
      const UpCost u = up_cost(p, l.proc[c], l.proc[q]);
      l.up_fixed[c] = u.fixed;
      l.up_rate[c] = l.sub[c] * u.rate;
      l.up_wire[c] = l.sub[c] * u.wire;
    }
  }
}

// Bcast or scatter along l, parents before children, on l's gathered costs: arrival(child,
// time) and sent(parent, time) see every arrival and every sender's end. O(n), no allocation
// once the thread's scratch has grown.
template <typename Time, typename Arrival, typename Sent>
void top_down(Op op, const Layout& l, double S, Time m, double m_ref, Arrival arrival, Sent sent) {
  thread_local std::vector<Time> ready;
  thread_local std::vector<BasicMessage<Time>> msgs;
  ready.assign(l.proc.size(), Time{});
  for (const int vr : l.order) {
    if (l.count[vr] == 0) continue;
    msgs.resize(static_cast<std::size_t>(l.count[vr]));  // assigned in place: no growth checks
    for (int k = 0; k < l.count[vr]; ++k) {
      const int c = l.kids[l.first[vr] + k];
      msgs[k] = {c, op == Op::kScatter ? l.sub[c] * m : m};
    }
    sent(send_all_on(ByPosition{l}, S, vr, ready[vr], std::span(msgs), m_ref));
    for (int k = 0; k < l.count[vr]; ++k) {
      ready[l.kids[l.first[vr] + k]] = msgs[k].arrive;
      arrival(msgs[k].arrive);
    }
  }
}

double predict_top_down(Op op, const Layout& l, const LmoParams& p, double m) {
  double end = 0;
  const auto later = [&](double t) { end = std::max(end, t); };
  top_down(op, l, p.S, m, m, later, later);
  return end;
}

// Which messages exceed S at m: how many of the sizes they carry do (bcast: m alone).
int regime(Op op, const Layout& l, double S, double m) {
  if (op != Op::kScatter || !std::isfinite(S)) return m > S;
  if (l.sub_sizes.empty()) {  // once per layout and parameters
    for (std::size_t c = 1; c < l.sub.size(); ++c) l.sub_sizes.push_back(l.sub[c]);
    std::sort(l.sub_sizes.begin(), l.sub_sizes.end());
    l.sub_sizes.erase(std::unique(l.sub_sizes.begin(), l.sub_sizes.end()), l.sub_sizes.end());
  }
  return static_cast<int>(l.sub_sizes.end() -
                          std::upper_bound(l.sub_sizes.begin(), l.sub_sizes.end(), S / m));
}

// predict_top_down at m, from l's envelope for m's regime once it has been asked twice, or
// from the first time in the first and last regimes when l.many_sizes (one affine pass, a few
// times a direct one's cost); nullopt before.
std::optional<double> predict_enveloped(Op op, const Layout& l, const LmoParams& p, double m) {
  const int r = regime(op, l, p.S, m);
  Layout::Envelope* e = nullptr;
  for (Layout::Envelope& x : l.envelopes) {
    if (x.op == op && x.regime == r) e = &x;
  }
  if (!e) {
    e = &l.envelopes.emplace_back(Layout::Envelope{op, r, {}});
    // Only the first and the last regime span many sizes of a grid in factors of 2 (between
    // them, a scatter's subtree sizes cross S one power of 2 at a time).
    const int last = op == Op::kScatter && std::isfinite(p.S) ? l.sub_sizes.size() : 1;
    if (!l.many_sizes || (r != 0 && r != last)) return std::nullopt;
  }
  if (e->lines.empty()) {
    thread_local std::vector<Affine> lines;
    lines.assign(1, Affine{});  // the time is at least 0
    const auto keep = [&](Affine t) { lines.push_back(t); };
    top_down(op, l, p.S, Affine{0, 1}, m, keep, keep);
    e->lines = upper_envelope(lines);
  }
  return highest(e->lines, m);
}

struct Arrival {
  double at;  // time on the wire's far end
  int child;
  int slot;  // its index among its parent's children
  bool operator<(const Arrival& o) const { return at < o.at || (at == o.at && child < o.child); }
};

// Insertion sort (shifting); false, `in` left a permutation, once it has moved more than cap
// elements.
bool insertion_sort(std::vector<Arrival>& in, std::size_t cap) {
  std::size_t moves = 0;
  for (std::size_t i = 1; i < in.size(); ++i) {
    const Arrival x = in[i];
    std::size_t j = i;
    for (; j > 0 && x < in[j - 1]; --j) in[j] = in[j - 1];
    in[j] = x;
    moves += i - j;
    if (moves > cap) return false;
  }
  return true;
}

// Sorts arrivals that come in the order of the last prediction. Few out of place (sizes
// change little from one prediction to the next): insertion sort, O(K + moves). Many (the
// sizes where fixed and per-byte costs cross): a bucket pass by time (K buckets between the
// earliest and the latest, stable), then insertion sort within buckets: O(K) unless arrivals
// cluster, when a full sort takes over. Exact: buckets are monotone in time.
void sort_arrivals(std::vector<Arrival>& in) {
  const std::size_t k = in.size();
  if (k < 2) return;
  std::size_t descents = 0;
  double lo = in[0].at, hi = lo;
  for (std::size_t i = 1; i < k; ++i) {
    descents += in[i] < in[i - 1];
    lo = std::min(lo, in[i].at);
    hi = std::max(hi, in[i].at);
  }
  if (descents == 0) return;
  const std::size_t cap = 4 * k;
  const double scale = static_cast<double>(k - 1) / (hi - lo);
  if (k >= 64 && descents * 32 >= k && std::isfinite(scale) && scale > 0) {
    thread_local std::vector<std::uint32_t> start;
    thread_local std::vector<Arrival> out;
    start.assign(k + 1, 0);
    out.resize(k);
    auto bucket = [&](double at) {
      return std::min(static_cast<std::size_t>((at - lo) * scale), k - 1);
    };
    for (const Arrival& a : in) ++start[bucket(a.at) + 1];
    for (std::size_t b = 1; b <= k; ++b) start[b] += start[b - 1];
    for (const Arrival& a : in) out[start[bucket(a.at)]++] = a;
    in.swap(out);
  }
  if (!insertion_sort(in, cap)) std::sort(in.begin(), in.end());
}

// Bottom-up, children before parents: when each process has processed every child's message
// (its subtree is complete); the root's is the result.
double predict_gather(const Layout& l, const LmoParams& p, double m, Receives receives) {
  gather_costs(l, p, true);
  thread_local std::vector<double> done;
  thread_local std::vector<Arrival> in;
  done.assign(l.proc.size(), 0);
  for (auto it = l.order.rbegin(); it != l.order.rend(); ++it) {
    const int vr = *it;
    if (l.count[vr] == 0) continue;
    const int me = l.proc[vr];
    const double ome = p.busy(me);
    // Child c's message, sent at `from` (its subtree complete, or its receive posted), through
    // this process's link and port at `at`, then taken (o + t m): when this process is free.
    Inbound through;
    const auto take = [&](int c, double at, double proc) {
      const double mc = l.sub[c] * m;
      return std::max(proc, through.pass(p, me, at, mc, m * l.up_wire[c])) + ome +
             p.t[me].value * mc;
    };
    double proc = 0;
    const auto sent = [&](int c, double from) { return from + l.up_fixed[c] + m * l.up_rate[c]; };
    if (receives != Receives::kAsTheyArrive) {  // the k-th transfer starts after the (k-1)-th
      for (int k = 0; k < l.count[vr]; ++k) {
        const int slot = receives == Receives::kInIssueOrder ? k : l.count[vr] - 1 - k;
        const int c = l.kids[l.first[vr] + slot];
        proc = take(c, sent(c, std::max(done[c], proc)), proc);
      }
    } else {
      in.clear();
      // In the order of the last prediction (sizes usually come in increasing order, and the
      // order of arrivals changes little from one to the next): insertion sort is then O(K).
      int* order = l.hint.data() + l.first[vr];
      for (int k = 0; k < l.count[vr]; ++k) {
        const int c = l.kids[l.first[vr] + order[k]];
        in.push_back({sent(c, done[c]), c, order[k]});
      }
      sort_arrivals(in);
      for (int k = 0; k < l.count[vr]; ++k) order[k] = in[k].slot;
      for (const Arrival& a : in) proc = take(a.child, a.at, proc);
    }
    done[vr] = proc;
  }
  return done[0];
}

// Layout::host_rate[op] on p: per host, the bytes (per byte of m) its link carries in each
// direction: bcast one message per edge between hosts, scatter and gather the child's subtree.
// Only where some host holds two positions or more and there are two hosts or more. O(n log n).
double host_rate(Op op, const Layout& l, const LmoParams& p) {
  if (l.host_rate_for != &p) {
    l.host_rate.fill(-1);
    l.host_rate_for = &p;
  }
  double& rate = l.host_rate[static_cast<int>(op)];
  if (rate >= 0) return rate;
  rate = 0;
  const int n = static_cast<int>(l.proc.size());
  if (p.host_link.size() != static_cast<std::size_t>(p.size()) || n < 3) return rate;
  thread_local std::vector<std::pair<int, int>> hosts;  // (host, position)
  hosts.clear();
  for (int q = 0; q < n; ++q) hosts.push_back({p.rank_host(l.proc[q], q), q});
  std::sort(hosts.begin(), hosts.end());
  bool shared = false;
  thread_local std::vector<int> of;  // per position: its host's slot
  of.assign(n, 0);
  int slots = 0;
  for (int k = 0; k < n; ++k) {
    if (k > 0 && hosts[k].first == hosts[k - 1].first) {
      shared = true;
    } else {
      ++slots;
    }
    of[hosts[k].second] = slots - 1;
  }
  if (!shared || slots < 2) return rate;
  thread_local std::vector<double> out, in, link;
  out.assign(slots, 0);
  in.assign(slots, 0);
  link.assign(slots, kNever);
  for (int q = 0; q < n; ++q) {
    link[of[q]] = std::min(link[of[q]], p.host_link[l.proc[q]]);
    for (int k = 0; k < l.count[q]; ++k) {
      const int c = l.kids[l.first[q] + k];
      if (of[c] == of[q]) continue;
      const double bytes = op == Op::kBcast ? 1.0 : static_cast<double>(l.sub[c]);
      (op == Op::kGather ? in : out)[of[q]] += bytes;
      (op == Op::kGather ? out : in)[of[c]] += bytes;
    }
  }
  for (int h = 0; h < slots; ++h) rate = std::max(rate, std::max(out[h], in[h]) * link[h]);
  return rate;
}

double predict_events(Op op, const Layout& l, const LmoParams& p, double m, Receives receives);

}  // namespace

double predict(Op op, const Layout& l, const LmoParams& p, double m, Receives receives) {
  if (l.proc.size() <= 1 || m <= 0) return 0;
  return std::max(predict_events(op, l, p, m, receives), m * host_rate(op, l, p));
}

namespace {

double predict_events(Op op, const Layout& l, const LmoParams& p, double m, Receives receives) {
  if (op != Op::kGather) {
    gather_costs(l, p);
    // A layout predicted at many sizes (model::decide): by its envelope in a regime asked twice.
    if (!l.ports) {
      if (const auto t = predict_enveloped(op, l, p, m)) return *t;
    }
    return predict_top_down(op, l, p, m);
  }
  const double kappa = m < p.M1 ? p.kappa1 : m > p.M2 ? p.kappa2 : 0;
  return predict_gather(l, p, m, receives) + kappa * m;
}

}  // namespace

double predict_pipelined(const Layout& l, const LmoParams& p, double m, double segment) {
  if (segment <= 0 || m <= segment) return predict(Op::kBcast, l, p, m);
  const double k = std::ceil(m / segment), s = m / k;
  double period = 0;
  for (const int vr : l.order) {
    const int i = l.proc[vr];
    const double own = vr == 0 ? 0 : p.busy(i) + p.t[i].value * s;
    const double sends = l.count[vr] * std::max(p.busy(i) + p.t[i].value * s, p.u(i) * s);
    period = std::max({period, own, sends});
    for (int c = 0; c < l.count[vr]; ++c) {
      const int j = l.proc[l.kids[l.first[vr] + c]];
      period = std::max(period, s * std::max(p.ib(i, j), p.u_in(j)));
      // A segment that waits for its receive (posted once the previous one is in) crosses the
      // hop whole, one after another: a flow shop whose period is the slowest hop's delivery.
      if (s > p.eager) period = std::max(period, p.p2p(i, j, s));
    }
  }
  return std::max(predict(Op::kBcast, l, p, s) + (k - 1) * period, m * host_rate(Op::kBcast, l, p));
}

double predict_paced(const Layout& l, const LmoParams& p, double m, double segment) {
  if (segment <= 0 || m <= segment) return predict(Op::kGather, l, p, m);
  const double k = std::ceil(m / segment), s = m / k;
  const int r = l.proc[0];
  const double senders = l.count[0];
  double period = senders * std::max(2 * p.busy(r) + p.t[r].value * s, p.u_in(r) * s);
  for (int c = 0; c < l.count[0]; ++c) {
    const int i = l.proc[l.kids[l.first[0] + c]];
    period = std::max(period, p.p2p(i, r, s) + p.p2p(r, i, 0));
  }
  return std::max(predict(Op::kGather, l, p, s) + (k - 1) * (period + p.kappa1 * s),
                  m * host_rate(Op::kGather, l, p));
}

double predict(Op op, const Shape& shape, const LmoParams& p, std::span<const int> members,
               int root, double m) {
  if (members.size() <= 1 || m <= 0) return 0;
  return predict(op, Layout(shape, members, root), p, m);
}

}  // namespace colltune::model

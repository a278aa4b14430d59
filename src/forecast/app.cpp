#include "app.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "algorithms/binomial_math.hpp"
#include "coll.hpp"
#include "links.hpp"
#include "mpich_colls.hpp"

namespace colltune::forecast {

const char* block_name(Block::Kind k) {
  static const char* const names[] = {"compute",  "send",    "neighbours", "ring",      "exchange",
                                      "bcast",    "scatter", "gather",     "allreduce", "reduce",
                                      "alltoall", "barrier", "read",       "write",     "loop"};
  return names[k];
}

double Power::watts(double p) const {
  if (p <= P_low) return PW_low + KW_low * p;
  if (p <= P_hi) return PW_hi + KW_hi * p;
  return PW_max;
}

double expected_from_scratch(double T, double lambda, int nodes) {
  const double r = lambda * nodes;
  return r > 0 ? std::expm1(r * T) / r : T;
}

double daly_interval(double lambda, int nodes, double C) {
  const double M = 1 / (lambda * nodes);
  return C < M / 2 ? std::max(C, std::sqrt(2 * C * M) - C) : M;
}

double expected_with_checkpoints(double T, double lambda, int nodes, double C, double tau) {
  if (lambda <= 0) return T + (tau > 0 ? std::floor(T / tau) * C : 0);
  const double M = 1 / (lambda * nodes);
  if (tau <= 0) tau = daly_interval(lambda, nodes, C);
  return M * std::exp(C / M) * std::expm1((tau + C) / M) * T / tau;
}

// ---- The platform ----------------------------------------------------------------------

AppPlatform::AppPlatform(const model::PlatformModel& pm, const LinkGraph& links)
    : base_(pm), base_links_(links), pm_(&pm), g_(&links) {}

void AppPlatform::prepare(int nodes) {
  const int n = static_cast<int>(base_.identities.size());
  if (nodes <= n) {
    pm_ = &base_, g_ = &base_links_;
    return;
  }
  if (n < 2) {
    throw std::invalid_argument(
        "the table measured one host (" + (n ? base_.identities[0] : std::string("none")) +
        "): " + std::to_string(nodes) +
        " nodes need links between hosts (calibrate on two hosts or more, or give "
        "--per-node so that the processes fit " +
        std::to_string(n) + " node)");
  }
  if (nodes > kMaxNodes) {
    throw std::invalid_argument(std::to_string(nodes) + " nodes: the LMO costs stop at " +
                                std::to_string(kMaxNodes) +
                                " nodes (valid: fewer nodes, more --per-node, or --costs merpsys)");
  }
  const model::LmoParams& p = base_.params;
  auto rep = std::make_shared<model::PlatformModel>(base_);
  model::LmoParams& q = rep->params;
  rep->identities.clear();
  for (std::vector<model::Estimate>* v : {&q.C, &q.t, &q.o, &q.port, &q.port_in}) v->clear();
  q.host.clear();
  int hosts = 0;  // the base's, each replica's hosts its own
  for (int i = 0; i < n; ++i) hosts = std::max(hosts, p.host_of(i) + 1);
  for (int k = 0; k < nodes; ++k) {
    const int i = k % n;
    q.host.push_back(p.host_of(i) < 0 ? -1 : p.host_of(i) + (k / n) * hosts);
    rep->identities.push_back(base_.identities[i] + "#" + std::to_string(k / n));
    q.C.push_back(p.C[i]);
    q.t.push_back(p.t[i]);
    if (!p.o.empty()) q.o.push_back(p.o[i]);
    if (!p.port.empty()) q.port.push_back(p.port[i]);
    if (!p.port_in.empty()) q.port_in.push_back(p.port_in[i]);
  }
  std::vector<double> alike(n);  // an identity's link to another node of its kind
  for (int i = 0; i < n; ++i) alike[i] = p.ib_alike(i);
  q.inv_beta.assign(static_cast<std::size_t>(nodes) * nodes, model::Estimate{});
  for (int a = 0; a < nodes; ++a) {
    for (int b = 0; b < nodes; ++b) {
      const int i = a % n, j = b % n;
      q.inv_beta[static_cast<std::size_t>(a) * nodes + b].value =
          a == b ? p.ib(i, i) : (i == j ? alike[i] : p.ib(i, j));
    }
  }
  model::fill_host_links(&q);
  std::vector<int> twice;  // every node's own link counts as measured
  for (int k = 0; k < nodes; ++k) twice.insert(twice.end(), {k, k});
  replicated_ = rep;
  replicated_links_ = std::make_shared<LinkGraph>(graph_of(*rep, twice));
  // Nodes of two identities: the base graph's link (a links file's fixed, rate and free bytes).
  LinkGraph& g = *replicated_links_;
  const LinkGraph& b = base_links_;
  if (!b.free.empty()) g.free.assign(g.fixed.size(), 0);
  for (int x = 0; x < nodes; ++x) {
    for (int y = 0; y < nodes; ++y) {
      const int i = x % n, j = y % n;
      if (i == j) continue;
      const std::size_t e = static_cast<std::size_t>(x) * nodes + y;
      const std::size_t f = static_cast<std::size_t>(i) * n + j;
      g.fixed[e] = b.fixed[f];
      g.per_byte[e] = b.per_byte[f];
      if (!b.free.empty()) g.free[e] = b.free[f];
    }
  }
  pm_ = replicated_.get(), g_ = replicated_links_.get();
}

// ---- The simulation --------------------------------------------------------------------

namespace {

[[noreturn]] void fail(const Block& b, const std::string& what) {
  throw std::invalid_argument("line " + std::to_string(b.line) + ": " + block_name(b.kind) + ": " +
                              what);
}

double ceil_units(double d, double unit) { return unit > 0 ? std::ceil(d / unit) * unit : d; }

// Thread-seconds per node in equal time bins (for the power model).
struct Load {
  int nodes = 0, bins = 0;
  double width = 0;
  std::vector<double> ts;  // nodes x bins
  void add(int node, double s, double e, double threads) {
    if (e <= s || threads == 0) return;
    int k = std::min(bins - 1, static_cast<int>(s / width));
    while (s < e && k < bins) {
      const double hi = k == bins - 1 ? e : std::min(e, (k + 1) * width);
      ts[static_cast<std::size_t>(node) * bins + k] += threads * (hi - s);
      s = hi;
      ++k;
    }
  }
};

struct Sim {
  const AppModel& m;
  AppPlatform* plat;
  const NodeSpec& node;
  const AppOptions& o;
  int P = 0, nodes = 0;
  std::vector<int> start, count;  // per group: first rank, members
  std::vector<double> clock, comp, port;
  std::vector<double> in_free;                   // per process: its last message in (take_in)
  std::unordered_map<std::uint64_t, Wire> wire;  // per pair of processes that sent eagerly
  Wire& wire_of(int s, int d) { return wire[static_cast<std::uint64_t>(s) * P + d]; }
  std::vector<jitter::Timeline::Cursor> cursor;
  Load* load = nullptr;        // when set: extra threads of compute blocks are recorded
  bool extra_threads = false;  // a compute block ran more threads than a waiting process has
  // A collective by kind, the block's groups, its communicator (-1: all members), bytes and
  // root: its time, and the tree it runs as messages.
  using CollKey = std::tuple<int, std::vector<int>, int, double, double>;
  CollKey coll_key(const Block& b, double bytes, int root) const {
    return {static_cast<int>(b.kind), b.groups, sub_id, bytes, static_cast<double>(root)};
  }
  std::map<CollKey, double> cache;
  std::map<CollKey, TreeSchedule> trees;
  std::unique_ptr<ModelAtSize> sized;  // the platform at a collective's size (made at the first)

  Sim(const AppModel& model, AppPlatform* p, const NodeSpec& n, const AppOptions& opt)
      : m(model), plat(p), node(n), o(opt) {}

  std::vector<int> node_;  // per rank: its node, the platform's index of its identity
  int node_of(int r) const { return node_[r]; }

  std::map<std::vector<int>, std::vector<int>> member_lists;  // by the block's groups
  std::vector<double> old;                                    // neighbours' scratch
  // While a block with `comm` runs on one of its communicators: its members, and its number
  // among the communicators met so far (the collectives' cache key).
  const std::vector<int>* sub = nullptr;
  int sub_id = -1;
  std::map<std::vector<int>, int> sub_ids;

  const std::vector<int>& members(const Block& b) {
    if (sub) return *sub;
    auto it = member_lists.find(b.groups);
    if (it == member_lists.end()) it = member_lists.emplace(b.groups, listed(b)).first;
    return it->second;
  }
  std::vector<int> listed(const Block& b) const {
    std::vector<int> gs = b.groups;
    if (gs.empty()) {
      gs.resize(m.groups.size());
      std::iota(gs.begin(), gs.end(), 0);
    }
    std::sort(gs.begin(), gs.end());
    std::vector<int> out;
    for (const int g : gs) {
      for (int k = 0; k < count[g]; ++k) out.push_back(start[g] + k);
    }
    return out;
  }

  double link(int a, int b, double bytes) const {
    const LinkGraph& g = plat->links();
    const std::size_t k = static_cast<std::size_t>(node_of(a)) * g.size() + node_of(b);
    return g.time(k, bytes);
  }

  double merpsys_lin(const Block& b, const Linear& l, const char* what, double d,
                     double factor) const {
    if (!l.given()) {
      fail(b, std::string("the node file gives no ") + what +
                  " coefficients (T and K); valid: a node file with them, or --costs lmo");
    }
    return l.T + l.K * ceil_units(d, node.merpsys.D_tu) * factor;
  }

  // What an eager send of `bytes` costs its sender r itself.
  double own_send(int r, double bytes) const {
    const LinkGraph& g = plat->links();
    return g.send_fixed[node_of(r)] + g.send_per_byte[node_of(r)] * bytes;
  }

  double p2p(const Block& b, int s, int d, double bytes) const {
    if (o.merpsys) return merpsys_lin(b, node.merpsys.p2p, "p2p", bytes, 1);
    return link(s, d, bytes);
  }

  void compute(const Block& b, const Vars& v) {
    const std::vector<int>& ms = members(b);
    double th = b.threads.empty() ? 1 : b.threads.eval(v);
    if (th < 1) fail(b, "threads " + std::to_string(th) + " (valid: 1 or more)");
    // Per node: threads of this block (members are in rank order, so a node's are adjacent).
    std::vector<double> active(nodes, 0);
    for (const int r : ms) active[node_of(r)] += th;
    const double given = b.seconds.empty() ? 0 : b.seconds.eval(v);
    const double h = b.seconds.empty() ? b.flops.eval(v) : 0;
    const double ws = b.working_set.empty() ? std::nan("") : b.working_set.eval(v);
    if (ws <= 0) fail(b, "working_set " + std::to_string(ws) + " (valid: bytes above 0)");
    const double rate = o.flops_rate.rate(ws);  // the block's, the same for every member
    for (const int r : ms) {
      double s = 0;
      if (!b.seconds.empty()) {
        s = given;
      } else {
        const double p_th = active[node_of(r)];
        if (o.merpsys && !o.flops_rate.given()) {
          const Merpsys& c = node.merpsys;
          if (!c.compute_given) {
            fail(b,
                 "the node file gives no compute coefficients (P_low, P_hi, T_min, T_low, "
                 "T_hi, K_hi); valid: a node file with them, or seconds");
          }
          const double per = p_th <= c.P_low  ? c.T_min
                             : p_th <= c.P_hi ? c.T_low
                                              : c.T_hi + c.K_hi * p_th;
          s = per * h / th;
        } else {
          if (!o.flops_rate.given()) {
            fail(b, "flops need a rate (valid: --flops-rate, or seconds in the block)");
          }
          s = h / (rate * th);
          if (o.cores > 0) s *= std::max(1.0, p_th / o.cores);
        }
      }
      if (s < 0) fail(b, "negative time " + std::to_string(s));
      const double t0 = clock[r];
      if (o.noise) {
        jitter::Timeline::Cursor& c = cursor[r];
        o.noise->wait_until(c, t0 * o.hz);
        o.noise->work(c, s * o.hz);
        clock[r] = c.t / o.hz;
      } else {
        clock[r] += s;
      }
      comp[r] += clock[r] - t0;
      const double extra = o.busy_wait ? th - 1 : th;
      if (extra > 0) {
        extra_threads = true;
        if (load) load->add(node_of(r), t0, clock[r], extra);
      }
    }
  }

  bool eager(double bytes) const { return !o.merpsys && bytes <= o.eager; }
  // An eager message from s to d leaves: when its last byte would be in, were d free.
  double depart(int s, int d, double bytes) {
    return send_eager(plat->links(), node_of(s), node_of(d), bytes, &clock[s], &port[s],
                      &wire_of(s, d));
  }
  // d takes in a message that would be in at `at` (one at a time, take_in; not in MERPSYS's
  // formulas): when it is in.
  double take(int d, double bytes, double at) {
    return o.merpsys ? at : take_in(plat->links(), node_of(d), bytes, at, &in_free[d]);
  }
  // One message from s to d: eager (the sender goes on) or rendezvous (both wait for it).
  void message(const Block& b, int s, int d, double bytes) {
    if (eager(bytes)) {
      clock[d] = std::max(clock[d], take(d, bytes, depart(s, d, bytes)));
      return;
    }
    const double end = take(d, bytes, std::max(clock[s], clock[d]) + p2p(b, s, d, bytes));
    clock[s] = clock[d] = end;
  }

  void send(const Block& b, const Vars& v) {
    const double bytes = b.bytes.eval(v);
    const int F = count[b.from], T = count[b.to];
    const int f0 = start[b.from], t0 = start[b.to];
    if (F == 1) {
      for (int k = 0; k < T; ++k) message(b, f0, t0 + k, bytes);
    } else if (T == 1 && eager(bytes)) {  // all send; the receiver takes them as they come in
      std::vector<std::pair<double, int>> in;
      for (int s = f0; s < f0 + F; ++s) in.emplace_back(depart(s, t0, bytes), s);
      std::stable_sort(in.begin(), in.end());
      for (const auto& [at, s] : in) clock[t0] = std::max(clock[t0], take(t0, bytes, at));
    } else if (T == 1) {  // the receiver takes them in the order they are ready
      std::vector<int> order(F);
      std::iota(order.begin(), order.end(), f0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int x, int y) { return clock[x] < clock[y]; });
      for (const int s : order) message(b, s, t0, bytes);
    } else if (F == T) {
      for (int k = 0; k < F; ++k) message(b, f0 + k, t0 + k, bytes);
    } else {
      fail(b, m.groups[b.from].label + " has " + std::to_string(F) + " members and " +
                  m.groups[b.to].label + " " + std::to_string(T) +
                  " (valid: one sender, one receiver, or as many of each)");
    }
  }

  void neighbours(const Block& b, const Vars& v) {
    const std::vector<int>& ms = members(b);
    const double bytes = b.bytes.eval(v);
    const int n = static_cast<int>(ms.size());
    old.resize(n);
    const bool eager = !o.merpsys && bytes <= o.eager;
    for (const Expr& e : b.offsets) {
      const int off = static_cast<int>(std::lround(e.eval(v)));
      for (int i = 0; i < n; ++i) old[i] = clock[ms[i]];
      for (int i = 0; i < n; ++i) {
        const int to = i + off, from = i - off;
        if (eager && off != 0) {
          // Eager: i's send costs it its own part only; its receive waits for the message
          // that left i - o when that one was ready.
          double end = old[i];
          if (to >= 0 && to < n) end += own_send(ms[i], bytes);
          if (from >= 0 && from < n) end = std::max(end, old[from] + link(ms[from], ms[i], bytes));
          clock[ms[i]] = end;
          continue;
        }
        double ready = old[i], cost = 0;
        if (off != 0 && to >= 0 && to < n) {
          ready = std::max(ready, old[to]);
          cost = std::max(cost, p2p(b, ms[i], ms[to], bytes));
        }
        if (off != 0 && from >= 0 && from < n) {
          ready = std::max(ready, old[from]);
          cost = std::max(cost, p2p(b, ms[from], ms[i], bytes));
        }
        if (cost > 0) clock[ms[i]] = ready + cost;
      }
    }
  }

  // BLACS's rings, each hop a message on its own link, forwarded once the whole message is in.
  // Increasing: root to the next member, and on until the member before root has it. Split
  // (BLACS's S-ring, more than 2 members): root sends right, then left; the right chain carries
  // it to distance n / 2, the left one back to distance n / 2 + 1.
  void ring(const Block& b, const Vars& v) {
    const std::vector<int>& ms = members(b);
    const double bytes = b.bytes.eval(v);
    const int n = static_cast<int>(ms.size());
    const int root = checked_root(b, v, n, bytes);
    const auto at = [&](int d) { return ms[(root + d) % n]; };  // d: the distance from root
    if (b.split.empty() || b.split.eval(v) == 0 || n <= 2) {
      for (int d = 1; d < n; ++d) message(b, at(d - 1), at(d), bytes);
      return;
    }
    message(b, at(0), at(1), bytes);
    message(b, at(0), at(n - 1), bytes);
    for (int d = 1; d < n / 2; ++d) message(b, at(d), at(d + 1), bytes);
    for (int d = n - 1; d > n / 2 + 1; --d) message(b, at(d), at(d - 1), bytes);
  }

  // Member `root` exchanges `bytes` both ways (MPI_Sendrecv) with the other members in turn
  // from root + 1: `count` exchanges in all (to the nearest whole number), count / (n - 1)
  // with each and one more with the first count mod (n - 1), one member's all before the next.
  void exchange(const Block& b, const Vars& v) {
    const std::vector<int>& ms = members(b);
    const double bytes = b.bytes.eval(v);
    const int n = static_cast<int>(ms.size());
    const int root = checked_root(b, v, n, bytes);
    const double c = b.count.eval(v);
    if (!(c >= 0 && c <= 1e9)) fail(b, "count " + std::to_string(c) + " (valid: 0 to 1e9)");
    const long total = std::lround(c);
    if (n < 2 || total == 0) return;
    const long each = total / (n - 1), extra = total % (n - 1);
    for (int d = 1; d < n; ++d) {
      for (long k = 0; k < each + (d <= extra ? 1 : 0); ++k)
        swap(b, ms[root], ms[(root + d) % n], bytes);
    }
  }
  // One MPI_Sendrecv of `bytes` between a and c. Eager: each pays its own send and waits for
  // the other's message; else both start when both are there and the slower way ends it.
  void swap(const Block& b, int a, int c, double bytes) {
    if (eager(bytes)) {  // both sends leave before either receive
      const double to_c = take(c, bytes, depart(a, c, bytes));
      const double to_a = take(a, bytes, depart(c, a, bytes));
      clock[a] = std::max(clock[a], to_a);
      clock[c] = std::max(clock[c], to_c);
      return;
    }
    const double end =
        std::max(clock[a], clock[c]) + std::max(p2p(b, a, c, bytes), p2p(b, c, a, bytes));
    clock[a] = clock[c] = std::max(take(a, bytes, end), take(c, bytes, end));
  }

  // The block's root among its n members (0 unless given), bytes not negative: else fail.
  int checked_root(const Block& b, const Vars& v, int n, double bytes) const {
    const double x = b.root.empty() ? 0 : b.root.eval(v);
    const long root = std::isfinite(x) ? std::lround(x) : -1;
    if (root < 0 || root >= n) {
      std::ostringstream shown;
      shown << x;
      fail(b, "root " + shown.str() + " (valid: 0 to " + std::to_string(n - 1) +
                  ", a rank of the block's members)");
    }
    if (!(bytes >= 0) || !std::isfinite(bytes))
      fail(b, "bytes " + std::to_string(bytes) + " (valid: 0 or more)");
    return static_cast<int>(root);
  }

  double collective_cost(const Block& b, const std::vector<int>& ms, double bytes, int root) {
    const int n = static_cast<int>(ms.size());
    if (n <= 1) return 0;
    const CollKey key = coll_key(b, bytes, root);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    double s = 0;
    if (o.merpsys) {
      const Merpsys& c = node.merpsys;
      const double lg = std::log2(n);
      switch (b.kind) {
        case Block::kBcast:
        case Block::kReduce:
          s = merpsys_lin(b, c.bcast, "bcast", bytes, lg);
          break;
        case Block::kAllreduce:
          s = 2 * merpsys_lin(b, c.bcast, "bcast", bytes, lg);
          break;
        case Block::kScatter:
          s = merpsys_lin(b, c.scatter, "scatter", bytes, lg / n);
          break;
        case Block::kGather:
          s = merpsys_lin(b, c.gather, "gather", bytes, lg / n);
          break;
        case Block::kAlltoall:
          s = merpsys_lin(b, c.alltoall, "alltoall", bytes, n);
          break;
        default:
          if (!c.barrier.given()) fail(b, "the node file gives no barrier coefficients");
          s = c.barrier.T + c.barrier.K * lg;
      }
    } else if (b.kind == Block::kBcast || b.kind == Block::kScatter || b.kind == Block::kGather) {
      const Op op = b.kind == Block::kBcast    ? Op::kBcast
                    : b.kind == Block::kGather ? Op::kGather
                                               : Op::kScatter;
      std::vector<int> ids(n);
      for (int k = 0; k < n; ++k) ids[k] = node_of(ms[k]);
      const double mm = std::max(1.0, bytes);
      if (!sized) sized = std::make_unique<ModelAtSize>(plat->model(), plat->links());
      s = coll_time(plat->model(), sized.get(), op, ids, root, mm, o.native);
    } else {
      const PairCost T = [&](int a, int c, double x) { return link(ms[a], ms[c], x); };
      switch (b.kind) {
        case Block::kAllreduce:
          s = mpich_allreduce(n, bytes, T);
          break;
        case Block::kReduce:
          s = mpich_reduce(n, bytes, T);
          break;
        case Block::kAlltoall:
          s = mpich_alltoall(n, bytes, T);
          break;
        default:
          s = mpich_barrier(n, T);
      }
    }
    cache.emplace(key, s);
    return s;
  }

  // A broadcast or reduction that runs a fixed tree (forecast::tree_schedule), as its messages:
  // true when it did. Broadcast: each member forwards to its children, in issue order, once it
  // has the message; reduction: each takes its children's, smallest subtree first, then sends.
  bool tree(const Block& b, const std::vector<int>& ms, double bytes, int root) {
    if (o.merpsys || (b.kind != Block::kBcast && b.kind != Block::kReduce)) return false;
    const int n = static_cast<int>(ms.size());
    const CollKey key = coll_key(b, bytes, root);
    TreeSchedule plan;
    if (auto it = trees.find(key); it != trees.end()) {
      plan = it->second;
    } else {
      std::vector<int> ids(n);
      for (int k = 0; k < n; ++k) ids[k] = node_of(ms[k]);
      if (!sized) sized = std::make_unique<ModelAtSize>(plat->model(), plat->links());
      plan = tree_schedule(plat->model(), sized.get(), b.kind == Block::kReduce, ids, root, bytes,
                           o.native);
      trees.emplace(key, plan);
    }
    const Shape* shape = plan.shape;
    if (!shape) return false;
    const auto rank = [&](int vr) { return ms[tree::absolute(vr, root, n)]; };
    const auto down = [&](auto&& self, int vr) -> void {  // bcast: vr has the message
      std::vector<int> kids;
      for_each_child(*shape, vr, n, [&](int c, int) { kids.push_back(c); });
      if (plan.at_once && !eager(bytes)) {  // every child's transfer starts at once
        const int s = rank(vr);
        const double start = clock[s];
        for (const int c : kids) {
          const int d = rank(c);
          clock[d] = take(d, bytes, std::max(start, clock[d]) + p2p(b, s, d, bytes));
          clock[s] = std::max(clock[s], clock[d]);
        }
      } else {
        for (const int c : kids) message(b, rank(vr), rank(c), bytes);
      }
      for (const int c : kids) self(self, c);
    };
    const auto up = [&](auto&& self, int vr) -> void {  // reduce: vr's subtree into vr
      std::vector<int> kids;
      for_each_child(*shape, vr, n, [&](int c, int) { kids.push_back(c); });
      for (auto c = kids.rbegin(); c != kids.rend(); ++c) {
        self(self, *c);
        message(b, rank(*c), rank(vr), bytes);
      }
    };
    if (b.kind == Block::kBcast)
      down(down, 0);
    else
      up(up, 0);
    return true;
  }

  void collective(const Block& b, const Vars& v) {
    const std::vector<int>& ms = members(b);
    const double bytes = b.kind == Block::kBarrier ? 0 : b.bytes.eval(v);
    const int root = checked_root(b, v, static_cast<int>(ms.size()), bytes);
    if (tree(b, ms, bytes, root)) return;
    double begin = 0;
    for (const int r : ms) begin = std::max(begin, clock[r]);
    const double end = begin + collective_cost(b, ms, bytes, root);
    for (const int r : ms) clock[r] = end;
  }

  void disk(const Block& b, const Vars& v) {
    const std::vector<int>& ms = members(b);
    const double bytes = b.bytes.eval(v);
    const Linear& l = b.kind == Block::kRead ? node.merpsys.read : node.merpsys.write;
    const double s = merpsys_lin(b, l, b.kind == Block::kRead ? "read" : "write", bytes, 1);
    for (const int r : ms) clock[r] += s;
  }

  void one(const Block& b, Vars& v) {
    switch (b.kind) {
      case Block::kLoop: {
        const double n = std::floor(b.count.eval(v));
        if (n < 0 || n > 1e9) fail(b, "count " + std::to_string(n) + " (valid: 0 to 1e9)");
        const auto saved = v.find(b.var) != v.end() ? v[b.var] : std::nan("");
        for (double i = 0; i < n; ++i) {
          if (!b.var.empty()) v[b.var] = i;
          run(b.body, v);
        }
        if (!b.var.empty()) {
          if (std::isnan(saved))
            v.erase(b.var);
          else
            v[b.var] = saved;
        }
        break;
      }
      case Block::kCompute:
        compute(b, v);
        break;
      case Block::kSend:
        send(b, v);
        break;
      case Block::kNeighbours:
        neighbours(b, v);
        break;
      case Block::kRing:
        ring(b, v);
        break;
      case Block::kExchange:
        exchange(b, v);
        break;
      case Block::kRead:
      case Block::kWrite:
        disk(b, v);
        break;
      default:
        collective(b, v);
    }
  }

  // The block's communicators by `comm` (docs/app-models.md), each run on its own; compute and
  // disk blocks, which no member waits for, run once on every member taking part.
  void split_run(const Block& b, Vars& v) {
    const std::vector<int> all = members(b);  // `member` is no other name (app_yaml)
    std::map<long, std::vector<int>> colours;
    struct Erase {  // `member` leaves v however this ends
      Vars& v;
      ~Erase() { v.erase("member"); }
    } erase{v};
    for (std::size_t i = 0; i < all.size(); ++i) {
      v["member"] = static_cast<double>(i);
      const double c = b.comm.eval(v);
      if (c != std::floor(c) || std::fabs(c) > 1e15) {
        std::ostringstream shown;
        shown << "comm " << c << " at member " << i;
        fail(b, shown.str() + " (valid: a whole number; negative: no part)");
      }
      if (c >= 0) colours[static_cast<long>(c)].push_back(all[i]);
    }
    const bool apart =
        b.kind == Block::kCompute || b.kind == Block::kRead || b.kind == Block::kWrite;
    std::vector<std::vector<int>> lists;
    if (apart) {
      lists.emplace_back();
      for (const auto& [c, ms] : colours)
        lists.back().insert(lists.back().end(), ms.begin(), ms.end());
      std::sort(lists.back().begin(), lists.back().end());
    } else {
      for (auto& [c, ms] : colours) lists.push_back(std::move(ms));
    }
    struct Whole {  // back to whole member lists however this ends
      Sim& s;
      ~Whole() { s.sub = nullptr, s.sub_id = -1; }
    } whole{*this};
    for (const std::vector<int>& ms : lists) {
      if (ms.empty()) continue;
      sub_id = sub_ids.emplace(ms, static_cast<int>(sub_ids.size())).first->second;
      sub = &ms;
      one(b, v);
    }
  }

  void run(const std::vector<Block>& bs, Vars& v) {
    for (const Block& b : bs) {
      try {
        if (!b.comm.empty() && b.kind != Block::kLoop && b.kind != Block::kSend)
          split_run(b, v);
        else
          one(b, v);
      } catch (const std::invalid_argument& e) {
        const std::string w = e.what();
        if (w.rfind("line ", 0) == 0) throw;
        fail(b, w);
      }
    }
  }

  void layout(Vars* v) {
    (*v)["P"] = P;
    start.clear(), count.clear();
    int next = 0;
    for (const Group& g : m.groups) {
      const double c = g.count.eval(*v);
      if (c < 0 || c != std::floor(c)) {
        throw std::invalid_argument("group " + g.label + ": count " + std::to_string(c) +
                                    " (valid: a whole number from 0)");
      }
      start.push_back(next);
      count.push_back(static_cast<int>(c));
      (*v)[g.label] = c;
      next += static_cast<int>(c);
    }
    if (next != P) {
      throw std::invalid_argument("the groups count " + std::to_string(next) +
                                  " processes, not P = " + std::to_string(P) +
                                  " (valid: counts that add up to -n)");
    }
    // Placement: a group with `on` on those identities in turn; the others, in rank order,
    // per_node to a node from node 0.
    node_.assign(P, 0);
    int unplaced = 0;
    for (std::size_t g = 0; g < m.groups.size(); ++g) {
      const std::vector<std::string>& on = m.groups[g].on;
      std::vector<int> ids;
      for (const std::string& name : on) {
        if (o.merpsys) {
          throw std::invalid_argument("group " + m.groups[g].label +
                                      ": on names identities of a table (valid: --costs lmo)");
        }
        const int i = plat->base().find_identity(name);
        if (i < 0) {
          std::string valid;
          for (const std::string& x : plat->base().identities) {
            valid += (valid.empty() ? "" : ", ") + x;
          }
          throw std::invalid_argument("group " + m.groups[g].label + ": on: unknown identity '" +
                                      name + "' (valid: " + valid + ")");
        }
        ids.push_back(i);
      }
      for (int k = 0; k < count[g]; ++k) {
        node_[start[g] + k] = ids.empty() ? unplaced++ / o.per_node : ids[k % ids.size()];
      }
    }
    nodes = P ? *std::max_element(node_.begin(), node_.end()) + 1 : 0;
  }

  void reset() {
    clock.assign(P, 0), comp.assign(P, 0), port.assign(P, 0);
    in_free.assign(P, -std::numeric_limits<double>::infinity());
    wire.clear();
    cache.clear();
    trees.clear();
    member_lists.clear();
    sub_ids.clear();
    if (o.noise) {
      std::mt19937_64 rng(0x5eed);
      std::uniform_real_distribution<double> at(0, o.noise->length());
      cursor.clear();
      for (int r = 0; r < P; ++r) cursor.push_back(o.noise->cursor(at(rng), o.noise->length()));
    }
  }
};

}  // namespace

AppResult simulate_app(const AppModel& m, AppPlatform* platform, const NodeSpec& node,
                       const AppOptions& o) {
  if (o.processes < 1 || o.per_node < 1) throw std::invalid_argument("no processes");
  Sim s(m, platform, node, o);
  s.P = o.processes;
  Vars given = m.vars;
  for (const auto& [k, x] : o.vars) given[k] = x;
  Vars v = given;
  s.layout(&v);
  if (!o.merpsys) platform->prepare(s.nodes);
  std::vector<char> used(s.nodes, 0);  // nodes with a process (placement may skip some)
  for (int r = 0; r < s.P; ++r) used[s.node_of(r)] = 1;
  const int busy_nodes = static_cast<int>(std::count(used.begin(), used.end(), 1));
  s.reset();
  s.run(m.blocks, v);
  AppResult res;
  res.nodes = busy_nodes;
  res.seconds = s.P ? *std::max_element(s.clock.begin(), s.clock.end()) : 0;
  for (std::size_t g = 0; g < m.groups.size(); ++g) {
    GroupResult gr{m.groups[g].label, s.count[g]};
    for (int k = 0; k < s.count[g]; ++k) {
      const int r = s.start[g] + k;
      gr.end = std::max(gr.end, s.clock[r]);
      gr.compute = std::max(gr.compute, s.comp[r]);
    }
    res.groups.push_back(gr);
  }
  if (node.lambda > 0) res.success = std::exp(-node.lambda * res.seconds * busy_nodes);
  if (node.has_power && res.seconds > 0) {
    // Thread-seconds per node in 256 bins of the run: the waiting processes (busy_wait: one
    // thread each until their end), and, run again with the bins known, compute blocks'
    // extra threads.
    Load load{s.nodes, 256, res.seconds / 256, {}};
    load.ts.assign(static_cast<std::size_t>(s.nodes) * load.bins, 0);
    if (s.extra_threads) {
      Vars v2 = given;
      s.layout(&v2);
      s.reset();
      s.load = &load;
      s.run(m.blocks, v2);
    }
    if (o.busy_wait) {
      for (int r = 0; r < s.P; ++r) load.add(s.node_of(r), 0, s.clock[r], 1);
    }
    res.energy = 0;
    res.node_energy_max = 0;
    for (int k = 0; k < s.nodes; ++k) {
      if (!used[k]) continue;
      double e = 0;
      for (int j = 0; j < load.bins; ++j) {
        e += load.width *
             node.power.watts(load.ts[static_cast<std::size_t>(k) * load.bins + j] / load.width);
      }
      res.energy += e;
      res.node_energy_max = std::max(res.node_energy_max, e);
    }
  }
  return res;
}

}  // namespace colltune::forecast

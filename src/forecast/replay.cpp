#include "replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "algorithms/binomial_math.hpp"
#include "algorithms/registry.hpp"
#include "coll.hpp"
#include "links.hpp"
#include "mpich_colls.hpp"
#include "rate.hpp"

namespace colltune::forecast {

namespace {

bool rooted(TraceAction::Kind k) {
  return k == TraceAction::kBcast || k == TraceAction::kReduce || k == TraceAction::kGather ||
         k == TraceAction::kScatter;
}

// The trace's action names, in TraceAction::Kind's order.
constexpr const char* kActionNames[] = {"compute",   "send",    "isend",   "recv",   "irecv",
                                        "wait",      "barrier", "bcast",   "gather", "scatter",
                                        "allreduce", "reduce",  "alltoall"};
static_assert(std::size(kActionNames) == TraceAction::kAlltoall + 1);

}  // namespace

const char* action_name(TraceAction::Kind k) { return kActionNames[k]; }

std::vector<TraceAction> parse_trace(const std::string& text, int rank) {
  std::vector<TraceAction> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  std::map<int, std::shared_ptr<const std::vector<int>>> comms;  // the trace's communicators
  RateBySize pack;  // pieces of strided messages packed per second, by span (`# pack`)
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument("rank " + std::to_string(rank) + " line " + std::to_string(n) +
                                ": " + what);
  };
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("# unsupported", 0) == 0) bad(line.substr(2) + " (not replayable)");
    if (line.rfind("# took ", 0) == 0) {
      char* end = nullptr;
      const double t = std::strtod(line.c_str() + 7, &end);
      if (end == line.c_str() + 7 || t < 0 || !std::isfinite(t)) bad("'" + line + "': seconds");
      if (!out.empty() && out.back().kind != TraceAction::kCompute && out.back().took < 0) {
        out.back().took = t;
      }
      continue;
    }
    if (line.rfind("# pack ", 0) == 0) {
      try {
        pack = parse_rate(line.substr(7), "'# pack'");
      } catch (const std::invalid_argument& e) {
        bad(e.what());
      }
      continue;
    }
    if (line.rfind("# pieces ", 0) == 0) {
      std::istringstream w(line.substr(9));
      double pieces = 0, span = 0;
      if (!(w >> pieces >> span) || pieces < 1 || span < 0) bad("'" + line + "': pieces, span");
      const bool p2p =
          !out.empty() &&
          (out.back().kind == TraceAction::kSend || out.back().kind == TraceAction::kIsend ||
           out.back().kind == TraceAction::kRecv || out.back().kind == TraceAction::kIrecv);
      if (p2p && pack.given()) out.back().pack = pieces / pack.rate(span);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::istringstream w(line);
    int r = -1;
    std::string a;
    if (!(w >> r >> a)) bad("'" + line + "' is not 'RANK ACTION ...'");
    if (r != rank)
      bad("rank " + std::to_string(r) + " in the trace of rank " + std::to_string(rank));
    TraceAction x;
    bool ok = true;
    if (a == "init" || a == "finalize") continue;
    if (a == "comm") {
      int k = -1, m = -1;
      std::vector<int> ms;
      if (!(w >> k) || k < 0) bad("'" + line + "': a communicator's number");
      while (w >> m) {
        if (m < 0 || std::find(ms.begin(), ms.end(), m) != ms.end()) {
          bad("'" + line + "': rank " + std::to_string(m) + " (valid: ranks, each once)");
        }
        ms.push_back(m);
      }
      if (ms.empty() || !w.eof()) bad("'" + line + "': its members' ranks");
      if (std::find(ms.begin(), ms.end(), rank) == ms.end())
        bad("rank " + std::to_string(rank) + " is not among the members of communicator " +
            std::to_string(k));
      comms[k] = std::make_shared<const std::vector<int>>(std::move(ms));
      continue;
    }
    if (const auto at = a.find('@'); at != std::string::npos) {
      char* end = nullptr;
      const long k = std::strtol(a.c_str() + at + 1, &end, 10);
      const auto c = comms.find(static_cast<int>(k));
      if (at + 1 == a.size() || *end != '\0' || c == comms.end()) {
        bad("'" + a + "': communicator " + a.substr(at + 1) +
            " is not defined before (a line 'RANK comm K W0 W1 ...')");
      }
      x.members = c->second;
      a.resize(at);
      if (a == "compute" || a == "send" || a == "isend" || a == "recv" || a == "irecv" ||
          a == "wait") {
        bad("'" + a + "@" + std::to_string(k) + "': only collectives name a communicator");
      }
    }
    if (a == "compute") {
      x.kind = TraceAction::kCompute;
      ok = static_cast<bool>(w >> x.flops) && x.flops >= 0;
    } else if (a == "send" || a == "isend" || a == "recv" || a == "irecv") {
      x.kind = a == "send"    ? TraceAction::kSend
               : a == "isend" ? TraceAction::kIsend
               : a == "recv"  ? TraceAction::kRecv
                              : TraceAction::kIrecv;
      ok = static_cast<bool>(w >> x.peer >> x.tag >> x.bytes) && x.peer >= 0 && x.bytes >= 0;
    } else if (a == "wait") {
      x.kind = TraceAction::kWait;
      ok = static_cast<bool>(w >> x.peer >> x.root >> x.tag);
    } else if (a == "barrier") {
      x.kind = TraceAction::kBarrier;
    } else if (a == "bcast") {
      x.kind = TraceAction::kBcast;
      ok = static_cast<bool>(w >> x.bytes >> x.root);
    } else if (a == "allreduce") {
      x.kind = TraceAction::kAllreduce;
      ok = static_cast<bool>(w >> x.bytes) && x.bytes >= 0;
    } else if (a == "reduce") {
      x.kind = TraceAction::kReduce;
      double comp = 0;
      ok = static_cast<bool>(w >> x.bytes >> comp >> x.root) && x.bytes >= 0;
    } else if (a == "alltoall") {
      x.kind = TraceAction::kAlltoall;
      ok = static_cast<bool>(w >> x.bytes) && x.bytes >= 0;
    } else if (a == "gather" || a == "scatter") {
      x.kind = a == "gather" ? TraceAction::kGather : TraceAction::kScatter;
      double recv_bytes = 0;
      ok = static_cast<bool>(w >> x.bytes >> recv_bytes >> x.root);
    } else {
      std::string valid;
      for (const char* v : kActionNames) valid += (valid.empty() ? "" : ", ") + std::string(v);
      bad("action '" + a + "' is not modelled (valid: " + valid + ")");
    }
    if (!ok) bad("'" + line + "': missing or invalid numbers");
    if (x.members && rooted(x.kind) &&
        std::find(x.members->begin(), x.members->end(), x.root) == x.members->end()) {
      bad("'" + line + "': root " + std::to_string(x.root) +
          " is not a member of its communicator");
    }
    out.push_back(x);
  }
  return out;
}

namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
using Key = std::tuple<int, int, int>;  // source, destination, tag

struct Msg {
  bool rendezvous = false;
  double time = 0;  // eager: arrival; rendezvous: when the sender posted it
  double bytes = 0;
  int sender = 0;
  int request = -1;  // the sender's request (isend), -1: a blocking send
};
struct Post {
  double time = 0;    // when the receive was posted
  int request = -1;   // irecv's request, -1: a blocking receive
  double unpack = 0;  // a strided receive's unpacking once the message is in (TraceAction::pack)
};
// A message as it reached its receiver's inbox: when it left (eager) or its transfer began
// (rendezvous), and when its last byte would be in without the inbox.
struct Inflow {
  int to;
  double left, arrival, bytes;
};

struct Sim {
  const model::PlatformModel& pm;
  const LinkGraph& g;
  std::span<const int> ranks;
  const std::vector<std::vector<TraceAction>>& tr;
  const ReplayOptions& o;
  int n;
  std::vector<double> clock, port, compute;
  std::vector<double> mark;                  // per rank: when it reached its current action
  std::vector<std::vector<double>> seconds;  // per rank and action (ReplayOptions::action_times)
  std::map<std::pair<int, int>, Wire> wire;  // per pair of ranks
  // Every message in the order the replay meets them (the same in every replay: matching
  // follows program order, not times), and the delay each receiver's inbox gave each message
  // in the previous replay (null or short: none).
  std::vector<Inflow> inflows;
  const std::vector<double>* held = nullptr;
  std::vector<std::size_t> pc;
  std::vector<bool> waiting;  // blocked in a send, a receive, a wait or a collective
  std::vector<double> done;   // request completion times
  std::map<Key, std::deque<Msg>> sent;
  std::map<Key, std::deque<Post>> posted;
  std::vector<std::map<Key, std::deque<int>>> open;        // per rank: its requests by key
  std::map<std::vector<int>, std::map<int, int>> arrived;  // per communicator: calls reached
  std::vector<int> all;                                    // every rank, in order
  int collectives = 0;
  ModelAtSize sized;  // pm at a collective's size, where links pass bytes free
  // Shared cores: per rank and action, its computation's stretch, and every computation's span.
  const std::vector<std::vector<double>>* stretch = nullptr;
  struct Span {
    int rank;
    std::size_t action;
    double start, end;
  };
  std::vector<Span> spans;

  Sim(const model::PlatformModel& p, const LinkGraph& l, std::span<const int> r,
      const std::vector<std::vector<TraceAction>>& t, const ReplayOptions& opt)
      : pm(p),
        g(l),
        ranks(r),
        tr(t),
        o(opt),
        n(static_cast<int>(t.size())),
        clock(n, 0),
        port(n, 0),
        compute(n, 0),
        mark(n, 0),
        pc(n, 0),
        waiting(n, false),
        open(n),
        all(n),
        sized(p, l) {
    std::iota(all.begin(), all.end(), 0);
    if (o.action_times) {
      for (const auto& a : t) seconds.emplace_back(a.size(), 0.0);
    }
  }

  double T(int s, int d, double m) const { return comm(g, ranks[s], ranks[d], m).at(m); }
  void advance(int r) {
    if (o.action_times) {
      seconds[r][pc[r]] = clock[r] - mark[r];
      mark[r] = clock[r];
    }
    ++pc[r];
    waiting[r] = false;
  }
  int request(int r, const Key& k) {
    done.push_back(kUnknown);
    open[r][k].push_back(static_cast<int>(done.size() - 1));
    return static_cast<int>(done.size() - 1);
  }
  // A message into d that left at `left` and would be in at `arrival`: in after its inbox's
  // delay.
  double into(int d, double bytes, double left, double arrival) {
    const std::size_t k = inflows.size();
    inflows.push_back({d, left, arrival, bytes});
    return arrival + (held && k < held->size() ? (*held)[k] : 0);
  }
  // A rendezvous message meets its receive: both held from the later of the two.
  void meet(const Msg& m, int d, double recv_posted, int recv_request, double unpack) {
    const double begin = std::max(m.time, recv_posted);
    const double end = into(d, m.bytes, begin, begin + T(m.sender, d, m.bytes));
    if (m.request < 0) {
      clock[m.sender] = end;
      advance(m.sender);
    } else {
      done[m.request] = end;
    }
    deliver(d, end, recv_request, unpack);
  }
  // The message is in and its receive posted at `at` (a blocking receive: from its clock);
  // a strided one is unpacked after that.
  void deliver(int d, double at, int recv_request, double unpack) {
    if (recv_request < 0) {
      clock[d] = std::max(clock[d], at) + unpack;
      advance(d);
    } else {
      done[recv_request] = at + unpack;
    }
  }
  void send(int s, const TraceAction& a, bool blocking) {
    const Key k{s, a.peer, a.tag};
    const int req = blocking ? -1 : request(s, k);
    auto& q = posted[k];
    clock[s] += a.pack * o.compute_scale;  // a strided message is packed before it leaves
    if (a.bytes <= o.eager) {
      double left = 0;
      const double in = send_eager(g, ranks[s], ranks[a.peer], a.bytes, &clock[s], &port[s],
                                   &wire[{s, a.peer}], &left);
      const double arrival = into(a.peer, a.bytes, left, in);
      if (req >= 0) done[req] = clock[s];
      advance(s);
      if (!q.empty()) {
        const Post p = q.front();
        q.pop_front();
        deliver(a.peer, std::max(p.time, arrival), p.request, p.unpack);
      } else {
        sent[k].push_back({false, arrival, a.bytes, s, -1});
      }
      return;
    }
    const Msg m{true, clock[s], a.bytes, s, req};
    if (blocking) waiting[s] = true;
    if (!blocking) advance(s);
    if (!q.empty()) {
      const Post p = q.front();
      q.pop_front();
      meet(m, a.peer, p.time, p.request, p.unpack);
    } else {
      sent[k].push_back(m);
    }
  }
  void recv(int d, const TraceAction& a, bool blocking) {
    const Key k{a.peer, d, a.tag};
    const int req = blocking ? -1 : request(d, k);
    auto& q = sent[k];
    if (!blocking) advance(d);
    const double unpack = a.pack * o.compute_scale;
    if (q.empty()) {
      posted[k].push_back({clock[d], req, unpack});
      if (blocking) waiting[d] = true;
      return;
    }
    const Msg m = q.front();
    q.pop_front();
    if (m.rendezvous) {
      meet(m, d, clock[d], req, unpack);
    } else {
      deliver(d, std::max(clock[d], m.time), req, unpack);
    }
  }
  // A collective's time on `ms` (ranks of the run, in the communicator's order).
  double collective(const TraceAction& a, const std::vector<int>& ms) {
    const int m_n = static_cast<int>(ms.size());
    const PairCost pair = [&](int s, int d, double m) { return T(ms[s], ms[d], m); };
    switch (a.kind) {
      case TraceAction::kBarrier:
        return mpich_barrier(m_n, pair);
      case TraceAction::kAllreduce:
        return mpich_allreduce(m_n, a.bytes, pair);
      case TraceAction::kReduce:
        return mpich_reduce(m_n, a.bytes, pair);
      case TraceAction::kAlltoall:
        return mpich_alltoall(m_n, a.bytes, pair);
      default:
        break;
    }
    const Op op = a.kind == TraceAction::kBcast    ? Op::kBcast
                  : a.kind == TraceAction::kGather ? Op::kGather
                                                   : Op::kScatter;
    const double m = std::max(1.0, a.bytes);
    std::vector<int> ids(ms.size());
    for (std::size_t k = 0; k < ms.size(); ++k) ids[k] = ranks[ms[k]];
    const int root =
        static_cast<int>(std::find(ms.begin(), ms.end(), a.root) - ms.begin());  // parse checked
    return coll_time(pm, &sized, op, ids, root, m, o.native);
  }
  // Rank r reached the collective `a` on ms; when every member has reached its k-th call on
  // ms, all start at the last one's arrival and leave together.
  void reach(int r, const TraceAction& a, const std::vector<int>& ms, std::map<int, int>* arrived) {
    waiting[r] = true;
    const int k = ++(*arrived)[r];
    for (const int q : ms) {
      const auto it = arrived->find(q);
      if (it == arrived->end() || it->second != k) return;
    }
    double start = 0;
    for (const int q : ms) {
      const TraceAction& b = tr[q][pc[q]];
      if (b.kind != a.kind || (b.members ? *b.members : all) != ms) {
        throw std::invalid_argument("collective " + std::to_string(k) + " of " +
                                    std::to_string(ms.size()) +
                                    " processes: ranks disagree on the call");
      }
      start = std::max(start, clock[q]);
    }
    const double end = start + collective(a, ms);
    ++collectives;
    for (const int q : ms) {
      clock[q] = end;
      advance(q);
    }
  }
  // Step rank r as far as it goes; true when it moved.
  bool step(int r) {
    bool moved = false;
    while (pc[r] < tr[r].size()) {
      const TraceAction& a = tr[r][pc[r]];
      if (waiting[r]) {
        if (a.kind == TraceAction::kWait) {
          auto& ids = open[r][Key{a.peer, a.root, a.tag}];
          if (std::isnan(done[ids.front()])) return moved;
          clock[r] = std::max(clock[r], done[ids.front()]);
          ids.pop_front();
          advance(r);
          moved = true;
          continue;
        }
        return moved;  // a send, a receive or a collective others complete
      }
      moved = true;
      switch (a.kind) {
        case TraceAction::kCompute: {
          const double s = a.flops / 1e9 * o.compute_scale * (stretch ? (*stretch)[r][pc[r]] : 1);
          if (stretch) spans.push_back({r, pc[r], clock[r], clock[r] + s});
          clock[r] += s;
          compute[r] += s;
          advance(r);
          break;
        }
        case TraceAction::kSend:
        case TraceAction::kIsend:
          send(r, a, a.kind == TraceAction::kSend);
          break;
        case TraceAction::kRecv:
        case TraceAction::kIrecv:
          recv(r, a, a.kind == TraceAction::kRecv);
          break;
        case TraceAction::kWait: {
          auto& ids = open[r][Key{a.peer, a.root, a.tag}];
          if (ids.empty()) {
            throw std::invalid_argument("rank " + std::to_string(r) + " waits for a request it " +
                                        "never posted (" + std::to_string(a.peer) + " -> " +
                                        std::to_string(a.root) + " tag " + std::to_string(a.tag) +
                                        ")");
          }
          waiting[r] = true;  // taken up at the top of the loop
          break;
        }
        default: {  // a collective: every member reaches it, then all leave together
          const std::vector<int>& ms = a.members ? *a.members : all;
          reach(r, a, ms, &arrived[ms]);
          break;
        }
      }
    }
    return moved;
  }
};

// The stretches the spans of one replay imply on C shared cores (ReplayOptions::shared_cores):
// per span, its wall time over the integral of min(1, C / computing(t)) across it, averaged
// with the stretch it ran with (damping). True while some stretch moved by more than 0.1%.
bool restretch(const std::vector<Sim::Span>& spans, int cores,
               std::vector<std::vector<double>>* stretch) {
  std::vector<std::pair<double, int>> events;  // (time, +1 start / -1 end)
  for (const Sim::Span& x : spans) {
    if (x.end > x.start) events.insert(events.end(), {{x.start, 1}, {x.end, -1}});
  }
  std::sort(events.begin(), events.end());
  // At[k]: time of the k-th distinct event; share[k]: the integral of min(1, C / computing) from
  // the first event to at[k].
  std::vector<double> at, share;
  int computing = 0;
  double integral = 0;
  for (std::size_t k = 0; k < events.size();) {
    const double t = events[k].first;
    if (!at.empty()) {
      integral += (t - at.back()) * (computing > 0 ? std::min(1.0, double(cores) / computing) : 1);
    }
    at.push_back(t);
    share.push_back(integral);
    for (; k < events.size() && events[k].first == t; ++k) computing += events[k].second;
  }
  const auto integral_at = [&](double t) {
    const std::size_t k =
        static_cast<std::size_t>(std::lower_bound(at.begin(), at.end(), t) - at.begin());
    return k < at.size() ? share[k] : share.back();  // spans start and end at events
  };
  bool moved = false;
  for (const Sim::Span& x : spans) {
    if (!(x.end > x.start)) continue;
    const double got = integral_at(x.end) - integral_at(x.start);
    double& st = (*stretch)[x.rank][x.action];
    // With its share's mean over the span g = got / wall, CPU time c needs c / g of wall time.
    const double want = got > 0 ? (x.end - x.start) / got : st;
    const double next = 0.5 * (st + std::max(1.0, want));
    if (std::abs(next - st) > 1e-3 * st) moved = true;
    st = next;
  }
  return moved;
}

// The delays the receivers' inboxes give one replay's messages: each receiver takes them in one
// at a time (take_in) in the order their bytes start to come in (arrival - t m, not before the
// message left), moved by `weight` of the way from the delays that replay ran with (damping).
// True while some delay moved by more than 1e-3 of the run's time.
bool requeue(const std::vector<Inflow>& in, const LinkGraph& g, std::span<const int> ranks,
             double seconds, double weight, std::vector<double>* held) {
  if (!held->empty() && held->size() != in.size()) {
    throw std::logic_error("replay: the messages differ between replays");
  }
  held->resize(in.size(), 0.0);
  const auto start = [&](std::size_t k) {
    return std::max(in[k].left, in[k].arrival - g.send_per_byte[ranks[in[k].to]] * in[k].bytes);
  };
  std::vector<std::size_t> order(in.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return in[a].to != in[b].to ? in[a].to < in[b].to : start(a) < start(b);
  });
  bool moved = false;
  double in_free = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Inflow& f = in[order[i]];
    if (i == 0 || in[order[i - 1]].to != f.to) in_free = -std::numeric_limits<double>::infinity();
    const double want = take_in(g, ranks[f.to], f.bytes, f.arrival, &in_free) - f.arrival;
    double& h = (*held)[order[i]];
    const double next = h + weight * (want - h);
    if (std::abs(next - h) > 1e-3 * seconds) moved = true;
    h = next;
  }
  return moved;
}

// Broadcasts and reductions run as tree schedules, as their messages (ReplayOptions::
// tree_messages): per rank the actions, and per action the index of the recorded action it
// stands for.
struct Expanded {
  std::vector<std::vector<TraceAction>> traces;
  std::vector<std::vector<std::size_t>> origin;
};
// The schedule a broadcast or reduction on `ms` (ranks of the run) from `root` runs; null: none
// (priced as one collective).
using ShapeOf = std::function<TreeSchedule(const TraceAction&, const std::vector<int>&)>;
Expanded tree_messages(const std::vector<std::vector<TraceAction>>& traces,
                       const ShapeOf& shape_of) {
  const int n = static_cast<int>(traces.size());
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::map<std::vector<int>, int> comms;  // a tag per communicator, below every MPI tag
  Expanded x;
  for (int r = 0; r < n; ++r) {
    std::vector<TraceAction> out;
    std::vector<std::size_t> from;
    for (std::size_t i = 0; i < traces[r].size(); ++i) {
      const TraceAction& a = traces[r][i];
      const bool bcast = a.kind == TraceAction::kBcast;
      const std::vector<int>& ms = a.members ? *a.members : all;
      const TreeSchedule plan =
          bcast || a.kind == TraceAction::kReduce ? shape_of(a, ms) : TreeSchedule{};
      const Shape* tree = plan.shape;
      if (!tree) {
        out.push_back(a);
        from.push_back(i);
        continue;
      }
      const int m = static_cast<int>(ms.size());
      const int tag = -1 - comms.emplace(ms, static_cast<int>(comms.size())).first->second;
      const int at = static_cast<int>(std::find(ms.begin(), ms.end(), r) - ms.begin());
      const int root = static_cast<int>(std::find(ms.begin(), ms.end(), a.root) - ms.begin());
      const int vr = tree::relative(at, root, m);
      const auto rank = [&](int v) { return ms[tree::absolute(v, root, m)]; };
      TraceAction msg;
      msg.bytes = a.bytes;
      msg.tag = tag;
      std::vector<int> kids;
      for_each_child(*tree, vr, m, [&](int c, int) { kids.push_back(c); });
      const int parent = tree->parent(vr, m);
      const auto add = [&](TraceAction::Kind k, int peer) {
        msg.kind = k;
        msg.peer = rank(peer);
        if (k == TraceAction::kWait) msg.peer = r, msg.root = rank(peer);  // r's isend to peer
        out.push_back(msg);
        from.push_back(i);
      };
      if (bcast) {  // from the parent, then to each child, largest subtree first
        if (parent >= 0) add(TraceAction::kRecv, parent);
        for (const int c : kids) add(plan.at_once ? TraceAction::kIsend : TraceAction::kSend, c);
        if (plan.at_once) {
          for (const int c : kids) add(TraceAction::kWait, c);
        }
      } else {  // from each child, smallest subtree first, then to the parent
        for (auto c = kids.rbegin(); c != kids.rend(); ++c) add(TraceAction::kRecv, *c);
        if (parent >= 0) add(TraceAction::kSend, parent);
      }
    }
    x.traces.push_back(std::move(out));
    x.origin.push_back(std::move(from));
  }
  return x;
}

}  // namespace

ReplayResult replay(const model::PlatformModel& pm, const LinkGraph& links,
                    std::span<const int> ranks, const std::vector<std::vector<TraceAction>>& traces,
                    const ReplayOptions& o) {
  const int n = static_cast<int>(traces.size());
  if (static_cast<int>(ranks.size()) < n) {
    throw std::invalid_argument(std::to_string(n) + " traces for " + std::to_string(ranks.size()) +
                                " members");
  }
  // Collectives name ranks of this run: their roots and their communicators' members.
  for (int r = 0; r < n; ++r) {
    for (const TraceAction& a : traces[r]) {
      const bool out_root = rooted(a.kind) && (a.root < 0 || a.root >= n);
      const bool out_member = a.members && std::any_of(a.members->begin(), a.members->end(),
                                                       [n](int q) { return q >= n; });
      if (out_root || out_member) {
        throw std::invalid_argument("rank " + std::to_string(r) + ": a collective " +
                                    (out_root ? "from rank " + std::to_string(a.root)
                                              : std::string("on ranks beyond the run")) +
                                    " of a run of " + std::to_string(n));
      }
    }
  }
  Expanded x;
  if (o.tree_messages) {
    std::map<std::tuple<int, std::vector<int>, int, double>, TreeSchedule> picked;
    ModelAtSize sized(pm, links);
    const ShapeOf shape_of = [&](const TraceAction& a, const std::vector<int>& ms) {
      const auto key = std::make_tuple(static_cast<int>(a.kind), ms, a.root, a.bytes);
      if (const auto it = picked.find(key); it != picked.end()) return it->second;
      std::vector<int> ids(ms.size());
      for (std::size_t k = 0; k < ms.size(); ++k) ids[k] = ranks[ms[k]];
      const int root = static_cast<int>(std::find(ms.begin(), ms.end(), a.root) - ms.begin());
      const TreeSchedule s =
          tree_schedule(pm, &sized, a.kind == TraceAction::kReduce, ids, root, a.bytes, o.native);
      return picked.emplace(key, s).first->second;
    };
    x = tree_messages(traces, shape_of);
  }
  const std::vector<std::vector<TraceAction>>& played = x.traces.empty() ? traces : x.traces;
  std::vector<std::vector<double>> stretch;
  if (o.shared_cores > 0) {
    for (const auto& t : played) stretch.emplace_back(t.size(), 1.0);
  }
  std::vector<double> held;  // per message, its inbox's delay
  int replays = 0;
  auto run = [&] {
    auto sim = std::make_unique<Sim>(pm, links, ranks.first(n), played, o);
    if (o.shared_cores > 0) sim->stretch = &stretch;
    sim->held = &held;
    for (bool progress = true; progress;) {
      progress = false;
      for (int r = 0; r < n; ++r) progress = sim->step(r) || progress;
    }
    ++replays;
    return sim;
  };
  std::unique_ptr<Sim> sim = run();
  for (int r = 0; r < n; ++r) {  // where each rank stops does not depend on times
    if (sim->pc[r] < played[r].size()) {
      const TraceAction& a = played[r][sim->pc[r]];
      const std::size_t recorded = x.traces.empty() ? sim->pc[r] : x.origin[r][sim->pc[r]];
      throw std::invalid_argument("rank " + std::to_string(r) + " never gets past its action " +
                                  std::to_string(recorded + 1) + " (kind " +
                                  std::to_string(static_cast<int>(a.kind)) + ", peer " +
                                  std::to_string(a.peer) + ", tag " + std::to_string(a.tag) +
                                  "): the run would hang");
    }
  }
  while (replays < std::max(1, o.max_replays)) {
    const bool stretched = o.shared_cores > 0 && restretch(sim->spans, o.shared_cores, &stretch);
    const double seconds = n ? *std::max_element(sim->clock.begin(), sim->clock.end()) : 0;
    // The first queues in full, then half way (damping: a message's delay can reorder the queue).
    const double weight = replays == 1 ? 1 : 0.5;
    if (!requeue(sim->inflows, links, ranks.first(n), seconds, weight, &held) && !stretched) break;
    sim = run();
  }
  Sim& s = *sim;
  ReplayResult res;
  res.end = s.clock;
  res.compute = s.compute;
  res.seconds = n ? *std::max_element(s.clock.begin(), s.clock.end()) : 0;
  res.collectives = s.collectives;
  res.replays = replays;
  res.action_seconds = std::move(s.seconds);
  if (!x.traces.empty() && o.action_times) {  // each recorded action: its messages' sum
    for (int r = 0; r < n; ++r) {
      std::vector<double> per(traces[r].size(), 0.0);
      for (std::size_t k = 0; k < x.origin[r].size(); ++k)
        per[x.origin[r][k]] += res.action_seconds[r][k];
      res.action_seconds[r] = std::move(per);
    }
  }
  return res;
}

}  // namespace colltune::forecast

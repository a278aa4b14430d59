#include "experiments.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

#include "../algorithms/waits.hpp"
#include "../mapped_alloc.hpp"
#include "../model/trees.hpp"
#include "schedule.hpp"

namespace colltune::bench {
namespace {

constexpr int kTagMsg = 211, kTagReply = 212, kTagStop = 213, kTagAck = 214, kTagReady = 215;

// Gathers everyone's result rows (k doubles each) to every rank.
int share_rows(MPI_Comm comm, const MappedVector<double>& mine, MappedVector<double>* all) {
  int size;
  int rc = PMPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return rc;
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  rc = PMPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  if (rc != MPI_SUCCESS) return rc;
  int total = 0;
  for (int p = 0; p < size; ++p) {
    displs[p] = total;
    total += counts[p];
  }
  all->assign(total, 0.0);
  return PMPI_Allgatherv(mine.data(), n, MPI_DOUBLE, all->data(), counts.data(), displs.data(),
                         MPI_DOUBLE, comm);
}

// Before each round of experiments: false on every rank once rank 0's clock is past
// a.last_round (the rounds left are not run; the caller sees fewer results than experiments).
int round_fits(const Adaptive& a, MPI_Comm comm, bool* go) {
  int rc = PMPI_Barrier(comm);
  if (rc != MPI_SUCCESS || !std::isfinite(a.last_round)) {
    *go = true;
    return rc;
  }
  int flag = PMPI_Wtime() <= a.last_round;
  rc = PMPI_Bcast(&flag, 1, MPI_INT, 0, comm);
  *go = flag != 0;
  return rc;
}

// The initiator side of a series with one or more responders; responders run `respond`. An
// MPI error ends the series and is returned; the responders are still told to stop.
// `nonblocking`: the messages leave by MPI_Isend at once, as a tree algorithm sends.
// Replies land after the first m bytes of buf, each peer's in its own share of the rest.
// `issued` (fan-outs): when the sends were issued, in each counted repetition.
int initiate(const Adaptive& a, const std::vector<int>& peers, int m, MappedVector<char>& buf,
             MPI_Comm comm, Series* out, bool nonblocking = false,
             std::vector<double>* issued = nullptr) {
  int rc = MPI_SUCCESS;
  const int reply_room = (static_cast<int>(buf.size()) - m) / static_cast<int>(peers.size());
  int taken = 0;
  auto exchange = [&]() -> double {
    if (rc != MPI_SUCCESS) return NAN;
    if (++taken > 3 && PMPI_Wtime() > a.deadline) return NAN;  // warm-up + 2: ends the series
    if (peers.size() == 1) {  // a roundtrip: blocking calls (no extra request overheads)
      const double t0 = PMPI_Wtime();
      rc = waits::send(buf.data(), m, MPI_BYTE, peers[0], kTagMsg, comm);
      if (rc == MPI_SUCCESS) {
        rc = waits::recv(buf.data() + m, reply_room, MPI_BYTE, peers[0], kTagReply, comm,
                         MPI_STATUS_IGNORE);
      }
      return rc == MPI_SUCCESS ? PMPI_Wtime() - t0 : NAN;
    }
    // One-to-two: replies' receives posted first, then the messages sent one after the other
    // with blocking sends (the sender's costs C_i + t_i M serialize, docs/model.md). Fan-out:
    // nonblocking sends, completed with the replies.
    const std::size_t k_peers = peers.size();
    std::vector<MPI_Request> reqs(nonblocking ? 2 * k_peers : k_peers, MPI_REQUEST_NULL);
    const double t0 = PMPI_Wtime();
    for (std::size_t k = 0; k < k_peers && rc == MPI_SUCCESS; ++k) {
      rc = PMPI_Irecv(buf.data() + m + k * reply_room, reply_room, MPI_BYTE, peers[k], kTagReply,
                      comm, &reqs[k]);
    }
    for (std::size_t k = 0; k < k_peers && rc == MPI_SUCCESS; ++k) {
      rc = nonblocking
               ? PMPI_Isend(buf.data(), m, MPI_BYTE, peers[k], kTagMsg, comm, &reqs[k_peers + k])
               : waits::send(buf.data(), m, MPI_BYTE, peers[k], kTagMsg, comm);
    }
    const double at_issued = PMPI_Wtime() - t0;
    const int wrc = waits::waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS) rc = wrc;
    if (rc != MPI_SUCCESS) return NAN;
    if (issued && taken > 1) issued->push_back(at_issued);
    return PMPI_Wtime() - t0;
  };
  exchange();  // warm-up, not counted (connection set-up, cold caches)
  *out = run_adaptive(a, exchange);
  for (int p : peers) {
    const int src = waits::send(nullptr, 0, MPI_BYTE, p, kTagStop, comm);
    if (rc == MPI_SUCCESS) rc = src;
  }
  return rc;
}

// Answers the initiator until its empty stop message. One receive with MPI_ANY_TAG from the
// single initiator (pairwise order keeps data and stop in sequence); no MPI_Probe, which costs
// simulated time under SMPI (smpi/iprobe) and a detour elsewhere.
int respond(int initiator, int m_reply, MappedVector<char>& buf, MPI_Comm comm) {
  for (;;) {
    MPI_Status st;
    int rc = waits::recv(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, initiator, MPI_ANY_TAG,
                         comm, &st);
    if (rc != MPI_SUCCESS || st.MPI_TAG == kTagStop) return rc;
    rc = waits::send(buf.data(), m_reply, MPI_BYTE, initiator, kTagReply, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
}

}  // namespace

namespace {

// Roundtrips of each round's pairs at once, one round after another (round_fits before each).
int roundtrip_rounds(MPI_Comm comm, int m1, int m2,
                     const std::vector<std::vector<std::pair<int, int>>>& rounds, const Adaptive& a,
                     std::vector<PairResult>* out) {
  int rank, size;
  if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
  MappedVector<char> buf(static_cast<std::size_t>(m1) + m2 + 1);
  MappedVector<double> mine;
  auto run_pair = [&](int i, int j) -> int {
    if (rank == i) {
      Series s;
      if (const int rc = initiate(a, {j}, m1, buf, comm, &s); rc != MPI_SUCCESS) return rc;
      mine.insert(mine.end(), {double(i), double(j), s.stats.mean, s.stats.half_width,
                               s.stats.rel_error, double(s.reps)});
    } else if (rank == j) {
      return respond(i, m2, buf, comm);
    }
    return MPI_SUCCESS;
  };
  for (const auto& round : rounds) {
    bool go = true;
    int rc = round_fits(a, comm, &go);
    if (rc == MPI_SUCCESS && !go) break;
    for (auto [i, j] : round) rc = rc == MPI_SUCCESS ? run_pair(i, j) : rc;
    if (rc != MPI_SUCCESS) return rc;
  }
  MappedVector<double> all;
  int rc = share_rows(comm, mine, &all);
  out->clear();
  for (std::size_t r = 0; r + 6 <= all.size(); r += 6) {
    PairResult p;
    p.i = static_cast<int>(all[r]);
    p.j = static_cast<int>(all[r + 1]);
    p.stats.mean = all[r + 2];
    p.stats.half_width = all[r + 3];
    p.stats.rel_error = all[r + 4];
    p.reps = p.stats.n = static_cast<int>(all[r + 5]);
    out->push_back(p);
  }
  std::sort(out->begin(), out->end(),
            [](auto& x, auto& y) { return x.i != y.i ? x.i < y.i : x.j < y.j; });
  return rc;
}

}  // namespace

int roundtrips(MPI_Comm comm, int m1, int m2, bool parallel, const Adaptive& a,
               std::vector<PairResult>* out) {
  int rank, size;
  if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
  auto rounds = pair_rounds(size);
  if (!parallel) {
    std::vector<std::vector<std::pair<int, int>>> alone;
    for (const auto& round : rounds) {
      for (const auto& pair : round) alone.push_back({pair});
    }
    rounds = std::move(alone);
  }
  return roundtrip_rounds(comm, m1, m2, rounds, a, out);
}

int roundtrips_alone(MPI_Comm comm, int m1, int m2, const std::vector<std::pair<int, int>>& pairs,
                     const Adaptive& a, std::vector<PairResult>* out) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  for (const auto& pair : pairs) rounds.push_back({pair});
  return roundtrip_rounds(comm, m1, m2, rounds, a, out);
}

int one_to_two(MPI_Comm comm, int m, bool all_roots, const Adaptive& a,
               std::vector<TripletResult>* out) {
  int rank, size;
  if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
  return run_one_to_two(comm, m, triplet_rounds(size, all_roots), a, out);
}

int one_to_two(MPI_Comm comm, int m, const std::vector<std::array<int, 3>>& triplets,
               const Adaptive& a, std::vector<TripletResult>* out) {
  int rank, size;
  if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
  return run_one_to_two(comm, m, pack_rounds(size, triplets), a, out);
}

namespace {

// Rounds of disjoint groups (initiator first, then its peers), one round after another; each
// group's initiator sends m bytes to every peer, each answers m_reply, and the initiator times
// its series. Rows on every rank: initiator, peers..., mean, half-width, relative error,
// repetitions, and of the times the sends were issued (nonblocking; else -1) mean and
// half-width.
template <typename Group>
int run_groups(MPI_Comm comm, int m, int m_reply, const std::vector<std::vector<Group>>& rounds,
               bool nonblocking, const Adaptive& a, MappedVector<double>* all) {
  int rank, size;
  if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
  std::size_t most = 1;
  for (const auto& round : rounds) {
    for (const Group& g : round) most = std::max<std::size_t>(most, g.size() - 1);
  }
  // Room for the message and every peer's reply (at least one byte each), or a peer's message.
  MappedVector<char> buf(
      std::max(static_cast<std::size_t>(m) + most * (static_cast<std::size_t>(m_reply) + 1),
               static_cast<std::size_t>(m) + 1));
  MappedVector<double> mine;
  for (const auto& round : rounds) {
    bool go = true;
    int rc = round_fits(a, comm, &go);
    if (rc == MPI_SUCCESS && !go) break;
    for (const Group& g : round) {
      if (rc != MPI_SUCCESS) break;
      const std::vector<int> peers(std::next(g.begin()), g.end());
      if (rank == g[0]) {
        Series s;
        std::vector<double> issued;
        if ((rc = initiate(a, peers, m, buf, comm, &s, nonblocking, &issued)) != MPI_SUCCESS) {
          break;
        }
        const Interval f = issued.empty() ? Interval{-1, 0, 0, 0} : interval(issued, a.confidence);
        for (int p : g) mine.push_back(p);
        mine.insert(mine.end(), {s.stats.mean, s.stats.half_width, s.stats.rel_error,
                                 double(s.reps), f.mean, f.half_width});
      } else if (std::find(peers.begin(), peers.end(), rank) != peers.end()) {
        rc = respond(g[0], m_reply, buf, comm);
      }
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  return share_rows(comm, mine, all);
}

Interval row_stats(const double* r) { return {r[0], r[1], r[2], static_cast<int>(r[3])}; }

}  // namespace

int run_one_to_two(MPI_Comm comm, int m, const std::vector<std::vector<std::array<int, 3>>>& rounds,
                   const Adaptive& a, std::vector<TripletResult>* out) {
  MappedVector<double> all;
  const int rc = run_groups(comm, m, 0, rounds, false, a, &all);
  out->clear();
  for (std::size_t r = 0; r + 9 <= all.size(); r += 9) {
    TripletResult t;
    t.i = static_cast<int>(all[r]);
    t.j = static_cast<int>(all[r + 1]);
    t.k = static_cast<int>(all[r + 2]);
    t.stats = row_stats(&all[r + 3]);
    t.reps = t.stats.n;
    out->push_back(t);
  }
  return rc;
}

namespace {

int run_fan(MPI_Comm comm, int m, int m_reply, const std::vector<std::vector<int>>& groups,
            const Adaptive& a, std::vector<FanOutResult>* out) {
  int rank, size;
  if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
  MappedVector<double> all;
  const int rc = run_groups(comm, m, m_reply, pack_rounds(size, groups), true, a, &all);
  out->clear();
  for (std::size_t r = 0; r < all.size();) {  // rows have the lengths of `groups`' entries
    const int i = static_cast<int>(all[r]);
    const std::vector<int>* g = nullptr;
    for (const auto& x : groups) {
      if (x[0] == i) g = &x;
    }
    if (!g || r + g->size() + 6 > all.size()) break;
    FanOutResult f;
    f.i = i;
    f.peers.assign(std::next(g->begin()), g->end());
    f.stats = row_stats(&all[r + g->size()]);
    f.reps = f.stats.n;
    f.issued = {all[r + g->size() + 4], all[r + g->size() + 5], 0, f.reps};
    out->push_back(std::move(f));
    r += g->size() + 6;
  }
  return rc;
}

}  // namespace

int fan_out(MPI_Comm comm, int m, const std::vector<std::vector<int>>& groups, const Adaptive& a,
            std::vector<FanOutResult>* out) {
  return run_fan(comm, m, 0, groups, a, out);
}

int fan_in(MPI_Comm comm, int m, const std::vector<std::vector<int>>& groups, const Adaptive& a,
           std::vector<FanOutResult>* out) {
  return run_fan(comm, 0, m, groups, a, out);
}

namespace {

// A case's buffer. Under SMPI one block shared by every simulated rank and never filled: SMPI
// does not copy the payload of shared blocks, so a sweep costs simulated time, not the copies,
// page faults and fills of every rank's buffer (most of a 64-rank calibration's wall time).
#if defined(SMPI_SHARED_MALLOC)
class CaseBuffer {
 public:
  CaseBuffer() = default;
  CaseBuffer(const CaseBuffer&) = delete;
  CaseBuffer& operator=(const CaseBuffer&) = delete;
  ~CaseBuffer() { release(); }
  void assign(std::size_t n, char) {
    release();
    p_ = static_cast<char*>(SMPI_SHARED_MALLOC(n ? n : 1));
    if (!p_) throw std::bad_alloc();
  }
  char* data() { return p_; }

 private:
  void release() {
    if (p_) SMPI_SHARED_FREE(p_);
    p_ = nullptr;
  }
  char* p_ = nullptr;
};
#else
using CaseBuffer = MappedVector<char>;
#endif

// Buffers and arguments of one collective case on this rank.
struct CaseBuffers {
  CaseBuffer send, recv;
  CollArgs args;
  std::shared_ptr<const BuiltTree> tree;  // a built algorithm's, unless the case brings one
};

int setup_case(MPI_Comm comm, MPI_Comm shadow, const CollectiveCase& c, CaseBuffers* b) {
  int rank, size;
  if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
  const std::size_t all = static_cast<std::size_t>(c.bytes) * size;
  b->send.assign(c.op == Op::kBcast ? c.bytes : (rank == c.root ? all : c.bytes), 1);
  b->recv.assign(c.op == Op::kGather && rank == c.root ? all : c.bytes, 0);
  b->args =
      byte_args(c.op, comm, shadow, rank, size, c.root, c.bytes, b->send.data(), b->recv.data());
  if (c.algorithm && c.algorithm->build) {
    b->args.tree = c.tree.get();
    if (!c.tree) {  // no model here: the tree of uniform costs, the same on every rank
      b->tree = model::build_tree_uniform(*c.algorithm, size, c.root, static_cast<double>(c.bytes));
      b->args.tree = b->tree.get();
    }
  }
  return MPI_SUCCESS;
}

int run_case(const CollectiveCase& c, const CollArgs& a) {
  if (c.user_algorithm) return c.user_algorithm(a);
  return c.algorithm->run(a);
}

}  // namespace

int measure_collective(MPI_Comm comm, const CollectiveCase& c, TimingMethod& timing, bool isolate,
                       const Adaptive& a, Series* out) {
  MPI_Comm shadow;
  int rc = waits::comm_dup(comm, &shadow);
  if (rc != MPI_SUCCESS) return rc;
  CaseBuffers b;
  if ((rc = setup_case(comm, shadow, c, &b)) == MPI_SUCCESS &&
      (rc = timing.prepare(comm, c.root)) == MPI_SUCCESS) {
    // A failed repetition (on any rank: timing methods agree) ends the series with its error.
    *out = run_adaptive(a, [&]() -> double {
      double t = NAN;
      if (rc == MPI_SUCCESS) {
        rc = timing.measure(
            comm, c.root, isolate, [&] { return run_case(c, b.args); }, &t);
      }
      return rc == MPI_SUCCESS ? t : NAN;
    });
  }
  const int frc = PMPI_Comm_free(&shadow);
  return rc != MPI_SUCCESS ? rc : frc;
}

int measure_bcast_tasks(MPI_Comm comm, const CollectiveCase& c, const Adaptive& a, Series* out) {
  int rank, size;
  int rc = rank_size(comm, &rank, &size);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm shadow;
  if ((rc = waits::comm_dup(comm, &shadow)) != MPI_SUCCESS) return rc;
  CaseBuffers b;
  rc = setup_case(comm, shadow, c, &b);
  *out = Series{};
  double worst = -1;
  for (int i = 0; i < size && rc == MPI_SUCCESS; ++i) {
    if (i == c.root) continue;
    // One-way time of the empty acknowledgement i -> root: half the fastest of 10 roundtrips.
    double ack = 1e300;
    for (int k = 0; k < 10 && rc == MPI_SUCCESS; ++k) {
      if (rank == c.root) {
        const double t0 = PMPI_Wtime();
        rc = waits::send(nullptr, 0, MPI_BYTE, i, kTagAck, comm);
        if (rc == MPI_SUCCESS)
          rc = waits::recv(nullptr, 0, MPI_BYTE, i, kTagAck, comm, MPI_STATUS_IGNORE);
        ack = std::min(ack, (PMPI_Wtime() - t0) / 2);
      } else if (rank == i) {
        rc = waits::recv(nullptr, 0, MPI_BYTE, c.root, kTagAck, comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = waits::send(nullptr, 0, MPI_BYTE, c.root, kTagAck, comm);
      }
    }
    if (rc != MPI_SUCCESS) break;
    Series s = run_adaptive(a, [&]() -> double {
      if (rc != MPI_SUCCESS) return NAN;
      // Isolation: every other process tells the root it is ready and enters the broadcast at
      // once; the root starts when all have. Unlike after a barrier, whose exit order is
      // arbitrary (the root often leaves first), every receive is posted before the root sends.
      if ((rc = notify_root(comm, c.root, kTagReady)) != MPI_SUCCESS) return NAN;
      const double t0 = PMPI_Wtime();
      const int orc = run_case(c, b.args);  // acknowledged even when it failed: no one waits
      double t = -kFailed;
      if (rank == i) rc = waits::send(nullptr, 0, MPI_BYTE, c.root, kTagAck, comm);
      if (rank == c.root) {
        rc = waits::recv(nullptr, 0, MPI_BYTE, i, kTagAck, comm, MPI_STATUS_IGNORE);
        t = PMPI_Wtime() - t0 - ack;
      }
      if (orc != MPI_SUCCESS) t = kFailed;
      double agreed = NAN;
      if (rc == MPI_SUCCESS) rc = PMPI_Allreduce(&t, &agreed, 1, MPI_DOUBLE, MPI_MAX, comm);
      if (rc == MPI_SUCCESS) rc = outcome(orc, agreed);
      return rc == MPI_SUCCESS ? agreed : NAN;
    });
    if (rc == MPI_SUCCESS && s.stats.mean > worst) {
      worst = s.stats.mean;
      *out = s;
    }
  }
  const int frc = PMPI_Comm_free(&shadow);
  return rc != MPI_SUCCESS ? rc : frc;
}

}  // namespace colltune::bench

#include "experiments.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "schedule.hpp"

namespace colltune::bench {
namespace {

constexpr int kTagMsg = 211, kTagReply = 212, kTagStop = 213, kTagAck = 214, kTagReady = 215;

// Gathers everyone's result rows (k doubles each) to every rank.
int share_rows(MPI_Comm comm, const std::vector<double>& mine, std::vector<double>* all) {
  int size;
  MPI_Comm_size(comm, &size);
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  int rc = MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  if (rc != MPI_SUCCESS) return rc;
  int total = 0;
  for (int p = 0; p < size; ++p) {
    displs[p] = total;
    total += counts[p];
  }
  all->assign(total, 0.0);
  return MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, all->data(), counts.data(), displs.data(),
                        MPI_DOUBLE, comm);
}

// The initiator side of a series with one or two responders; responders run `respond`.
Series initiate(const Adaptive& a, const std::vector<int>& peers, int m, std::vector<char>& buf,
                MPI_Comm comm) {
  auto exchange = [&]() -> double {
    if (peers.size() == 1) {  // a roundtrip: blocking calls (no extra request overheads)
      const double t0 = MPI_Wtime();
      if (MPI_Send(buf.data(), m, MPI_BYTE, peers[0], kTagMsg, comm) != MPI_SUCCESS ||
          MPI_Recv(buf.data() + m, static_cast<int>(buf.size()) - m, MPI_BYTE, peers[0], kTagReply,
                   comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return NAN;
      return MPI_Wtime() - t0;
    }
    std::vector<MPI_Request> reqs;
    const double t0 = MPI_Wtime();
    for (int p : peers) {
      MPI_Request r;
      if (MPI_Isend(buf.data(), m, MPI_BYTE, p, kTagMsg, comm, &r) != MPI_SUCCESS) return NAN;
      reqs.push_back(r);
    }
    for (int p : peers) {
      MPI_Request r;
      if (MPI_Irecv(buf.data() + m, static_cast<int>(buf.size()) - m, MPI_BYTE, p, kTagReply, comm,
                    &r) != MPI_SUCCESS)
        return NAN;
      reqs.push_back(r);
    }
    if (MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return NAN;
    return MPI_Wtime() - t0;
  };
  exchange();  // warm-up, not counted (connection set-up, cold caches)
  Series s = run_adaptive(a, exchange);
  for (int p : peers) MPI_Send(nullptr, 0, MPI_BYTE, p, kTagStop, comm);
  return s;
}

// Answers the initiator until its empty stop message. One receive with MPI_ANY_TAG from the
// single initiator (pairwise order keeps data and stop in sequence); no MPI_Probe, which costs
// simulated time under SMPI (smpi/iprobe) and a detour elsewhere.
int respond(int initiator, int m_reply, std::vector<char>& buf, MPI_Comm comm) {
  for (;;) {
    MPI_Status st;
    int rc = MPI_Recv(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, initiator, MPI_ANY_TAG,
                      comm, &st);
    if (rc != MPI_SUCCESS || st.MPI_TAG == kTagStop) return rc;
    rc = MPI_Send(buf.data(), m_reply, MPI_BYTE, initiator, kTagReply, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
}

}  // namespace

int roundtrips(MPI_Comm comm, int m1, int m2, bool parallel, const Adaptive& a,
               std::vector<PairResult>* out) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<char> buf(static_cast<std::size_t>(m1) + m2 + 1);
  std::vector<double> mine;
  auto run_pair = [&](int i, int j) -> int {
    if (rank == i) {
      const Series s = initiate(a, {j}, m1, buf, comm);
      mine.insert(mine.end(), {double(i), double(j), s.stats.mean, s.stats.half_width,
                               s.stats.rel_error, double(s.reps)});
    } else if (rank == j) {
      return respond(i, m2, buf, comm);
    }
    return MPI_SUCCESS;
  };
  for (const auto& round : pair_rounds(size)) {
    if (parallel) {
      int rc = MPI_Barrier(comm);
      for (auto [i, j] : round) rc = rc == MPI_SUCCESS ? run_pair(i, j) : rc;
      if (rc != MPI_SUCCESS) return rc;
    } else {
      for (auto [i, j] : round) {
        int rc = MPI_Barrier(comm);  // everybody else waits: one experiment at a time
        if (rc == MPI_SUCCESS) rc = run_pair(i, j);
        if (rc != MPI_SUCCESS) return rc;
      }
    }
  }
  std::vector<double> all;
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

int one_to_two(MPI_Comm comm, int m, bool all_roots, const Adaptive& a,
               std::vector<TripletResult>* out) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<char> buf(2 * static_cast<std::size_t>(m) + 2);
  std::vector<double> mine;
  for (const auto& round : triplet_rounds(size, all_roots)) {
    int rc = MPI_Barrier(comm);
    for (const auto& t : round) {
      if (rc != MPI_SUCCESS) break;
      if (rank == t[0]) {
        const Series s = initiate(a, {t[1], t[2]}, m, buf, comm);
        mine.insert(mine.end(), {double(t[0]), double(t[1]), double(t[2]), s.stats.mean,
                                 s.stats.half_width, s.stats.rel_error, double(s.reps)});
      } else if (rank == t[1] || rank == t[2]) {
        rc = respond(t[0], 0, buf, comm);
      }
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  std::vector<double> all;
  int rc = share_rows(comm, mine, &all);
  out->clear();
  for (std::size_t r = 0; r + 7 <= all.size(); r += 7) {
    TripletResult t;
    t.i = static_cast<int>(all[r]);
    t.j = static_cast<int>(all[r + 1]);
    t.k = static_cast<int>(all[r + 2]);
    t.stats.mean = all[r + 3];
    t.stats.half_width = all[r + 4];
    t.stats.rel_error = all[r + 5];
    t.reps = t.stats.n = static_cast<int>(all[r + 6]);
    out->push_back(t);
  }
  return rc;
}

namespace {

// Buffers and arguments of one collective case on this rank.
struct CaseBuffers {
  std::vector<char> send, recv;
  CollArgs args;
};

void setup_case(MPI_Comm comm, MPI_Comm shadow, const CollectiveCase& c, CaseBuffers* b) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::size_t all = static_cast<std::size_t>(c.bytes) * size;
  b->send.assign(c.op == Op::kBcast ? c.bytes : (rank == c.root ? all : c.bytes), 1);
  b->recv.assign(c.op == Op::kGather && rank == c.root ? all : c.bytes, 0);
  b->args =
      byte_args(c.op, comm, shadow, rank, size, c.root, c.bytes, b->send.data(), b->recv.data());
}

int run_case(const CollectiveCase& c, const CollArgs& a) {
  if (c.user_algorithm) return c.user_algorithm(a);
  return c.algorithm->run(a);
}

}  // namespace

int measure_collective(MPI_Comm comm, const CollectiveCase& c, TimingMethod& timing, bool isolate,
                       const Adaptive& a, Series* out) {
  MPI_Comm shadow;
  int rc = MPI_Comm_dup(comm, &shadow);
  if (rc != MPI_SUCCESS) return rc;
  CaseBuffers b;
  setup_case(comm, shadow, c, &b);
  if ((rc = timing.prepare(comm, c.root)) == MPI_SUCCESS) {
    *out = run_adaptive(a, [&]() -> double {
      double t = NAN;
      rc = timing.measure(
          comm, c.root, isolate, [&] { return run_case(c, b.args); }, &t);
      return rc == MPI_SUCCESS ? t : NAN;
    });
  }
  MPI_Comm_free(&shadow);
  return rc;
}

int measure_bcast_tasks(MPI_Comm comm, const CollectiveCase& c, const Adaptive& a, Series* out) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm shadow;
  int rc = MPI_Comm_dup(comm, &shadow);
  if (rc != MPI_SUCCESS) return rc;
  CaseBuffers b;
  setup_case(comm, shadow, c, &b);
  *out = Series{};
  double worst = -1;
  for (int i = 0; i < size && rc == MPI_SUCCESS; ++i) {
    if (i == c.root) continue;
    // One-way time of the empty acknowledgement i -> root: half the fastest of 10 roundtrips.
    double ack = 1e300;
    for (int k = 0; k < 10 && rc == MPI_SUCCESS; ++k) {
      if (rank == c.root) {
        const double t0 = MPI_Wtime();
        rc = MPI_Send(nullptr, 0, MPI_BYTE, i, kTagAck, comm);
        if (rc == MPI_SUCCESS)
          rc = MPI_Recv(nullptr, 0, MPI_BYTE, i, kTagAck, comm, MPI_STATUS_IGNORE);
        ack = std::min(ack, (MPI_Wtime() - t0) / 2);
      } else if (rank == i) {
        rc = MPI_Recv(nullptr, 0, MPI_BYTE, c.root, kTagAck, comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = MPI_Send(nullptr, 0, MPI_BYTE, c.root, kTagAck, comm);
      }
    }
    Series s = run_adaptive(a, [&]() -> double {
      double t = 0;
      // Isolation: every other process tells the root it is ready and enters the broadcast at
      // once; the root starts when all have. Unlike after a barrier, whose exit order is
      // arbitrary (the root often leaves first), every receive is posted before the root sends.
      if (notify_root(comm, c.root, kTagReady) != MPI_SUCCESS) return NAN;
      const double t0 = MPI_Wtime();
      if (run_case(c, b.args) != MPI_SUCCESS) return NAN;
      if (rank == i && MPI_Send(nullptr, 0, MPI_BYTE, c.root, kTagAck, comm) != MPI_SUCCESS)
        return NAN;
      if (rank == c.root) {
        if (MPI_Recv(nullptr, 0, MPI_BYTE, i, kTagAck, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
          return NAN;
        t = MPI_Wtime() - t0 - ack;
      }
      return PMPI_Bcast(&t, 1, MPI_DOUBLE, c.root, comm) == MPI_SUCCESS ? t : NAN;
    });
    if (s.stats.mean > worst) {
      worst = s.stats.mean;
      *out = s;
    }
  }
  MPI_Comm_free(&shadow);
  return rc;
}

}  // namespace colltune::bench

#include "waits.hpp"

namespace colltune::waits {

namespace {

thread_local Guard* g_current = nullptr;
constexpr int kTagNotice = 1;
constexpr unsigned kPollsPerClock = 256;  // notice tests between two reads of the clock

enum class Kind { kPointToPoint, kCollective };

// Requests the guard gave up on: point-to-point ones cancelled (a send, whose cancel MPICH
// ignores, may still be on its way) and given a moment to end, so that a receive no longer
// writes into its buffer, then released; a collective stays pending (MPI forbids both).
void drop(int n, MPI_Request* r, Kind kind) noexcept {
  if (kind == Kind::kCollective) return;
  for (int i = 0; i < n; ++i) {
    if (r[i] != MPI_REQUEST_NULL) (void)PMPI_Cancel(&r[i]);
  }
  const double until = PMPI_Wtime() + 0.2;
  for (int i = 0; i < n; ++i) {
    int done = 0;
    while (r[i] != MPI_REQUEST_NULL && !done && PMPI_Wtime() < until) {
      if (PMPI_Test(&r[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
    }
    if (r[i] != MPI_REQUEST_NULL) (void)PMPI_Request_free(&r[i]);
  }
}

// Polls n requests (all of them, or any one when `any`) with the guard's notice and deadline.
int guarded(Guard* g, int n, MPI_Request* r, MPI_Status* st, Kind kind, bool any, int* index) {
  for (;;) {
    if (g->abandoned()) {
      drop(n, r, kind);
      return kErrAbandoned;
    }
    int done = 0;
    int rc = any ? PMPI_Testany(n, r, index, &done, st)
                 : PMPI_Testall(n, r, &done, st ? st : MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || done) return rc;
    g->poll();
  }
}

int wait_kind(MPI_Request* r, MPI_Status* st, Kind kind) {
  Guard* g = g_current;
  if (!g) return PMPI_Wait(r, st);
  return guarded(g, 1, r, st ? st : MPI_STATUS_IGNORE, kind, false, nullptr);
}

// Guards on: the request just posted with code rc (an error posts nothing).
int posted(int rc, MPI_Request* r, MPI_Status* st, Kind kind) {
  return rc != MPI_SUCCESS ? rc : wait_kind(r, st, kind);
}

bool guarding() noexcept { return g_current != nullptr; }

}  // namespace

Guard* current() noexcept { return g_current; }

Guard::~Guard() {
  if (!active_) return;
  if (g_current == this) g_current = nullptr;
  drop(1, &notice_, Kind::kPointToPoint);
  for (int i = 0; i < peers_; ++i) {
    if (tell_[i] == MPI_REQUEST_NULL) continue;
    int done = 0;
    (void)PMPI_Test(&tell_[i], &done, MPI_STATUS_IGNORE);  // a started notice stays on its way
    if (tell_[i] != MPI_REQUEST_NULL) (void)PMPI_Request_free(&tell_[i]);
  }
  (void)PMPI_Comm_free(&comm_);
}

int Guard::open(MPI_Comm comm, double seconds) noexcept {
#if defined(SMPI_SHARED_MALLOC)
  (void)comm, (void)seconds;
  return MPI_SUCCESS;
#else
  if (active_ || g_current) return MPI_ERR_OTHER;
  int rank = 0, n = 0;
  int rc = PMPI_Comm_rank(comm, &rank);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(comm, &n);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_dup(comm, &comm_);
  if (rc != MPI_SUCCESS) return rc;
  try {
    tell_ = std::make_unique<MPI_Request[]>(n);
  } catch (...) {
    rc = MPI_ERR_NO_MEM;
  }
  for (int i = 0; i < n && rc == MPI_SUCCESS; ++i) tell_[i] = MPI_REQUEST_NULL;
  for (int i = 0; i < n && rc == MPI_SUCCESS; ++i) {
    if (i != rank) {
      rc = PMPI_Send_init(&notice_buf_, 1, MPI_INT, i, kTagNotice, comm_, &tell_[i]);
    }
  }
  peers_ = tell_ ? n : 0;
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Irecv(&notice_in_, 1, MPI_INT, MPI_ANY_SOURCE, kTagNotice, comm_, &notice_);
  }
  active_ = true;  // from here the destructor releases what was made
  if (rc != MPI_SUCCESS) return rc;
  deadline_ = PMPI_Wtime() + seconds;
  g_current = this;
  return MPI_SUCCESS;
#endif
}

void Guard::abandon() noexcept {
  if (!active_ || state_ != kRunning) return;
  state_ = kSelf;
  tell();
}

void Guard::tell() noexcept {
  if (told_) return;
  told_ = true;
  for (int i = 0; i < peers_; ++i) {
    if (tell_[i] != MPI_REQUEST_NULL) (void)PMPI_Start(&tell_[i]);
  }
}

const char* Guard::why() const noexcept {
  switch (state_) {
    case kPeer:
      return "a peer failed";
    case kSelf:
      return "this rank failed";
    case kTimeout:
      return "time-out";
    default:
      return "";
  }
}

void Guard::poll() noexcept {
  if (!active_ || state_ != kRunning) return;
  int got = 0;
  if (notice_ != MPI_REQUEST_NULL &&
      (PMPI_Test(&notice_, &got, MPI_STATUS_IGNORE) != MPI_SUCCESS || got)) {
    state_ = kPeer;
    return;
  }
  if (++polls_ % kPollsPerClock == 0 && PMPI_Wtime() > deadline_) {
    state_ = kTimeout;
    tell();  // the peers waiting for this rank leave too
  }
}

int wait(MPI_Request* r, MPI_Status* st) noexcept { return wait_kind(r, st, Kind::kPointToPoint); }

int waitall(int n, MPI_Request* r, MPI_Status* st) noexcept {
  Guard* g = g_current;
  if (!g) return PMPI_Waitall(n, r, st);
  return guarded(g, n, r, st, Kind::kPointToPoint, false, nullptr);
}

int waitany(int n, MPI_Request* r, int* index, MPI_Status* st) noexcept {
  Guard* g = g_current;
  if (!g) return PMPI_Waitany(n, r, index, st);
  return guarded(g, n, r, st ? st : MPI_STATUS_IGNORE, Kind::kPointToPoint, true, index);
}

int recv(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
         MPI_Status* st) noexcept {
  if (!guarding()) return PMPI_Recv(buf, count, t, src, tag, comm, st);
  MPI_Request r = MPI_REQUEST_NULL;
  return posted(PMPI_Irecv(buf, count, t, src, tag, comm, &r), &r, st, Kind::kPointToPoint);
}

int send(const void* buf, int count, MPI_Datatype t, int dst, int tag, MPI_Comm comm) noexcept {
  if (!guarding()) return PMPI_Send(buf, count, t, dst, tag, comm);
  MPI_Request r = MPI_REQUEST_NULL;
  return posted(PMPI_Isend(buf, count, t, dst, tag, comm, &r), &r, nullptr, Kind::kPointToPoint);
}

int barrier(MPI_Comm comm) noexcept {
  if (!guarding()) return PMPI_Barrier(comm);
  MPI_Request r = MPI_REQUEST_NULL;
  return posted(PMPI_Ibarrier(comm, &r), &r, nullptr, Kind::kCollective);
}

int bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm) noexcept {
  if (!guarding()) return PMPI_Bcast(buf, count, t, root, comm);
  MPI_Request r = MPI_REQUEST_NULL;
  return posted(PMPI_Ibcast(buf, count, t, root, comm, &r), &r, nullptr, Kind::kCollective);
}

int allreduce(const void* in, void* out, int count, MPI_Datatype t, MPI_Op op,
              MPI_Comm comm) noexcept {
  if (!guarding()) return PMPI_Allreduce(in, out, count, t, op, comm);
  MPI_Request r = MPI_REQUEST_NULL;
  return posted(PMPI_Iallreduce(in, out, count, t, op, comm, &r), &r, nullptr, Kind::kCollective);
}

int allgather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount,
              MPI_Datatype rt, MPI_Comm comm) noexcept {
  if (!guarding()) return PMPI_Allgather(sbuf, scount, st, rbuf, rcount, rt, comm);
  MPI_Request r = MPI_REQUEST_NULL;
  return posted(PMPI_Iallgather(sbuf, scount, st, rbuf, rcount, rt, comm, &r), &r, nullptr,
                Kind::kCollective);
}

int scatter(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt,
            int root, MPI_Comm comm) noexcept {
  if (!guarding()) return PMPI_Scatter(sbuf, scount, st, rbuf, rcount, rt, root, comm);
  MPI_Request r = MPI_REQUEST_NULL;
  return posted(PMPI_Iscatter(sbuf, scount, st, rbuf, rcount, rt, root, comm, &r), &r, nullptr,
                Kind::kCollective);
}

int comm_dup(MPI_Comm comm, MPI_Comm* out) noexcept {
  if (!guarding()) return PMPI_Comm_dup(comm, out);
  MPI_Request r = MPI_REQUEST_NULL;
  return posted(PMPI_Comm_idup(comm, out, &r), &r, nullptr, Kind::kCollective);
}

int comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* out) noexcept {
  // No nonblocking form: every member is known to be here first, and nothing between the
  // barrier and the split can fail on its own.
  if (guarding()) {
    if (const int rc = barrier(comm); rc != MPI_SUCCESS) return rc;
  }
  return PMPI_Comm_split_type(comm, type, key, info, out);
}

}  // namespace colltune::waits

// Waits that a departed peer cannot hold forever (docs/faults.md, "Calibration in MPI_Init").
// Outside a Guard's scope each call below is PMPI's own blocking call. Inside one (a first-launch
// calibration, on this thread), each posts its nonblocking form and polls it together with the
// guard's abort notice and deadline: a peer that failed on its own (an allocation, an exception)
// abandons the guard, which tells every member, and each member's waits then return
// kErrAbandoned, as they do past the deadline and from then on without communicating. Requests
// left behind are cancelled and released; a nonblocking collective is left pending (MPI forbids
// both there). Under SimGrid (SMPI) a guard has no effect: polls would take
// simulated time, and SimGrid ends a deadlocked simulation itself.
#pragma once

#include <mpi.h>

#include <memory>

namespace colltune::waits {

inline constexpr int kErrAbandoned = MPI_ERR_OTHER;

class Guard {
 public:
  Guard() = default;
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  ~Guard();
  // Collective over comm: a private duplicate for the abort notices, one receive posted for
  // them, one persistent send prepared per peer (a notice needs no allocation later). `seconds`:
  // how long from now every wait in scope may take in all. Then this thread's waits are guarded
  // until the guard is destroyed. MPI error codes; on an error the guard is inert.
  int open(MPI_Comm comm, double seconds) noexcept;
  // This rank cannot go on: every peer is told (no allocation), and this rank's waits in scope
  // return at once. Idempotent.
  void abandon() noexcept;
  // Whether the guard gave up (a notice from a peer, abandon(), or the deadline).
  bool abandoned() const noexcept { return state_ != kRunning; }
  // Why, for a log line: "a peer failed", "this rank failed", "time-out".
  const char* why() const noexcept;
  // Polls the abort notice and the deadline once; abandoned() after.
  void poll() noexcept;

 private:
  enum State { kRunning, kPeer, kSelf, kTimeout };
  void tell() noexcept;  // starts the notices to every peer, once
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Request notice_ = MPI_REQUEST_NULL;
  int notice_buf_ = 0, notice_in_ = 0;
  std::unique_ptr<MPI_Request[]> tell_;
  int peers_ = 0;
  double deadline_ = 0;
  unsigned polls_ = 0;
  State state_ = kRunning;
  bool active_ = false, told_ = false;
};

// The guard in scope on this thread, or nullptr.
Guard* current() noexcept;
// Whether a blocking call that cannot be guarded (MPICH's own collectives, measured as they are)
// may be made: false once the guard in scope gave up.
inline bool may_block() noexcept { return current() == nullptr || !current()->abandoned(); }

int wait(MPI_Request* r, MPI_Status* st) noexcept;
int waitall(int n, MPI_Request* r, MPI_Status* st) noexcept;
int waitany(int n, MPI_Request* r, int* index, MPI_Status* st) noexcept;
int recv(void* buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
         MPI_Status* st) noexcept;
int send(const void* buf, int count, MPI_Datatype t, int dst, int tag, MPI_Comm comm) noexcept;
int barrier(MPI_Comm comm) noexcept;
int bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm) noexcept;
int allreduce(const void* in, void* out, int count, MPI_Datatype t, MPI_Op op,
              MPI_Comm comm) noexcept;
int allgather(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount,
              MPI_Datatype rt, MPI_Comm comm) noexcept;
int scatter(const void* sbuf, int scount, MPI_Datatype st, void* rbuf, int rcount, MPI_Datatype rt,
            int root, MPI_Comm comm) noexcept;
int comm_dup(MPI_Comm comm, MPI_Comm* out) noexcept;
int comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* out) noexcept;

}  // namespace colltune::waits

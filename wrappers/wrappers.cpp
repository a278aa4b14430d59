// The C ABI of libcolltune: the only place that defines MPI_* symbols. Calls PMPI_* and the
// noexcept runtime only; no exception crosses this boundary.
//
// Large-count (_c) variants: on an intercommunicator passed to PMPI_*_c whole (after the
// fallback policy of a forced algorithm, as the int variants); on an intracommunicator tuned
// through the int path when the bytes per process fit an int (then every rank's significant
// count fits too), else passed to PMPI_*_c. Both tests use only significant arguments, so
// every rank takes the same path.
#include <mpi.h>

#include <climits>
#include <cstdio>

#include "../src/runtime.hpp"

using colltune::CollArgs;
using colltune::Op;

namespace {

int safe_init() noexcept {
  try {
    if (colltune::runtime_init() != MPI_SUCCESS) {
      std::fputs("colltune: error: initialisation failed; running native collectives\n", stderr);
    }
  } catch (...) {
    std::fputs("colltune: error: initialisation failed; running native collectives\n", stderr);
  }
  return MPI_SUCCESS;
}

bool passthrough(Op op) {
  return colltune::g_passthrough[static_cast<int>(op)].load(std::memory_order_relaxed);
}

// Bytes per process from a large count; false when it does not fit an int or is zero.
[[maybe_unused]] bool fits_int(MPI_Count count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0) return false;
  return count <= INT_MAX / size;
}

// True (with the call's result in *rc) when MPICH must serve a large-count call whole: on an
// intercommunicator, where the root is MPI_ROOT, MPI_PROC_NULL or a remote rank and counts are
// significant on one side only (after the fallback policy of a forced algorithm, as for the int
// variants), or when `comm` is not a valid communicator (MPICH reports the error).
template <typename F>
[[maybe_unused]] bool served_whole(Op op, MPI_Comm comm, F& call, int* rc) {
  int inter = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) {
    *rc = call();
    return true;
  }
  if (!inter) return false;
  *rc = colltune::dispatch_passthrough(
      op, comm, [](void* f) { return (*static_cast<F*>(f))(); }, &call);
  return true;
}

[[maybe_unused]] int comm_rank(MPI_Comm comm) {
  int rank = -1;
  if (comm == MPI_COMM_NULL || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return -1;
  return rank;
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  return rc == MPI_SUCCESS ? safe_init() : rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  return rc == MPI_SUCCESS ? safe_init() : rc;
}

int MPI_Finalize(void) {
  try {
    colltune::runtime_finalize();
  } catch (...) {
  }
  return PMPI_Finalize();
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (passthrough(Op::kBcast)) return PMPI_Bcast(buffer, count, datatype, root, comm);
  CollArgs a;
  a.recvbuf = buffer;
  a.recvcount = count;
  a.recvtype = datatype;
  a.root = root;
  a.comm = comm;
  return colltune::dispatch(Op::kBcast, a);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (passthrough(Op::kScatter)) {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  CollArgs a{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm};
  return colltune::dispatch(Op::kScatter, a);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (passthrough(Op::kGather)) {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  CollArgs a{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm};
  return colltune::dispatch(Op::kGather, a);
}

#if !defined(SMPI_SHARED_MALLOC)  // SimGrid SMPI has no PMPI_*_c
int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  auto native = [&] { return PMPI_Bcast_c(buffer, count, datatype, root, comm); };
  int rc = MPI_SUCCESS;
  if (passthrough(Op::kBcast)) return native();
  if (served_whole(Op::kBcast, comm, native, &rc)) return rc;
  if (!fits_int(count, datatype)) return native();
  return MPI_Bcast(buffer, static_cast<int>(count), datatype, root, comm);
}

int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto native = [&] {
    return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  int rc = MPI_SUCCESS;
  if (passthrough(Op::kScatter)) return native();
  if (served_whole(Op::kScatter, comm, native, &rc)) return rc;
  const bool is_root = comm_rank(comm) == root;
  if (!(is_root ? fits_int(sendcount, sendtype) : fits_int(recvcount, recvtype))) return native();
  // Non-significant counts are not looked at; the root's recvcount equals its block.
  return MPI_Scatter(sendbuf, is_root ? static_cast<int>(sendcount) : 0, sendtype, recvbuf,
                     is_root && recvbuf == MPI_IN_PLACE ? 0 : static_cast<int>(recvcount), recvtype,
                     root, comm);
}

int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  auto native = [&] {
    return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  int rc = MPI_SUCCESS;
  if (passthrough(Op::kGather)) return native();
  if (served_whole(Op::kGather, comm, native, &rc)) return rc;
  const bool is_root = comm_rank(comm) == root;
  if (!(is_root ? fits_int(recvcount, recvtype) : fits_int(sendcount, sendtype))) return native();
  return MPI_Gather(sendbuf, is_root && sendbuf == MPI_IN_PLACE ? 0 : static_cast<int>(sendcount),
                    sendtype, recvbuf, is_root ? static_cast<int>(recvcount) : 0, recvtype, root,
                    comm);
}

#endif  // !SMPI_SHARED_MALLOC

// Introspection for tests and tools: calls of (op, algorithm) on this rank, counted while
// COLLTUNE_STATS=1. Returns 0 for unknown names.
unsigned long long colltune_calls(const char* op, const char* algorithm) {
  if (!op || !algorithm) return 0;
  const auto o = colltune::op_from_name(op);
  return o ? colltune::calls_of(*o, algorithm) : 0;
}

// Introspection for tests: decisions and built trees cached for comm on this rank (each cache
// holds at most 16 per op; docs/faults.md); -1 before the communicator's first tuned call.
long long colltune_cached_entries(MPI_Comm comm) { return colltune::cached_entries(comm); }

}  // extern "C"

// One collective call as the algorithms see it (MPI): arguments, algorithm signature, internal
// tags. The MPI-free vocabulary (Op, Range) is vocabulary.hpp.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "../vocabulary.hpp"
#include "shape.hpp"

namespace colltune {

// One collective call, already validated by the wrapper (intracommunicator, root in range).
// Bcast uses only buf/count/type of the "recv" side (the user's buffer on every rank).
struct CollArgs {
  const void* sendbuf = nullptr;
  int sendcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  int recvcount = 0;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // the user's communicator (native algorithm only)
  // Private duplicate: every internal message travels here. MPI_ERRORS_RETURN on it lets a
  // failing rank consume a message it has no room for (a truncated receive,
  // src/algorithms/tree_notice.hpp).
  MPI_Comm shadow = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  // Bytes per process from arguments significant on this rank; equal on every rank.
  std::uint64_t block_bytes = 0;
  // The tree of a built algorithm (Algorithm::build) for this communicator, root and size,
  // the same on every rank; nullptr for the others.
  const BuiltTree* tree = nullptr;
  // Set by a tree executor when a peer's failure notice left this rank without a valid result:
  // that peer's rank (-1: none). Read by dispatch to name the cause.
  mutable int notice_from = -1;
};

// Arguments of a call on contiguous bytes: `bytes` per process of MPI_BYTE, one buffer for
// bcast (sendbuf), sendbuf/recvbuf for scatter and gather. Used by the benchmarks.
inline CollArgs byte_args(Op op, MPI_Comm comm, MPI_Comm shadow, int rank, int size, int root,
                          std::uint64_t bytes, void* sendbuf, void* recvbuf) {
  CollArgs a;
  a.root = root;
  a.comm = comm;
  a.shadow = shadow;
  a.rank = rank;
  a.size = size;
  a.block_bytes = bytes;
  a.sendbuf = sendbuf;
  a.sendcount = static_cast<int>(bytes);
  a.sendtype = MPI_BYTE;
  a.recvbuf = op == Op::kBcast ? sendbuf : recvbuf;
  a.recvcount = static_cast<int>(bytes);
  a.recvtype = MPI_BYTE;
  return a;
}

// Returns an MPI error code. Must send nothing it cannot finish: errors are returned, never
// retried through PMPI by the caller.
using AlgorithmFn = int (*)(const CollArgs&);

// Identical on every rank for a given call (it may only look at significant arguments).
using SupportsFn = bool (*)(const CollArgs&);

// Internal tags on the shadow communicator. Pairwise FIFO order plus named sources make one tag
// per op safe across consecutive collectives (no MPI_ANY_SOURCE is ever used internally; tree
// executors receive with MPI_ANY_TAG from a named source that sends them one message per call,
// or, on a paced gather edge (BuiltTree::segment), its segments in order, each after a credit).
inline constexpr int kTagBcast = 101;
inline constexpr int kTagScatter = 102;
inline constexpr int kTagGather = 103;
inline constexpr int kTagCopy = 104;    // a rank to itself (large non-dense local copies)
inline constexpr int kTagFail = 105;    // empty: the sender has no valid data for this call
inline constexpr int kTagCredit = 106;  // empty: a paced gather's root takes the next segment

}  // namespace colltune

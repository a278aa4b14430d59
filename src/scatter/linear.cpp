// linear scatter: the root sends block i straight from its buffer to process i (user datatype,
// no packing), all sends posted at once; every other process receives its block.
// Cost (LMO, docs/model.md, M = block bytes, n processes, root 0):
//   M <= S: (n-1)(C_0 + t_0 M) + max_i (C_i + t_i M + M / beta_0i)
//   M >  S: (n-1)(C_0 + t_0 M) + sum_i (C_i + t_i M + M / beta_0i)
#include <vector>

#include "../algorithms.hpp"
#include "../datatype.hpp"

namespace colltune {

int scatter_linear(const CollArgs& a) {
  if (a.block_bytes == 0) return MPI_SUCCESS;
  if (a.rank != a.root) {
    return PMPI_Recv(a.recvbuf, a.recvcount, a.recvtype, a.root, kTagScatter, a.shadow,
                     MPI_STATUS_IGNORE);
  }
  // Allocation before the first message: requests and the local copy's buffer.
  std::vector<MPI_Request> reqs;
  reqs.reserve(a.size);
  dt::LocalCopy own_copy;
  int rc = MPI_SUCCESS;
  if (a.recvbuf != MPI_IN_PLACE) {
    const void* own = nullptr;
    rc = dt::block_address(a.sendbuf, a.sendcount, a.sendtype, a.root, &own);
    if (rc == MPI_SUCCESS) {
      rc = own_copy.prepare(own, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype,
                            a.block_bytes, a.shadow);
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  for (int i = 1; i < a.size && rc == MPI_SUCCESS; ++i) {
    const int dst = (a.root + i) % a.size;
    const void* block = nullptr;
    rc = dt::block_address(a.sendbuf, a.sendcount, a.sendtype, dst, &block);
    MPI_Request r;
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Isend(block, a.sendcount, a.sendtype, dst, kTagScatter, a.shadow, &r);
    }
    if (rc == MPI_SUCCESS) reqs.push_back(r);
  }
  if (rc == MPI_SUCCESS) rc = own_copy.run();
  const int wrc = PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : wrc;
}

}  // namespace colltune

// linear gather: every process sends its block straight to the root (user datatype), the root
// posts all receives at once directly into the blocks of its receive buffer.
// Cost (LMO, docs/model.md, M = block bytes, n processes, root 0):
//   M < M1: (n-1)(C_0 + t_0 M) + max_i (C_i + t_i M + M / beta_0i) + kappa1 M
//   M > M2: the same with sum_i and kappa2 M; M1..M2: discrete escalations (measured).
#include <vector>

#include "../algorithms.hpp"
#include "../datatype.hpp"

namespace colltune {

int gather_linear(const CollArgs& a) {
  if (a.block_bytes == 0) return MPI_SUCCESS;
  if (a.rank != a.root) {
    return PMPI_Send(a.sendbuf, a.sendcount, a.sendtype, a.root, kTagGather, a.shadow);
  }
  // Allocation before the first message: requests and the local copy's buffer.
  std::vector<MPI_Request> reqs;
  reqs.reserve(a.size);
  dt::LocalCopy own_copy;
  int rc = MPI_SUCCESS;
  if (a.sendbuf != MPI_IN_PLACE) {
    const void* own = nullptr;
    rc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, a.root, &own);
    if (rc == MPI_SUCCESS) {
      rc = own_copy.prepare(a.sendbuf, a.sendcount, a.sendtype, const_cast<void*>(own), a.recvcount,
                            a.recvtype, a.block_bytes, a.shadow);
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  for (int i = 1; i < a.size && rc == MPI_SUCCESS; ++i) {
    const int src = (a.root + i) % a.size;
    const void* block = nullptr;
    rc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, src, &block);
    MPI_Request r;
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Irecv(const_cast<void*>(block), a.recvcount, a.recvtype, src, kTagGather, a.shadow,
                      &r);
    }
    if (rc == MPI_SUCCESS) reqs.push_back(r);
  }
  if (rc == MPI_SUCCESS) rc = own_copy.run();
  const int wrc = PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : wrc;
}

}  // namespace colltune

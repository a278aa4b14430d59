// linear bcast: the root sends the whole message to every other process, one after another.
// Each process receives with its own count and datatype (signatures match), nothing is packed.
// Cost (LMO, M = message bytes, n processes, root 0):
//   (n-1)(C_0 + t_0 M) + max_i (C_i + t_i M + M / beta_0i)   (sum instead of max above S)
#include <vector>

#include "../algorithms.hpp"

namespace colltune {

int bcast_linear(const CollArgs& a) {
  if (a.block_bytes == 0 || a.size == 1) return MPI_SUCCESS;
  if (a.rank != a.root) {
    return PMPI_Recv(a.recvbuf, a.recvcount, a.recvtype, a.root, kTagBcast, a.shadow,
                     MPI_STATUS_IGNORE);
  }
  std::vector<MPI_Request> reqs;
  reqs.reserve(a.size - 1);
  for (int i = 1; i < a.size; ++i) {
    const int dst = (a.root + i) % a.size;
    MPI_Request r;
    const int rc = PMPI_Isend(a.recvbuf, a.recvcount, a.recvtype, dst, kTagBcast, a.shadow, &r);
    if (rc != MPI_SUCCESS) return rc;
    reqs.push_back(r);
  }
  return PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

}  // namespace colltune

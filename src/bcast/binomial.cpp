// binomial bcast: receive the whole message from the tree parent, then forward it to each
// child, largest subtree first (tree.hpp). Every node uses its own buffer, count and datatype.
// Cost (LMO, M bytes, homogeneous C, t, beta): ceil(log2 n) rounds, each at most
//   C + t M + C + t M + M / beta  on the critical path; in general the time the last leaf
//   finishes when sender costs of one parent serialize and transfers overlap.
#include <vector>

#include "../algorithms.hpp"
#include "../tree.hpp"

namespace colltune {

int bcast_binomial(const CollArgs& a) {
  if (a.block_bytes == 0 || a.size == 1) return MPI_SUCCESS;
  const int n = a.size;
  const int vr = tree::relative(a.rank, a.root, n);
  int rc = MPI_SUCCESS;
  std::vector<MPI_Request> reqs;  // allocated before the first message
  reqs.reserve(32);               // children of one node: at most log2 of an int
  if (vr != 0) {
    rc = PMPI_Recv(a.recvbuf, a.recvcount, a.recvtype, tree::absolute(tree::parent(vr), a.root, n),
                   kTagBcast, a.shadow, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
  tree::for_each_child_desc(vr, n, [&](int child, int) {
    if (rc != MPI_SUCCESS) return;
    MPI_Request r;
    rc = PMPI_Isend(a.recvbuf, a.recvcount, a.recvtype, tree::absolute(child, a.root, n), kTagBcast,
                    a.shadow, &r);
    if (rc == MPI_SUCCESS) reqs.push_back(r);
  });
  const int wrc = PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : wrc;
}

}  // namespace colltune

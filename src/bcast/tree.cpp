// bcast along any tree shape (src/shape.hpp): receive the whole message from the parent, then
// send it to each child in issue order. Every process uses its own buffer, count and datatype
// (signatures match); nothing is packed. Predicted by src/model/ from the same shape.
#include <vector>

#include "../algorithms.hpp"

namespace colltune {

int bcast_tree(const CollArgs& a, const Shape& s) {
  if (a.block_bytes == 0 || a.size == 1) return MPI_SUCCESS;
  const TreePos pos(a);
  const int n = pos.n, vr = pos.vr;
  std::vector<MPI_Request> reqs;  // allocated before the first message
  reqs.reserve(child_count(s, vr, n));
  int rc = MPI_SUCCESS;
  if (vr != 0) {
    rc = PMPI_Recv(a.recvbuf, a.recvcount, a.recvtype, pos.rank_of(s.parent(vr, n)), kTagBcast,
                   a.shadow, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
  for_each_child(s, vr, n, [&](int child, int) {
    MPI_Request r;
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Isend(a.recvbuf, a.recvcount, a.recvtype, pos.rank_of(child), kTagBcast, a.shadow,
                      &r);
    }
    if (rc == MPI_SUCCESS) reqs.push_back(r);
  });
  const int wrc = PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : wrc;
}

}  // namespace colltune

// bcast along any tree (src/algorithms/shape.hpp: a fixed shape or a built tree): receive the whole
// message from the parent, then send it to each child in issue order. Every process uses its own
// buffer, count and datatype (signatures match); nothing is packed. Predicted by src/model/ from
// the same shape. A rank without valid data (its receive failed, or a notice came) sends its
// children notices (src/algorithms/tree_notice.hpp).
#include "../registry.hpp"
#include "../tree_notice.hpp"

namespace colltune {

int bcast_tree(const CollArgs& a, const TreeView& t) {
  if (a.block_bytes == 0 || a.size == 1) return MPI_SUCCESS;
  const TreePos pos(a, t);
  const int vr = pos.vr;
  Requests reqs;  // before the first message
  int rc = reqs.reserve(child_count(t, vr));
  if (vr != 0) {
    const int parent = pos.rank_of(t.parent(vr));
    rc = rc == MPI_SUCCESS ? notice::recv(a.recvbuf, a.recvcount, a.recvtype, parent, kTagBcast,
                                          a.shadow, &a.notice_from)
                           : first_error(rc, notice::drain(parent, a.shadow));
  }
  if (rc != MPI_SUCCESS) return notice::notify_children(rc, pos, a.shadow);
  for_each_child(t, vr, [&](int child, int) {
    MPI_Request r;
    const int src =
        PMPI_Isend(a.recvbuf, a.recvcount, a.recvtype, pos.rank_of(child), kTagBcast, a.shadow, &r);
    if (src == MPI_SUCCESS) reqs.push(r);
    rc = first_error(rc, src);
  });
  return first_error(rc, PMPI_Waitall(reqs.size(), reqs.requests(), MPI_STATUSES_IGNORE));
}

}  // namespace colltune

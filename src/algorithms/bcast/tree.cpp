// bcast along any tree (src/algorithms/shape.hpp: a fixed shape or a built tree): receive the whole
// message from the parent, then send it to each child in issue order. Every process uses its own
// buffer, count and datatype (signatures match); nothing is packed. A tree with a segment size
// (BuiltTree::segment) pipelines larger messages: their bytes (packed unless the type is dense)
// in segments, each forwarded to the children as it arrives. Predicted by src/model/ from
// the same shape. A rank without valid data (its receive failed, or a notice came) sends its
// children notices (src/algorithms/tree_notice.hpp).
#include <vector>

#include "../datatype.hpp"
#include "../registry.hpp"
#include "../tree_notice.hpp"
#include "../waits.hpp"

namespace colltune {

namespace {

// Consumes what is left of src's segments of this call: up to `left` messages, none after a
// notice (a parent that sent a notice sends nothing more).
int drain_segments(int src, int left, MPI_Comm comm) {
  for (; left > 0; --left) {
    MPI_Status st;
    const int rc = waits::recv(nullptr, 0, MPI_BYTE, src, MPI_ANY_TAG, comm, &st);
    if (rc != MPI_SUCCESS && !has_class(rc, MPI_ERR_TRUNCATE)) return rc;
    if (rc == MPI_SUCCESS && st.MPI_TAG == kTagFail) break;
  }
  return MPI_SUCCESS;
}

// The pipelined path: k segments of at most `seg` bytes each; per segment, one message from the
// parent, then one to each child. A rank without valid data sends each child one notice in
// place of the next segment and nothing more, and consumes the rest of its parent's segments.
int bcast_segmented(const CollArgs& a, const TreeView& t, std::uint64_t seg) {
  const std::uint64_t bytes = a.block_bytes;
  const int k = static_cast<int>((bytes + seg - 1) / seg);
  const TreePos pos(a, t);
  const int vr = pos.vr;
  const int parent = vr == 0 ? -1 : pos.rank_of(t.parent(vr));
  Requests reqs;  // before the first message
  std::vector<char> tmp;
  bool dense = false;
  int rc = reqs.reserve(child_count(t, vr) * k);
  if (rc == MPI_SUCCESS) rc = dt::is_dense(a.recvtype, &dense);
  char* data = static_cast<char*>(a.recvbuf);
  if (rc == MPI_SUCCESS && !dense && (rc = resize_bytes(tmp, bytes)) == MPI_SUCCESS) {
    data = tmp.data();
    if (vr == 0) rc = dt::pack(a.recvbuf, a.recvcount, a.recvtype, data, bytes, a.shadow);
  }
  int s = 0, consumed = 0;  // segments sent on; parent's messages taken
  for (; s < k && rc == MPI_SUCCESS; ++s) {
    const std::uint64_t off = static_cast<std::uint64_t>(s) * seg;
    const int len = static_cast<int>(std::min(seg, bytes - off));
    if (vr != 0) {
      ++consumed;
      rc = notice::recv(data + off, len, MPI_BYTE, parent, kTagBcast, a.shadow, &a.notice_from);
      if (rc != MPI_SUCCESS) break;
    }
    for_each_child(t, vr, [&](int child, int) {
      MPI_Request r;
      const int src =
          PMPI_Isend(data + off, len, MPI_BYTE, pos.rank_of(child), kTagBcast, a.shadow, &r);
      if (src == MPI_SUCCESS) reqs.push(r);
      rc = first_error(rc, src);
    });
  }
  if (rc != MPI_SUCCESS && s < k) {
    // After a notice the parent sends nothing more; after any other failure, the rest.
    if (vr != 0 && a.notice_from != parent) {
      rc = first_error(rc, drain_segments(parent, k - consumed, a.shadow));
    }
    rc = notice::notify_children(rc, pos, a.shadow);
  }
  rc = first_error(rc, waits::waitall(reqs.size(), reqs.requests(), MPI_STATUSES_IGNORE));
  if (rc == MPI_SUCCESS && vr != 0 && !dense) {
    rc = dt::unpack(data, bytes, a.recvbuf, a.recvcount, a.recvtype, a.shadow);
  }
  return rc;
}

}  // namespace

int bcast_tree(const CollArgs& a, const TreeView& t) {
  if (a.block_bytes == 0 || a.size == 1) return MPI_SUCCESS;
  const std::uint64_t seg = t.segment_for(a.block_bytes);
  if (seg > 0 && a.block_bytes > seg) return bcast_segmented(a, t, seg);
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
  return first_error(rc, waits::waitall(reqs.size(), reqs.requests(), MPI_STATUSES_IGNORE));
}

}  // namespace colltune

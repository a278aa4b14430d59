// scatter along any tree (src/algorithms/shape.hpp: a fixed shape or a built tree). The root sends
// a child whose subtree is itself alone its block straight from the send buffer with the user's
// datatype (such a child receives with its own); a larger subtree gets its blocks packed, as
// MPI_PACKED. Inner nodes keep their own block and forward the rest packed. A leaf below an inner
// node receives packed bytes straight into a dense type, else into a buffer it unpacks (MPICH 4.0.2
// ch4:ucx truncates packed bytes received into some non-contiguous types, e.g. a resized struct
// {int, double} at count 1001). Every buffer is allocated before the first message. A rank
// without valid data for its subtree (a local failure, a failed receive, a notice) consumes its
// parent's message and sends its children notices (src/algorithms/tree_notice.hpp).
#include <vector>

#include "../datatype.hpp"
#include "../registry.hpp"
#include "../tree_notice.hpp"
#include "../waits.hpp"

namespace colltune {

namespace {

// The root's local steps before its first message: packed blocks for children with larger
// subtrees at *data (position b's block at *data + b * bb), its own block's copy prepared.
int prepare_root(const CollArgs& a, const TreeView& t, const TreePos& pos, std::vector<char>& tmp,
                 const char** data, dt::LocalCopy& own_copy) {
  const std::uint64_t bb = a.block_bytes;
  const int n = pos.n;
  bool dense = false, packed_children = false;
  int rc = dt::is_dense(a.sendtype, &dense);
  if (rc != MPI_SUCCESS) return rc;
  for_each_child(t, 0, [&](int, int csub) { packed_children |= csub > 1; });
  if (packed_children && t.rank_order() && dense) {
    *data = static_cast<const char*>(a.sendbuf);  // positions are the buffer.s order
  } else if (packed_children) {
    if ((rc = resize_bytes(tmp, static_cast<std::size_t>(n) * bb)) != MPI_SUCCESS) return rc;
    for_each_child(t, 0, [&](int c, int csub) {
      for (int b = c; csub > 1 && b < c + csub && rc == MPI_SUCCESS; ++b) {
        const void* block = nullptr;
        rc = dt::block_address(a.sendbuf, a.sendcount, a.sendtype, pos.rank_of(b), &block);
        if (rc == MPI_SUCCESS) {
          rc = dt::pack(block, a.sendcount, a.sendtype, tmp.data() + b * bb, bb, a.shadow);
        }
      }
    });
    *data = tmp.data();
  }
  if (rc != MPI_SUCCESS || a.recvbuf == MPI_IN_PLACE) return rc;
  const void* own = nullptr;
  rc = dt::block_address(a.sendbuf, a.sendcount, a.sendtype, a.root, &own);
  if (rc != MPI_SUCCESS) return rc;
  return own_copy.prepare(own, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype, bb,
                          a.shadow);
}

}  // namespace

int scatter_tree(const CollArgs& a, const TreeView& t) {
  const std::uint64_t bb = a.block_bytes;
  if (bb == 0) return MPI_SUCCESS;
  const TreePos pos(a, t);
  const int vr = pos.vr;
  const int sub = t.subtree(vr);
  Requests reqs;
  std::vector<char> tmp;
  int rc = reqs.reserve(child_count(t, vr));

  if (vr == 0) {
    const char* data = nullptr;
    dt::LocalCopy own_copy;
    if (rc == MPI_SUCCESS) rc = prepare_root(a, t, pos, tmp, &data, own_copy);
    if (rc != MPI_SUCCESS) return notice::notify_children(rc, pos, a.shadow);
    for_each_child(t, 0, [&](int c, int csub) {
      MPI_Request r;
      int src = MPI_SUCCESS;
      if (csub == 1) {
        const void* block = nullptr;
        const int brc =
            dt::block_address(a.sendbuf, a.sendcount, a.sendtype, pos.rank_of(c), &block);
        src = brc == MPI_SUCCESS ? PMPI_Isend(block, a.sendcount, a.sendtype, pos.rank_of(c),
                                              kTagScatter, a.shadow, &r)
                                 : notice::isend(pos.rank_of(c), a.shadow, &r);
        rc = first_error(rc, brc);
      } else {
        src = PMPI_Isend(data + c * bb, static_cast<int>(csub * bb), MPI_PACKED, pos.rank_of(c),
                         kTagScatter, a.shadow, &r);
      }
      if (src == MPI_SUCCESS) reqs.push(r);
      rc = first_error(rc, src);
    });
    rc = first_error(rc, own_copy.run());
  } else {
    const int parent = pos.rank_of(t.parent(vr));
    bool dense = false;
    if (rc == MPI_SUCCESS) rc = dt::is_dense(a.recvtype, &dense);
    if (rc == MPI_SUCCESS && sub == 1 && (t.parent(vr) == 0 || dense)) {
      // the root's user-typed block, or packed bytes
      return notice::recv(a.recvbuf, a.recvcount, a.recvtype, parent, kTagScatter, a.shadow,
                          &a.notice_from);
    }
    if (rc == MPI_SUCCESS) rc = resize_bytes(tmp, static_cast<std::size_t>(sub) * bb);
    rc = rc == MPI_SUCCESS ? notice::recv(tmp.data(), static_cast<int>(sub * bb), MPI_PACKED,
                                          parent, kTagScatter, a.shadow, &a.notice_from)
                           : first_error(rc, notice::drain(parent, a.shadow));
    if (rc != MPI_SUCCESS) return notice::notify_children(rc, pos, a.shadow);
    // The subtree's data is valid from here: a failed unpack spoils this rank's block alone.
    rc = dt::unpack(tmp.data(), bb, a.recvbuf, a.recvcount, a.recvtype, a.shadow);
    for_each_child(t, vr, [&](int c, int csub) {
      MPI_Request r;
      const int src = PMPI_Isend(tmp.data() + (c - vr) * bb, static_cast<int>(csub * bb),
                                 MPI_PACKED, pos.rank_of(c), kTagScatter, a.shadow, &r);
      if (src == MPI_SUCCESS) reqs.push(r);
      rc = first_error(rc, src);
    });
  }
  return first_error(rc, waits::waitall(reqs.size(), reqs.requests(), MPI_STATUSES_IGNORE));
}

}  // namespace colltune

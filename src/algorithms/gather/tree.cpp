// gather along any tree (src/algorithms/shape.hpp: a fixed shape or a built tree), the mirror of
// scatter: a leaf sends its block with its own datatype; an inner node packs its block, receives
// each child's subtree as MPI_PACKED next to it and sends the whole subtree to its parent. The root
// receives a child whose subtree is itself alone straight into that block of the receive buffer
// (user datatype); larger subtrees arrive packed, straight into the receive buffer when positions
// are ranks with a dense type, else into a buffer unpacked in rank order. Every buffer is allocated
// before the first message. A rank without valid data for its subtree (a local failure, a failed
// receive, a child's notice) consumes its children's messages and sends its parent a notice
// (src/algorithms/tree_notice.hpp).
#include <vector>

#include "../datatype.hpp"
#include "../registry.hpp"
#include "../tree_notice.hpp"

namespace colltune {

namespace {

// The root's local steps before its first message: where packed subtrees land (*data, *direct)
// and its own block's copy prepared.
int prepare_root(const CollArgs& a, const TreeView& t, std::vector<char>& tmp, char** data,
                 bool* direct, dt::LocalCopy& own_copy) {
  bool dense = false, packed_children = false;
  int rc = dt::is_dense(a.recvtype, &dense);
  if (rc != MPI_SUCCESS) return rc;
  for_each_child(t, 0, [&](int, int csub) { packed_children |= csub > 1; });
  *direct = t.rank_order() && dense;
  if (*direct) {
    *data = static_cast<char*>(a.recvbuf);
  } else if (packed_children) {
    if ((rc = resize_bytes(tmp, static_cast<std::size_t>(a.size) * a.block_bytes)) != MPI_SUCCESS) {
      return rc;
    }
    *data = tmp.data();
  }
  if (a.sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  const void* own = nullptr;
  rc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, a.root, &own);
  if (rc != MPI_SUCCESS) return rc;
  return own_copy.prepare(a.sendbuf, a.sendcount, a.sendtype, const_cast<void*>(own), a.recvcount,
                          a.recvtype, a.block_bytes, a.shadow);
}

}  // namespace

int gather_tree(const CollArgs& a, const TreeView& t) {
  const std::uint64_t bb = a.block_bytes;
  if (bb == 0) return MPI_SUCCESS;
  const TreePos pos(a, t);
  const int vr = pos.vr;
  const int sub = t.subtree(vr);
  const int parent = vr == 0 ? -1 : pos.rank_of(t.parent(vr));
  if (vr != 0 && sub == 1) {  // a leaf: no local step before its one message
    return PMPI_Send(a.sendbuf, a.sendcount, a.sendtype, parent, kTagGather, a.shadow);
  }
  Requests reqs;
  std::vector<char> tmp;
  int rc = reqs.reserve(child_count(t, vr));
  char* data = nullptr;  // packed blocks: position b's block at data + (b - vr) * bb
  bool direct = false;   // positions are ranks, dense receive type: packed blocks land in recvbuf
  dt::LocalCopy own_copy;
  if (rc == MPI_SUCCESS && vr == 0) {
    rc = prepare_root(a, t, tmp, &data, &direct, own_copy);
  } else if (rc == MPI_SUCCESS &&
             (rc = resize_bytes(tmp, static_cast<std::size_t>(sub) * bb)) == MPI_SUCCESS) {
    data = tmp.data();
    rc = dt::pack(a.sendbuf, a.sendcount, a.sendtype, data, bb, a.shadow);
  }
  if (rc != MPI_SUCCESS) {
    rc = notice::drain_children(rc, pos, a.shadow);
    return vr == 0 ? rc : first_error(rc, notice::send(parent, a.shadow));
  }
  for_each_child(t, vr, [&](int c, int csub) {
    MPI_Request r;
    int src = MPI_SUCCESS;
    if (vr == 0 && csub == 1) {
      const void* block = nullptr;
      const int brc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, pos.rank_of(c), &block);
      src = brc == MPI_SUCCESS ? PMPI_Irecv(const_cast<void*>(block), a.recvcount, a.recvtype,
                                            pos.rank_of(c), MPI_ANY_TAG, a.shadow, &r)
                               : notice::idrain(pos.rank_of(c), a.shadow, &r);
      rc = first_error(rc, brc);
    } else {
      src = PMPI_Irecv(data + (c - vr) * bb, static_cast<int>(csub * bb), MPI_PACKED,
                       pos.rank_of(c), MPI_ANY_TAG, a.shadow, &r);
    }
    if (src == MPI_SUCCESS) reqs.push(r);
    rc = first_error(rc, src);
  });
  if (rc == MPI_SUCCESS) rc = own_copy.run();
  const int wrc = PMPI_Waitall(reqs.size(), reqs.requests(), reqs.statuses());
  rc = first_error(rc, notice::check_received(wrc, kTagGather, reqs.requests(), reqs.statuses(),
                                              reqs.size(), &a.notice_from));
  if (vr != 0) {
    if (rc != MPI_SUCCESS) return first_error(rc, notice::send(parent, a.shadow));
    return PMPI_Send(data, static_cast<int>(sub * bb), MPI_PACKED, parent, kTagGather, a.shadow);
  }
  if (rc != MPI_SUCCESS || direct) return rc;
  for_each_child(t, 0, [&](int c, int csub) {
    for (int b = c; csub > 1 && b < c + csub && rc == MPI_SUCCESS; ++b) {
      const void* block = nullptr;
      rc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, pos.rank_of(b), &block);
      if (rc == MPI_SUCCESS) {
        rc = dt::unpack(data + b * bb, bb, const_cast<void*>(block), a.recvcount, a.recvtype,
                        a.shadow);
      }
    }
  });
  return rc;
}

}  // namespace colltune

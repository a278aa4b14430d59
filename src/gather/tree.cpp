// gather along any tree shape (src/shape.hpp), the mirror of scatter: a leaf sends its block
// with its own datatype; an inner node packs its block, receives each child's subtree as
// MPI_PACKED next to it and sends the whole subtree to its parent. The root receives a child
// whose subtree is itself alone straight into that block of the receive buffer (user datatype);
// larger subtrees arrive packed, straight into the receive buffer when the root is rank 0 with
// a dense type, else into a buffer unpacked in rank order. Every buffer is allocated before the
// first message.
#include <vector>

#include "../algorithms.hpp"
#include "../datatype.hpp"

namespace colltune {

int gather_tree(const CollArgs& a, const Shape& s) {
  const std::uint64_t bb = a.block_bytes;
  if (bb == 0) return MPI_SUCCESS;
  const TreePos pos(a);
  const int n = pos.n, vr = pos.vr;
  const int sub = s.subtree(vr, n);
  if (vr != 0 && sub == 1) {
    return PMPI_Send(a.sendbuf, a.sendcount, a.sendtype, pos.rank_of(s.parent(vr, n)), kTagGather,
                     a.shadow);
  }
  std::vector<MPI_Request> reqs;
  reqs.reserve(child_count(s, vr, n));
  std::vector<char> tmp;
  int rc = MPI_SUCCESS;
  char* data = nullptr;  // packed blocks: relative block b at data + (b - vr) * bb
  bool direct = false;   // root 0 with a dense receive type: packed blocks land in recvbuf
  dt::LocalCopy own_copy;
  if (vr == 0) {
    bool dense = false, packed_children = false;
    if ((rc = dt::is_dense(a.recvtype, &dense)) != MPI_SUCCESS) return rc;
    for_each_child(s, 0, n, [&](int, int csub) { packed_children |= csub > 1; });
    direct = a.root == 0 && dense;
    if (direct) {
      data = static_cast<char*>(a.recvbuf);
    } else if (packed_children) {
      tmp.resize(static_cast<std::size_t>(n) * bb);
      data = tmp.data();
    }
    if (a.sendbuf != MPI_IN_PLACE) {
      const void* own = nullptr;
      rc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, a.root, &own);
      if (rc == MPI_SUCCESS) {
        rc = own_copy.prepare(a.sendbuf, a.sendcount, a.sendtype, const_cast<void*>(own),
                              a.recvcount, a.recvtype, bb, a.shadow);
      }
    }
  } else {
    tmp.resize(static_cast<std::size_t>(sub) * bb);
    data = tmp.data();
    rc = dt::pack(a.sendbuf, a.sendcount, a.sendtype, data, bb, a.shadow);
  }
  if (rc != MPI_SUCCESS) return rc;
  for_each_child(s, vr, n, [&](int c, int csub) {
    MPI_Request r;
    if (rc != MPI_SUCCESS) return;
    if (vr == 0 && csub == 1) {
      const void* block = nullptr;
      rc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, pos.rank_of(c), &block);
      if (rc == MPI_SUCCESS) {
        rc = PMPI_Irecv(const_cast<void*>(block), a.recvcount, a.recvtype, pos.rank_of(c),
                        kTagGather, a.shadow, &r);
      }
    } else {
      rc = PMPI_Irecv(data + (c - vr) * bb, static_cast<int>(csub * bb), MPI_PACKED, pos.rank_of(c),
                      kTagGather, a.shadow, &r);
    }
    if (rc == MPI_SUCCESS) reqs.push_back(r);
  });
  if (rc == MPI_SUCCESS) rc = own_copy.run();
  const int wrc = PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  if (wrc != MPI_SUCCESS) return wrc;
  if (vr != 0) {
    return PMPI_Send(data, static_cast<int>(sub * bb), MPI_PACKED, pos.rank_of(s.parent(vr, n)),
                     kTagGather, a.shadow);
  }
  if (direct) return MPI_SUCCESS;
  for_each_child(s, 0, n, [&](int c, int csub) {
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

// scatter along any tree shape (src/shape.hpp). The root sends a child whose subtree is itself
// alone its block straight from the send buffer with the user's datatype (such a child
// receives with its own); a larger subtree gets its blocks packed, as MPI_PACKED. Inner nodes
// keep their own block and forward the rest packed. A leaf below an inner node receives packed
// bytes straight into a dense type, else into a buffer it unpacks (MPICH 4.0.2 ch4:ucx
// truncates packed bytes received into some non-contiguous types, e.g. a resized struct
// {int, double} at count 1001). Every buffer is allocated before the first message.
#include <vector>

#include "../algorithms.hpp"
#include "../datatype.hpp"

namespace colltune {

int scatter_tree(const CollArgs& a, const Shape& s) {
  const std::uint64_t bb = a.block_bytes;
  if (bb == 0) return MPI_SUCCESS;
  const TreePos pos(a);
  const int n = pos.n, vr = pos.vr;
  const int sub = s.subtree(vr, n);
  std::vector<MPI_Request> reqs;
  reqs.reserve(child_count(s, vr, n));
  std::vector<char> tmp;
  int rc = MPI_SUCCESS;

  if (vr == 0) {
    const char* data = nullptr;  // packed blocks: relative block b at data + b * bb
    bool dense = false, packed_children = false;
    if ((rc = dt::is_dense(a.sendtype, &dense)) != MPI_SUCCESS) return rc;
    for_each_child(s, 0, n, [&](int, int csub) { packed_children |= csub > 1; });
    if (packed_children && a.root == 0 && dense) {
      data = static_cast<const char*>(a.sendbuf);  // relative order is the buffer's order
    } else if (packed_children) {
      tmp.resize(static_cast<std::size_t>(n) * bb);
      for_each_child(s, 0, n, [&](int c, int csub) {
        for (int b = c; csub > 1 && b < c + csub && rc == MPI_SUCCESS; ++b) {
          const void* block = nullptr;
          rc = dt::block_address(a.sendbuf, a.sendcount, a.sendtype, pos.rank_of(b), &block);
          if (rc == MPI_SUCCESS) {
            rc = dt::pack(block, a.sendcount, a.sendtype, tmp.data() + b * bb, bb, a.shadow);
          }
        }
      });
      data = tmp.data();
    }
    dt::LocalCopy own_copy;
    if (rc == MPI_SUCCESS && a.recvbuf != MPI_IN_PLACE) {
      const void* own = nullptr;
      rc = dt::block_address(a.sendbuf, a.sendcount, a.sendtype, a.root, &own);
      if (rc == MPI_SUCCESS) {
        rc = own_copy.prepare(own, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype, bb,
                              a.shadow);
      }
    }
    if (rc != MPI_SUCCESS) return rc;
    for_each_child(s, 0, n, [&](int c, int csub) {
      MPI_Request r;
      if (rc != MPI_SUCCESS) return;
      if (csub == 1) {
        const void* block = nullptr;
        rc = dt::block_address(a.sendbuf, a.sendcount, a.sendtype, pos.rank_of(c), &block);
        if (rc == MPI_SUCCESS) {
          rc =
              PMPI_Isend(block, a.sendcount, a.sendtype, pos.rank_of(c), kTagScatter, a.shadow, &r);
        }
      } else {
        rc = PMPI_Isend(data + c * bb, static_cast<int>(csub * bb), MPI_PACKED, pos.rank_of(c),
                        kTagScatter, a.shadow, &r);
      }
      if (rc == MPI_SUCCESS) reqs.push_back(r);
    });
    if (rc == MPI_SUCCESS) rc = own_copy.run();
  } else {
    const int parent = s.parent(vr, n);
    bool dense = false;
    if ((rc = dt::is_dense(a.recvtype, &dense)) != MPI_SUCCESS) return rc;
    if (sub == 1 && (parent == 0 || dense)) {  // the root's user-typed block, or packed bytes
      return PMPI_Recv(a.recvbuf, a.recvcount, a.recvtype, pos.rank_of(parent), kTagScatter,
                       a.shadow, MPI_STATUS_IGNORE);
    }
    tmp.resize(static_cast<std::size_t>(sub) * bb);
    rc = PMPI_Recv(tmp.data(), static_cast<int>(sub * bb), MPI_PACKED, pos.rank_of(parent),
                   kTagScatter, a.shadow, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) {
      rc = dt::unpack(tmp.data(), bb, a.recvbuf, a.recvcount, a.recvtype, a.shadow);
    }
    if (rc != MPI_SUCCESS) return rc;
    for_each_child(s, vr, n, [&](int c, int csub) {
      MPI_Request r;
      if (rc == MPI_SUCCESS) {
        rc = PMPI_Isend(tmp.data() + (c - vr) * bb, static_cast<int>(csub * bb), MPI_PACKED,
                        pos.rank_of(c), kTagScatter, a.shadow, &r);
      }
      if (rc == MPI_SUCCESS) reqs.push_back(r);
    });
  }
  const int wrc = PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : wrc;
}

}  // namespace colltune

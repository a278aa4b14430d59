// binomial gather (mirror of binomial scatter): leaves send their block with their own datatype;
// an inner node packs its block, receives each child's subtree as MPI_PACKED next to it and
// sends the whole subtree to its parent; the root receives straight into its buffer when it is
// rank 0 with a dense type, else into a packed buffer that it unpacks in rank order.
// Cost (LMO, M = block bytes): a node sends when its own block and every child subtree are in;
// the root's receives of k_j M bytes per child j overlap transfers but serialize C_0 + t_0 k_j M;
// ceil(log2 n) levels, (n-1) M bytes reach the root in total.
#include <vector>

#include "../algorithms.hpp"
#include "../datatype.hpp"
#include "../tree.hpp"

namespace colltune {

int gather_binomial(const CollArgs& a) {
  const std::uint64_t bb = a.block_bytes;
  if (bb == 0) return MPI_SUCCESS;
  const int n = a.size;
  const int vr = tree::relative(a.rank, a.root, n);
  const int sub = tree::subtree_size(vr, n);
  const int parent = vr == 0 ? -1 : tree::absolute(tree::parent(vr), a.root, n);
  if (vr != 0 && sub == 1) {
    return PMPI_Send(a.sendbuf, a.sendcount, a.sendtype, parent, kTagGather, a.shadow);
  }

  int rc = MPI_SUCCESS;
  std::vector<char> tmp;
  char* data = nullptr;  // packed blocks of relative ranks [vr, vr + sub)
  bool direct = false;   // root 0 with a dense receive type: blocks land in recvbuf
  if (vr == 0) {
    bool dense = false;
    if ((rc = dt::is_dense(a.recvtype, &dense)) != MPI_SUCCESS) return rc;
    direct = a.root == 0 && dense;
    if (direct) {
      data = static_cast<char*>(a.recvbuf);
    } else {
      tmp.resize(n * bb);
      data = tmp.data();
    }
  } else {
    tmp.resize(sub * bb);
    data = tmp.data();
    rc = dt::pack(a.sendbuf, a.sendcount, a.sendtype, data, bb, a.shadow);
    if (rc != MPI_SUCCESS) return rc;
  }

  // Allocation before the first message: requests and the root's local copy.
  std::vector<MPI_Request> reqs;
  reqs.reserve(32);
  dt::LocalCopy own_copy;
  if (vr == 0 && a.sendbuf != MPI_IN_PLACE) {
    const void* own = nullptr;
    rc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, a.root, &own);
    if (rc == MPI_SUCCESS) {
      rc = own_copy.prepare(a.sendbuf, a.sendcount, a.sendtype, const_cast<void*>(own), a.recvcount,
                            a.recvtype, bb, a.shadow);
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  tree::for_each_child_asc(vr, n, [&](int child, int csize) {
    if (rc != MPI_SUCCESS) return;
    MPI_Request r;
    rc = PMPI_Irecv(data + (child - vr) * bb, static_cast<int>(csize * bb), MPI_PACKED,
                    tree::absolute(child, a.root, n), kTagGather, a.shadow, &r);
    if (rc == MPI_SUCCESS) reqs.push_back(r);
  });
  if (rc == MPI_SUCCESS) rc = own_copy.run();
  const int wrc = PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  if (wrc != MPI_SUCCESS) return wrc;

  if (vr != 0) {
    return PMPI_Send(data, static_cast<int>(sub * bb), MPI_PACKED, parent, kTagGather, a.shadow);
  }
  if (!direct) {
    for (int i = 1; i < n && rc == MPI_SUCCESS; ++i) {
      const void* block = nullptr;
      rc = dt::block_address(a.recvbuf, a.recvcount, a.recvtype, (a.root + i) % n, &block);
      if (rc == MPI_SUCCESS) {
        rc = dt::unpack(data + i * bb, bb, const_cast<void*>(block), a.recvcount, a.recvtype,
                        a.shadow);
      }
    }
  }
  return rc;
}

}  // namespace colltune

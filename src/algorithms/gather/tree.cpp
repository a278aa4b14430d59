// gather along any tree (src/algorithms/shape.hpp: a fixed shape or a built tree), the mirror of
// scatter: a leaf sends its block with its own datatype; an inner node packs its block, receives
// each child's subtree as MPI_PACKED next to it and sends the whole subtree to its parent. The root
// receives a child whose subtree is itself alone straight into that block of the receive buffer
// (user datatype); larger subtrees arrive packed, straight into the receive buffer when positions
// are ranks with a dense type, else into a buffer unpacked in rank order. Every buffer is allocated
// before the first message. A rank without valid data for its subtree (a local failure, a failed
// receive, a child's notice) consumes its children's messages and sends its parent a notice
// (src/algorithms/tree_notice.hpp). Paced (a segment size, BuiltTree::segment): each child of
// the root sends its subtree packed in segments, each but the first after the root's empty
// credit (kTagCredit) for it; the root credits a child as each segment lands, every block
// arrives packed, and a root that cannot take the data still consumes every segment and
// credits it. A notice replaces a child's first segment.
#include <algorithm>
#include <vector>

#include "../datatype.hpp"
#include "../registry.hpp"
#include "../tree_notice.hpp"
#include "../waits.hpp"

namespace colltune {

namespace {

// Whether some child's message to the root travels in more than one segment (a child of one
// segment sends it whole, as unpaced).
bool paced(const CollArgs& a, const TreeView& t) {
  if (t.segment() == 0) return false;  // every unsegmented tree: no walk over the children
  bool more = false;
  for_each_child(t, 0, [&](int, int csub) {
    more |= static_cast<std::uint64_t>(csub) * a.block_bytes > t.segment();
  });
  return more;
}

// A child of a paced root: its subtree's `bytes` packed at data, in segments, each but the
// first after the root's credit.
int send_paced(const char* data, std::uint64_t bytes, std::uint64_t seg, int parent,
               MPI_Comm comm) {
  for (std::uint64_t off = 0; off < bytes; off += seg) {
    int rc = MPI_SUCCESS;
    if (off > 0 && (rc = waits::recv(nullptr, 0, MPI_BYTE, parent, kTagCredit, comm,
                                     MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
      return rc;
    }
    const int len = static_cast<int>(std::min(seg, bytes - off));
    if ((rc = waits::send(data + off, len, MPI_PACKED, parent, kTagGather, comm)) != MPI_SUCCESS) {
      return rc;
    }
  }
  return MPI_SUCCESS;
}

// Consumes src's segments at [off, end) (truncated, no buffer), the first already credited
// (or the first of the call), crediting each later one, until the last or a notice.
int drain_segments(int src, std::uint64_t off, std::uint64_t end, std::uint64_t seg,
                   MPI_Comm comm) {
  for (std::uint64_t o = off; o < end; o += seg) {
    if (o > off) {
      const int crc = waits::send(nullptr, 0, MPI_BYTE, src, kTagCredit, comm);
      if (crc != MPI_SUCCESS) return crc;
    }
    MPI_Status st;
    const int drc = waits::recv(nullptr, 0, MPI_BYTE, src, MPI_ANY_TAG, comm, &st);
    if (drc != MPI_SUCCESS && !has_class(drc, MPI_ERR_TRUNCATE)) return drc;
    if (st.MPI_TAG == kTagFail) break;
  }
  return MPI_SUCCESS;
}

// A paced root that cannot take the data: each child's segments consumed and credited, one
// child after another. Returns the first error, `rc` first.
int drain_paced(int rc, const CollArgs& a, const TreePos& pos, std::uint64_t seg) {
  for_each_child(pos.t, 0, [&](int c, int csub) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(csub) * a.block_bytes;
    rc = first_error(rc, drain_segments(pos.rank_of(c), 0, bytes, seg, a.shadow));
  });
  return rc;
}

// A paced root: every child's subtree into data + (child's position) * block_bytes, segment
// after segment, each child credited as its segment lands (the others' keep arriving). A
// segment whose receive cannot be posted, and every later one of that child, is consumed and
// credited at the end (drain_segments); a segment that arrives with an error is counted as
// landed, so that no child waits for a credit.
int recv_paced(const CollArgs& a, const TreePos& pos, char* data, std::uint64_t seg) {
  const int nc = child_count(pos.t, 0);
  Requests reqs;
  int rc = reqs.reserve(nc);
  std::vector<std::uint64_t> off, end;  // per child: where its next segment lands, its end
  std::vector<int> src;
  std::vector<char> later;  // per child: its segments from off on are drained at the end
  if (rc == MPI_SUCCESS) {
    try {
      off.resize(nc), end.resize(nc), src.resize(nc), later.assign(nc, 0);
    } catch (const std::exception&) {
      rc = MPI_ERR_NO_MEM;
    }
  }
  if (rc != MPI_SUCCESS) return drain_paced(rc, a, pos, seg);
  const auto post = [&](int i) {
    const int len = static_cast<int>(std::min(seg, end[i] - off[i]));
    MPI_Request* r = reqs.requests() + i;
    const int prc = PMPI_Irecv(data + off[i], len, MPI_PACKED, src[i], MPI_ANY_TAG, a.shadow, r);
    if (prc != MPI_SUCCESS) *r = MPI_REQUEST_NULL, later[i] = 1;
    return prc;
  };
  int k = 0;
  for_each_child(pos.t, 0, [&](int c, int csub) {
    src[k] = pos.rank_of(c);
    off[k] = static_cast<std::uint64_t>(c) * a.block_bytes;
    end[k] = off[k] + static_cast<std::uint64_t>(csub) * a.block_bytes;
    reqs.push(MPI_REQUEST_NULL);
    rc = first_error(rc, post(k));
    ++k;
  });
  for (;;) {
    int i = MPI_UNDEFINED;
    MPI_Status st;
    const int wrc = waits::waitany(nc, reqs.requests(), &i, &st);
    if (i == MPI_UNDEFINED) {
      rc = first_error(rc, wrc);
      break;
    }
    if (wrc != MPI_SUCCESS) {
      rc = first_error(rc, wrc);
    } else if (st.MPI_TAG == kTagFail) {  // no more from this child
      if (a.notice_from < 0) a.notice_from = src[i];
      rc = first_error(rc, kErrPeerFailed);
      continue;
    } else if (st.MPI_TAG != kTagGather) {
      rc = first_error(rc, MPI_ERR_INTERN);
    }
    off[i] += seg;
    if (off[i] >= end[i]) continue;
    const int crc = waits::send(nullptr, 0, MPI_BYTE, src[i], kTagCredit, a.shadow);
    rc = first_error(rc, crc == MPI_SUCCESS ? post(i) : crc);
  }
  for (int i = 0; i < nc; ++i) {
    if (later[i]) rc = first_error(rc, drain_segments(src[i], off[i], end[i], seg, a.shadow));
  }
  return rc;
}

// The root's local steps before its first message: where packed subtrees land (*data, *direct)
// and its own block's copy prepared.
int prepare_root(const CollArgs& a, const TreeView& t, std::vector<char>& tmp, char** data,
                 bool* direct, dt::LocalCopy& own_copy) {
  bool dense = false, packed_children = paced(a, t);
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
  const std::uint64_t seg = t.segment();
  // This rank's message to the root in more than one segment; the root: some child's.
  const bool pace =
      vr == 0 ? paced(a, t)
              : seg > 0 && t.parent(vr) == 0 && static_cast<std::uint64_t>(sub) * bb > seg;
  if (vr != 0 && sub == 1) {  // a leaf: no local step before its one message
    if (!pace) return waits::send(a.sendbuf, a.sendcount, a.sendtype, parent, kTagGather, a.shadow);
    bool dense = false;  // paced: its bytes as they lie, else packed below
    if (dt::is_dense(a.sendtype, &dense) == MPI_SUCCESS && dense) {
      return send_paced(static_cast<const char*>(a.sendbuf), bb, seg, parent, a.shadow);
    }
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
    rc = vr == 0 && pace ? drain_paced(rc, a, pos, seg) : notice::drain_children(rc, pos, a.shadow);
    return vr == 0 ? rc : first_error(rc, notice::send(parent, a.shadow));
  }
  if (vr == 0 && pace) {
    rc = first_error(recv_paced(a, pos, data, seg), own_copy.run());
    if (rc != MPI_SUCCESS || direct) return rc;
  } else {
    for_each_child(t, vr, [&](int c, int csub) {
      MPI_Request r;
      int src = MPI_SUCCESS;
      if (vr == 0 && csub == 1) {
        const void* block = nullptr;
        const int brc =
            dt::block_address(a.recvbuf, a.recvcount, a.recvtype, pos.rank_of(c), &block);
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
    const int wrc = waits::waitall(reqs.size(), reqs.requests(), reqs.statuses());
    rc = first_error(rc, notice::check_received(wrc, kTagGather, reqs.requests(), reqs.statuses(),
                                                reqs.size(), &a.notice_from));
    if (vr != 0) {
      if (rc != MPI_SUCCESS) return first_error(rc, notice::send(parent, a.shadow));
      if (pace) return send_paced(data, sub * bb, seg, parent, a.shadow);
      return waits::send(data, static_cast<int>(sub * bb), MPI_PACKED, parent, kTagGather,
                         a.shadow);
    }
    if (rc != MPI_SUCCESS || direct) return rc;
  }
  for_each_child(t, 0, [&](int c, int csub) {
    for (int b = c; (csub > 1 || pace) && b < c + csub && rc == MPI_SUCCESS; ++b) {
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

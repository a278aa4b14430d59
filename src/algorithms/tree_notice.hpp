// Failure notices of the tree executors (src/algorithms/<op>/tree.cpp), so that a rank that fails
// leaves no peer waiting, whatever the error handler. Contract: in every call, each tree edge
// carries exactly one message on the shadow communicator, from the side that sends data: the data
// (the op's tag) or, when the sender has no valid data for the receiver, an empty notice
// (kTagFail). Receivers take it with MPI_ANY_TAG from the named source; a rank that cannot receive
// (its buffer failed) still consumes it with an empty receive (data arrives truncated). A rank that
// gets a notice returns kErrPeerFailed and passes notices on. No extra message when nothing
// fails: the notice replaces the data. A send that itself fails gets no notice after it (its
// message may be on the way): the protocol covers failures before a rank's message, not in it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <vector>

#include "collective.hpp"
#include "registry.hpp"
#include "shape.hpp"
#include "waits.hpp"

namespace colltune {

// Returned by a rank whose result is not valid because a peer failed in the same call, as
// MPICH's own collectives do; CollArgs::notice_from names the peer.
inline constexpr int kErrPeerFailed = MPI_ERR_OTHER;

inline int first_error(int rc, int next) { return rc != MPI_SUCCESS ? rc : next; }

inline bool has_class(int code, int cls) {
  int c = MPI_SUCCESS;
  return PMPI_Error_class(code, &c) == MPI_SUCCESS && c == cls;
}

// `v` resized to `n` bytes: MPI_SUCCESS, or MPI_ERR_NO_MEM (nothing thrown).
inline int resize_bytes(std::vector<char>& v, std::size_t n) noexcept {
  try {
    v.resize(n);
    return MPI_SUCCESS;
  } catch (const std::exception&) {
    return MPI_ERR_NO_MEM;
  }
}

// Requests and their statuses for one call: inline up to 32, else one heap block.
class Requests {
 public:
  Requests() = default;
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  // Room for `n` requests: MPI_SUCCESS, or MPI_ERR_NO_MEM (nothing thrown).
  int reserve(int n) noexcept {
    if (n <= kInline) return MPI_SUCCESS;
    try {
      heap_req_ = std::make_unique<MPI_Request[]>(n);
      heap_st_ = std::make_unique<MPI_Status[]>(n);
    } catch (const std::exception&) {
      return MPI_ERR_NO_MEM;
    }
    req_ = heap_req_.get();
    st_ = heap_st_.get();
    return MPI_SUCCESS;
  }
  void push(MPI_Request r) noexcept { req_[size_++] = r; }
  int size() const noexcept { return size_; }
  MPI_Request* requests() noexcept { return req_; }
  MPI_Status* statuses() noexcept { return st_; }

 private:
  static constexpr int kInline = 32;
  MPI_Request inline_req_[kInline];
  MPI_Status inline_st_[kInline];
  std::unique_ptr<MPI_Request[]> heap_req_;
  std::unique_ptr<MPI_Status[]> heap_st_;
  MPI_Request* req_ = inline_req_;
  MPI_Status* st_ = inline_st_;
  int size_ = 0;
};

namespace notice {

// Receives src's one message of this call into (buf, count, type): MPI_SUCCESS with the data,
// kErrPeerFailed after a notice (*from = src), else the receive's error.
inline int recv(void* buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                int* from) {
  MPI_Status st;
  const int rc = waits::recv(buf, count, type, src, MPI_ANY_TAG, comm, &st);
  if (rc != MPI_SUCCESS || st.MPI_TAG == tag) return rc;
  if (st.MPI_TAG != kTagFail) return MPI_ERR_INTERN;
  *from = src;
  return kErrPeerFailed;
}

// Consumes src's one message of this call, data (truncated) or notice, without a buffer.
inline int drain(int src, MPI_Comm comm) {
  const int rc = waits::recv(nullptr, 0, MPI_BYTE, src, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
  return rc == MPI_SUCCESS || has_class(rc, MPI_ERR_TRUNCATE) ? MPI_SUCCESS : rc;
}

// Posts the empty receive of drain() for src's one message of this call.
inline int idrain(int src, MPI_Comm comm, MPI_Request* r) {
  return PMPI_Irecv(nullptr, 0, MPI_BYTE, src, MPI_ANY_TAG, comm, r);
}

inline int send(int dst, MPI_Comm comm) {
  return waits::send(nullptr, 0, MPI_BYTE, dst, kTagFail, comm);
}
inline int isend(int dst, MPI_Comm comm, MPI_Request* r) {
  return PMPI_Isend(nullptr, 0, MPI_BYTE, dst, kTagFail, comm, r);
}

// Top-down (bcast, scatter), a rank without valid data for its subtree: every child gets the
// notice (blocking sends: no request storage needed). Returns the first error, `rc` first.
inline int notify_children(int rc, const TreePos& pos, MPI_Comm comm) {
  for_each_child(pos.t, pos.vr,
                 [&](int c, int) { rc = first_error(rc, send(pos.rank_of(c), comm)); });
  return rc;
}

// Bottom-up (gather), a rank that cannot take its children's data: each child's message is
// consumed (blocking receives). Returns the first error, `rc` first.
inline int drain_children(int rc, const TreePos& pos, MPI_Comm comm) {
  for_each_child(pos.t, pos.vr,
                 [&](int c, int) { rc = first_error(rc, drain(pos.rank_of(c), comm)); });
  return rc;
}

// After PMPI_Waitall (its code `wrc`) on `count` receives posted with MPI_ANY_TAG: the first
// error, kErrPeerFailed for a notice (*from = its source), a truncated drain's included.
int check_received(int wrc, int tag, MPI_Request* reqs, MPI_Status* st, int count, int* from);

}  // namespace notice
}  // namespace colltune

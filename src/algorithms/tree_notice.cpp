#include "tree_notice.hpp"

#include "waits.hpp"

namespace colltune {

namespace notice {

int check_received(int wrc, int tag, MPI_Request* reqs, MPI_Status* st, int count, int* from) {
  // Another error than MPI_ERR_IN_STATUS leaves the statuses undefined: only wrc is known.
  if (wrc != MPI_SUCCESS && !has_class(wrc, MPI_ERR_IN_STATUS)) return wrc;
  int rc = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    int e = MPI_SUCCESS;
    if (wrc != MPI_SUCCESS) {
      e = st[i].MPI_ERROR;
      if (e != MPI_SUCCESS && has_class(e, MPI_ERR_PENDING)) e = waits::wait(&reqs[i], &st[i]);
    }
    if (e == MPI_SUCCESS && st[i].MPI_TAG == kTagFail) {
      e = kErrPeerFailed;
      if (*from < 0) *from = st[i].MPI_SOURCE;
    } else if (e == MPI_SUCCESS && st[i].MPI_TAG != tag) {
      e = MPI_ERR_INTERN;
    }
    rc = first_error(rc, e);
  }
  return rc;
}

}  // namespace notice
}  // namespace colltune

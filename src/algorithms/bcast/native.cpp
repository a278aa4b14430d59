// native bcast: MPICH's own MPI_Bcast (PMPI pass-through on the user's communicator).
// Cost: whatever MPICH selects (binomial, scatter + ring/recursive-doubling allgather, ...).
#include "../registry.hpp"
#include "../waits.hpp"

namespace colltune {

int bcast_native(const CollArgs& a) {
  if (!waits::may_block()) return waits::kErrAbandoned;  // a guard gave up (waits.hpp)
  return PMPI_Bcast(a.recvbuf, a.recvcount, a.recvtype, a.root, a.comm);
}

}  // namespace colltune

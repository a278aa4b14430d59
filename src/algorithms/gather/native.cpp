// native gather: MPICH's own MPI_Gather (binomial for intracommunicators in MPICH 4.0.2).
#include "../registry.hpp"
#include "../waits.hpp"

namespace colltune {

int gather_native(const CollArgs& a) {
  if (!waits::may_block()) return waits::kErrAbandoned;  // a guard gave up (waits.hpp)
  return PMPI_Gather(a.sendbuf, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype, a.root,
                     a.comm);
}

}  // namespace colltune

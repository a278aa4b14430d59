// native gather: MPICH's own MPI_Gather (binomial for intracommunicators in MPICH 4.0.2).
#include "../registry.hpp"

namespace colltune {

int gather_native(const CollArgs& a) {
  return PMPI_Gather(a.sendbuf, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype, a.root,
                     a.comm);
}

}  // namespace colltune

// native scatter: MPICH's own MPI_Scatter (binomial for intracommunicators in MPICH 4.0.2).
#include "../registry.hpp"

namespace colltune {

int scatter_native(const CollArgs& a) {
  return PMPI_Scatter(a.sendbuf, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype,
                      a.root, a.comm);
}

}  // namespace colltune

#include "link.hpp"

#include <algorithm>
#include <vector>

#include "../bench/experiments.hpp"

namespace colltune::calibrate {

int measure_link(MPI_Comm comm, int m, const bench::Adaptive& a, LinkTimes* out) {
  int size = 0;
  int rc = PMPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return rc;
  if (size != 2) return MPI_ERR_COMM;
  if (m < 1) return MPI_ERR_COUNT;
  std::vector<bench::PairResult> empty, full;
  if ((rc = bench::roundtrips(comm, 0, 0, false, a, &empty)) != MPI_SUCCESS) return rc;
  if ((rc = bench::roundtrips(comm, m, 0, false, a, &full)) != MPI_SUCCESS) return rc;
  if (empty.size() != 1 || full.size() != 1) return MPI_ERR_INTERN;
  const double rt0 = empty[0].stats.mean, rtm = full[0].stats.mean;
  out->fixed = rt0 / 2;
  out->per_byte = std::max(0.0, (rtm - rt0) / m);
  out->reps = std::max(empty[0].reps, full[0].reps);
  return MPI_SUCCESS;
}

}  // namespace colltune::calibrate

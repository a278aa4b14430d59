#include "link.hpp"

#include <algorithm>
#include <vector>

#include "../bench/experiments.hpp"

namespace colltune::calibrate {

LinkTimes fit_link(double rt0, double rts, double s, double rtm, double m) {
  LinkTimes l;
  l.fixed = rt0 / 2;
  l.per_byte = std::max(0.0, (rtm - rt0) / m);
  if (!(s > 0 && s < m)) return l;
  const double slope = (rtm - rts) / (m - s);
  if (!(slope > 0)) return l;  // nothing above s to fit a hinge to
  l.free = std::clamp(s - (rts - rt0) / slope, 0.0, s);
  l.per_byte = std::max(0.0, (rtm - rt0) / (m - l.free));
  return l;
}

int measure_link(MPI_Comm comm, int m, int s, const bench::Adaptive& a, LinkTimes* out) {
  int size = 0;
  int rc = PMPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return rc;
  if (size != 2) return MPI_ERR_COMM;
  if (m < 1) return MPI_ERR_COUNT;
  const bool small = s > 0 && s < m;
  std::vector<bench::PairResult> empty, part, full;
  if ((rc = bench::roundtrips(comm, 0, 0, false, a, &empty)) != MPI_SUCCESS) return rc;
  if (small && (rc = bench::roundtrips(comm, s, 0, false, a, &part)) != MPI_SUCCESS) return rc;
  if ((rc = bench::roundtrips(comm, m, 0, false, a, &full)) != MPI_SUCCESS) return rc;
  if (empty.size() != 1 || full.size() != 1 || part.size() != (small ? 1u : 0u)) {
    return MPI_ERR_INTERN;
  }
  const double rts = small ? part[0].stats.mean : 0;
  *out = fit_link(empty[0].stats.mean, rts, small ? s : 0, full[0].stats.mean, m);
  out->reps = std::max({empty[0].reps, full[0].reps, small ? part[0].reps : 0});
  return MPI_SUCCESS;
}

}  // namespace colltune::calibrate

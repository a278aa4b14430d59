// One link measured again after calibration (colltune-predict measure-link, docs/forecast.md
// "Link age"): the two processes of a communicator, with the LMO experiments calibration uses.
#pragma once

#include <mpi.h>

#include "../bench/stats.hpp"

namespace colltune::calibrate {

struct LinkTimes {
  double fixed = 0, per_byte = 0;  // a message of m bytes from rank 0 to 1: fixed + m per_byte
  int reps = 0;                    // repetitions of the slower series
};

// Collective over `comm` (exactly 2 ranks): empty roundtrips and roundtrips of m bytes out and
// nothing back, adaptive series (the median); fixed = rt(0,0) / 2, per_byte = (rt(m,0) -
// rt(0,0)) / m (at least 0), as calibration derives C_i + C_j and t_i + 1/beta_ij + t_j. The
// result on both ranks; MPI error codes (MPI_ERR_COMM: not 2 ranks, MPI_ERR_COUNT: m < 1).
int measure_link(MPI_Comm comm, int m, const bench::Adaptive& a, LinkTimes* out);

}  // namespace colltune::calibrate

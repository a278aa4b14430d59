// One link measured again after calibration (colltune-predict measure-link, docs/forecast.md
// "Link age"): the two processes of a communicator, with the LMO experiments calibration uses.
#pragma once

#include <mpi.h>

#include "../bench/stats.hpp"

namespace colltune::calibrate {

// A message of m bytes from rank 0 to 1: fixed + max(0, m - free) per_byte.
struct LinkTimes {
  double fixed = 0, per_byte = 0, free = 0;
  int reps = 0;  // repetitions of the slowest series
};

// The link from roundtrips of 0, s and m bytes out and nothing back (rt0, rts, rtm; s in
// (0, m), else s is not used): fixed = rt0 / 2; without s, per_byte = (rtm - rt0) / m, as
// calibration derives C_i + C_j and t_i + 1/beta_ij + t_j; with s, the hinge where the line
// through s and m meets rt0, free = s - (rts - rt0) / slope within [0, s], and per_byte
// = (rtm - rt0) / (m - free), so that m is met exactly (docs/forecast.md "Small messages").
LinkTimes fit_link(double rt0, double rts, double s, double rtm, double m);

// Collective over `comm` (exactly 2 ranks): empty roundtrips and roundtrips of s (when 0 < s <
// m) and m bytes out and nothing back, adaptive series (the median), fitted by fit_link. The
// result on both ranks; MPI error codes (MPI_ERR_COMM: not 2 ranks, MPI_ERR_COUNT: m < 1).
int measure_link(MPI_Comm comm, int m, int s, const bench::Adaptive& a, LinkTimes* out);

}  // namespace colltune::calibrate

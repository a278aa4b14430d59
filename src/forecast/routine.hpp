// Forecasts of ScaLAPACK routines on a calibrated platform (FAST's parallel routine models,
// docs/forecast.md): PDGEMM on a p x q process grid with block size R, its computation from the
// computation model (comp.hpp) and its broadcasts as BLACS runs them for such sizes, each
// process's clock walked step by step on the LMO links (comm.hpp). No MPI, no files.
#pragma once

#include <span>
#include <vector>

#include "comm.hpp"
#include "comp.hpp"

namespace colltune::forecast {

struct Grid {
  int p = 1, q = 1;  // process rows and columns; rank r is (r / q, r % q), BLACS's row-major
};

struct RoutineForecast {
  double seconds = 0;         // the last process's end
  double compute = 0;         // the busiest process's dgemm time
  double bytes = 0;           // the largest process's local A, B, C and panel buffers
  bool extrapolated = false;  // some dgemm outside the sizes the computation model saw
};

// C = A B + C, A M x K, B K x N, on grid g of the first p q ranks (rank r on identity
// ranks[r] of links), blocks R x R distributed block-cyclically from process (0, 0). K / R
// steps: the process column owning A's k-th block column sends each process row its part along
// the row, the process row owning B's k-th block row each process column its part along the
// column, then every process multiplies (dgemm of its local rows x its local columns x the
// panel's width). Broadcasts are BLACS's increasing ring, which PDGEMM forces when M, N and K
// all exceed 32: the whole panel from the owner to the next process of the row (column) in
// increasing order, each forwarding it once received; a send holds its sender until the
// message has arrived. Every process keeps its own clock: a transfer starts when both its
// sender and its receiver are free. Needs M, N, K > 32 (else PDGEMM calls MPI_Bcast: not
// modelled), p q <= ranks.size(), and a dgemm model in comp.
RoutineForecast pdgemm(const LinkGraph& links, std::span<const int> ranks, const CompModel& comp,
                       Grid g, double M, double N, double K, double R);

// The local extent of n rows (columns) in blocks of nb on process `iproc` of `nprocs`
// (ScaLAPACK's NUMROC, first block on process 0).
double numroc(double n, double nb, int iproc, int nprocs);

struct BestCase {
  Grid grid;
  double R = 0;
  RoutineForecast forecast;
};
// Every grid p x q with p q <= P and every block size of Rs, fastest first (FAST's
// fast_parallel_comp_time_best).
std::vector<BestCase> best_pdgemm(const LinkGraph& links, std::span<const int> ranks,
                                  const CompModel& comp, int P, double M, double N, double K,
                                  std::span<const double> Rs);

}  // namespace colltune::forecast

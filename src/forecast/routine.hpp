// Forecasts of ScaLAPACK routines on a calibrated platform (FAST's parallel routine models,
// docs/forecast.md): PDGEMM on a p x q process grid with block size R, its computation from the
// computation model (comp.hpp) and its broadcasts as BLACS runs them for such sizes, each
// process's clock walked step by step on the LMO links (comm.hpp). No MPI, no files.
#pragma once

#include <span>
#include <string>
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

// PBLAS's logical block size (PILAENV): PDGEMM's panels are this wide whatever R is.
inline constexpr double kPblasPanel = 32;

// C = A B + C, A M x K, B K x N, on grid g of the first p q ranks (rank r on identity
// ranks[r] of links), blocks R x R distributed block-cyclically from process (0, 0), as PBLAS's
// PB_CpgemmAB runs it (the variant PDGEMM picks for operands of comparable sizes): K taken
// owner by owner as its virtual processes go (every block of process column 0 and process row 0,
// then of row 1 and column 0, ..., rows within columns), in panels of kPblasPanel columns of A
// (rows of B), each piece of a panel broadcast from the process
// column owning it along every process row (and from the owning process row along every process
// column), then every process multiplies (dgemm of its local rows x local columns x the panel's
// width); when neither A nor B spans more than one process, one local multiply. Broadcasts are
// BLACS's increasing ring, which PDGEMM forces when M, N and K all exceed 32: the whole piece
// from the owner to the next process in increasing order, each forwarding it once received; a
// message above `eager` bytes (the MPI's rendezvous threshold; default 0: every message)
// starts when both its sender and its receiver are free and holds both until it has arrived;
// one of at most `eager` bytes frees its sender after the sender's own cost (o_i + t_i m) and
// arrives a message's time after it left the sender's port, one message at a time per link and
// per receiver (clocks.hpp). Every process keeps its own clock.
// Needs M, N, K > 32 (else PDGEMM calls MPI_Bcast: not modelled), p q <= ranks.size(), and a
// dgemm model in comp.
RoutineForecast pdgemm(const LinkGraph& links, std::span<const int> ranks, const CompModel& comp,
                       Grid g, double M, double N, double K, double R, double eager = 0);

// The local extent of n rows (columns) in blocks of nb on process `iproc` of `nprocs`
// (ScaLAPACK's NUMROC, first block on process 0).
double numroc(double n, double nb, int iproc, int nprocs);

// Which side of X the triangular A is on, which triangle it is, and whether it is transposed:
// op(A) X = B (side L) or X op(A) = B (side R), A triangular and not unit, X and B M x N.
struct Trsm {
  char side = 'L', uplo = 'U', trans = 'N';
};

// Why PDTRSM's forecast is not modelled for this call on grid g, or "" when it is. PDTRSM picks
// between PB_CptrsmAB (A and B communicated) and PB_CptrsmB (B only, with BLACS combines) by its
// estimate of the communication volume; modelled without transposition: PB_CptrsmAB, and
// PB_CptrsmB on one process row (where the estimate picks it).
std::string pdtrsm_unmodelled(Grid g, Trsm t, double M, double N, double R);

// op(A) X = B or X op(A) = B on grid g (ranks as for pdgemm), blocks R x R, as PB_CptrsmAB runs
// it without transposition: panels of kPblasPanel rows (left) or columns (right) of B in the
// order the triangle imposes; per panel, A's panel broadcast along every process row (left;
// columns for right) from the process column owning it, the process row owning the panel solves
// its part (dtrsm), the solved panel broadcast along every process column (rows), and every
// process updates the rest of its B (dgemm). Rings as PDTRSM forces them: increasing for a
// lower (left) or upper (right) A, decreasing otherwise; messages as for pdgemm. On one process
// row PB_CptrsmB as docs/forecast.md ("PDTRSM on one process row") walks it. Needs
// pdtrsm_unmodelled(...) == "" and dgemm and dtrsm in comp (an add it lacks counts 0 s).
RoutineForecast pdtrsm(const LinkGraph& links, std::span<const int> ranks, const CompModel& comp,
                       Grid g, Trsm t, double M, double N, double R, double eager = 0);

struct BestCase {
  Grid grid;
  double R = 0;
  RoutineForecast forecast;
};
// The most processes of grid g's ranks on one identity (host): the occupancy whose
// computation model the grid's kernels run at (for_occupancy).
int busiest_host(std::span<const int> ranks, Grid g);

// Every grid p x q with p q <= P and every block size of Rs, fastest first (FAST's
// fast_parallel_comp_time_best), each with the computation model of comps for its occupancy.
std::vector<BestCase> best_pdgemm(const LinkGraph& links, std::span<const int> ranks,
                                  std::span<const CompModel> comps, int P, double M, double N,
                                  double K, std::span<const double> Rs, double eager = 0);
// The same for PDTRSM; the grids where it is not modelled are left out.
std::vector<BestCase> best_pdtrsm(const LinkGraph& links, std::span<const int> ranks,
                                  std::span<const CompModel> comps, int P, Trsm t, double M,
                                  double N, std::span<const double> Rs, double eager = 0);

}  // namespace colltune::forecast

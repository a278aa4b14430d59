/* An unmodified ScaLAPACK solver as an application (docs/app-models.md "pdgesv"): A x = b with
 * PDGESV (LU with partial pivoting, then the two triangular solves) on a p x q BLACS grid,
 * A N x N random in [-0.5, 0.5) (pivoting exchanges rows), b its row sums (x = 1), blocks
 * NB x NB. One warm-up solve (window 1 of MPI_Pcontrol), then the timed one (window 2) on a
 * fresh A, from a barrier to the slowest process's end. Prints, from rank 0:
 *   pdgesv N NB p q seconds error warmup_seconds
 * error: max |x_i - 1|; above 1e-6 the run fails (exit 1). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../blacs.h"

void pdgesv_(const int *, const int *, double *, const int *, const int *, const int *, int *,
             double *, const int *, const int *, const int *, int *);

static double entry(int i, int j) {
  unsigned h = (unsigned)i * 2654435761u ^ ((unsigned)j * 40503u + 0x9e3779b9u);
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (h & 0xffffff) / 16777216.0 - 0.5;
}

/* Global index of local index l in blocks of nb over np processes, this one at `me`. */
static int global(int l, int nb, int me, int np) { return (l / nb * np + me) * nb + l % nb; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5) {
    if (rank == 0) fprintf(stderr, "usage: pdgesv N NB P Q (P x Q = the process count)\n");
    MPI_Finalize();
    return 2;
  }
  const int n = atoi(argv[1]), nb = atoi(argv[2]), p = atoi(argv[3]), q = atoi(argv[4]);
  if (n < 1 || nb < 1 || p < 1 || q < 1 || p * q != size) {
    if (rank == 0) fprintf(stderr, "pdgesv: N >= 1, NB >= 1, P x Q = %d processes\n", size);
    MPI_Finalize();
    return 2;
  }
  int ctxt, nprow, npcol, myrow, mycol, info = 0;
  const int zero = 0, one = 1;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", p, q);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  const int lr = numroc_(&n, &nb, &myrow, &zero, &nprow);
  const int lc = numroc_(&n, &nb, &mycol, &zero, &npcol);
  const int lcb = numroc_(&one, &nb, &mycol, &zero, &npcol);
  const int lld = lr > 1 ? lr : 1;
  int desca[9], descb[9];
  descinit_(desca, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  descinit_(descb, &n, &one, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  double *a = malloc(sizeof(double) * (size_t)lld * (lc > 0 ? lc : 1));
  double *b = malloc(sizeof(double) * (size_t)lld);
  double *sums = malloc(sizeof(double) * (size_t)lld);
  int *ipiv = malloc(sizeof(int) * (size_t)(lr + nb));
  if (!a || !b || !sums || !ipiv) {
    fprintf(stderr, "pdgesv: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int il = 0; il < lr; ++il) {  // b = A times ones: each process row's rows in full
    const int i = global(il, nb, myrow, nprow);
    double s = 0;
    for (int j = 0; j < n; ++j) s += entry(i, j);
    sums[il] = s;
  }
  double seconds = 0, err = 0, warmup = 0;
  for (int w = 1; w <= 2; ++w) {
    for (int jl = 0; jl < lc; ++jl) {
      const int j = global(jl, nb, mycol, npcol);
      for (int il = 0; il < lr; ++il)
        a[(size_t)jl * lld + il] = entry(global(il, nb, myrow, nprow), j);
    }
    for (int il = 0; il < lr; ++il) b[il] = lcb > 0 ? sums[il] : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1); /* a profiler's window (colltune's recorder): the solver alone */
    const double t0 = MPI_Wtime();
    pdgesv_(&n, &one, a, &one, &one, desca, ipiv, b, &one, &one, descb, &info);
    double t = MPI_Wtime() - t0;
    MPI_Pcontrol(0);
    if (w == 1) MPI_Allreduce(&t, &warmup, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (w == 2) MPI_Allreduce(&t, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (info != 0) {
      if (rank == 0) fprintf(stderr, "pdgesv: info %d\n", info);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  double mine = 0;
  for (int il = 0; lcb > 0 && il < lr; ++il) mine = fmax(mine, fabs(b[il] - 1));
  MPI_Allreduce(&mine, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("pdgesv %d %d %d %d %.6f %.3g %.6f\n", n, nb, p, q, seconds, err, warmup);
  free(a);
  free(b);
  free(sums);
  free(ipiv);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return err > 1e-6 ? 1 : 0;
}

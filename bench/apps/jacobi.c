/* A 2-D Jacobi stencil for colltune-predict app's validation (docs/app-models.md; its model:
 * config/apps/jacobi.yaml). An N x N grid of doubles, rows split over the P processes; each
 * iteration exchanges one halo row with each neighbour (MPI_Sendrecv down, then up), updates
 * the interior (5 flops a point), and every `check` iterations sums the residual
 * (MPI_Allreduce of 8 bytes). Prints one line from rank 0:
 *   jacobi N P iters seconds compute_seconds
 * seconds: the slowest rank's time from a barrier to its end; compute: its update loops.
 *   jacobi N ITERS CHECK */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: jacobi N ITERS CHECK\n");
    MPI_Finalize();
    return 2;
  }
  const int n = atoi(argv[1]), iters = atoi(argv[2]), check = atoi(argv[3]);
  if (n < size || iters < 1 || check < 1) {
    if (rank == 0) fprintf(stderr, "jacobi: N >= P, ITERS >= 1, CHECK >= 1\n");
    MPI_Finalize();
    return 2;
  }
  const int rows = n / size + (rank < n % size);
  /* rows + 2 halo rows of n doubles, twice (old and new). */
  double* a = calloc((size_t)(rows + 2) * n, sizeof(double));
  double* b = calloc((size_t)(rows + 2) * n, sizeof(double));
  if (!a || !b) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 1; i <= rows; ++i)
    for (int j = 0; j < n; ++j) a[(size_t)i * n + j] = (double)((rank * 31 + i * 7 + j) % 13);
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double compute = 0, residual = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Pcontrol(1); /* the timed region: COLLTUNE_RECORD_WINDOW=1 records it */
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    /* offset +1: send my last row down, receive my top halo from above; then -1. */
    MPI_Sendrecv(a + (size_t)rows * n, n, MPI_DOUBLE, down, 1, a, n, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a + (size_t)n, n, MPI_DOUBLE, up, 2, a + (size_t)(rows + 1) * n, n, MPI_DOUBLE,
                 down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double c0 = MPI_Wtime();
    double local = 0;
    for (int i = 1; i <= rows; ++i) {
      const double* p = a + (size_t)i * n;
      double* q = b + (size_t)i * n;
      for (int j = 1; j < n - 1; ++j) {
        q[j] = 0.25 * (p[j - 1] + p[j + 1] + p[j - n] + p[j + n]);
        local += (q[j] - p[j]) * (q[j] - p[j]);
      }
    }
    compute += MPI_Wtime() - c0;
    double* t = a;
    a = b;
    b = t;
    if ((it + 1) % check == 0) {
      MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  }
  MPI_Pcontrol(0);
  double mine[2] = {MPI_Wtime() - t0, compute}, worst[2];
  MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("jacobi %d %d %d %.6f %.6f %g\n", n, size, iters, worst[0], worst[1], residual);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}

/* The demo's unmodified application: loops of MPI_Bcast, MPI_Scatter and MPI_Gather at a few
 * sizes (bytes per process), root 0. Prints "op bytes us_per_call" (median of 5 batches). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int sizes[] = {16, 4096, 262144, 1048576};
  const char* ops[] = {"bcast", "scatter", "gather"};
  char* a = calloc((size_t)1048576 * size, 1);
  char* b = calloc((size_t)1048576 * size, 1);
  for (int o = 0; o < 3; ++o) {
    for (int s = 0; s < 4; ++s) {
      const int n = sizes[s], iters = n >= 262144 ? 20 : 500;
      double t[5];
      for (int k = -1; k < 5; ++k) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) {
          if (o == 0) MPI_Bcast(a, n, MPI_BYTE, 0, MPI_COMM_WORLD);
          if (o == 1) MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, MPI_COMM_WORLD);
          if (o == 2) MPI_Gather(b, n, MPI_BYTE, a, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        }
        double local = (MPI_Wtime() - t0) / iters, max = 0;
        MPI_Allreduce(&local, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (k >= 0) t[k] = max;
      }
      qsort(t, 5, sizeof(double), cmp);
      if (rank == 0) printf("%s %d %.3f\n", ops[o], n, t[2] * 1e6);
    }
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}

/* Interception overhead: a tight loop of MPI_Bcast calls of 0 and 8 bytes on MPI_COMM_WORLD.
 * An unmodified program; bench/overhead.sh runs it with and without libcolltune preloaded.
 * Prints ns per call for each size (median of 7 batches of N calls, rank 0's clock). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 200000;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char buf[8] = {0};
  const int sizes[2] = {0, 8};
  for (int s = 0; s < 2; ++s) {
    double batch[7];
    for (int i = 0; i < 1000; ++i) MPI_Bcast(buf, sizes[s], MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int b = 0; b < 7; ++b) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < n; ++i) MPI_Bcast(buf, sizes[s], MPI_BYTE, 0, MPI_COMM_WORLD);
      batch[b] = (MPI_Wtime() - t0) / n * 1e9;
    }
    qsort(batch, 7, sizeof(double), cmp);
    if (rank == 0) printf("bcast_%dB_ns %.1f\n", sizes[s], batch[3]);
  }
  MPI_Finalize();
  return 0;
}

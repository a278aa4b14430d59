/* Many calls of one size per op (COLLTUNE_VERIFY's first calls and after): bcast, scatter and
 * gather of BYTES bytes per process from root 0, ITERATIONS times each, every result checked.
 *   verify_app [BYTES [ITERATIONS]]                                    (defaults 65536, 300) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int bytes = argc > 1 ? atoi(argv[1]) : 65536;
  const int iterations = argc > 2 ? atoi(argv[2]) : 300;
  unsigned char* one = malloc(bytes);
  unsigned char* all = malloc((size_t)bytes * size);
  if (!one || !all) MPI_Abort(MPI_COMM_WORLD, 1);
  long bad = 0;
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < bytes; ++i) one[i] = rank == 0 ? (unsigned char)(i + it) : 0;
    MPI_Bcast(one, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < bytes; ++i) bad += one[i] != (unsigned char)(i + it);
    if (rank == 0) {
      for (size_t i = 0; i < (size_t)bytes * size; ++i) all[i] = (unsigned char)(i / bytes + it);
    }
    MPI_Scatter(all, bytes, MPI_BYTE, one, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < bytes; ++i) bad += one[i] != (unsigned char)(rank + it);
    for (int i = 0; i < bytes; ++i) one[i] = (unsigned char)(3 * rank + it);
    MPI_Gather(one, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      for (size_t i = 0; i < (size_t)bytes * size; ++i)
        bad += all[i] != (unsigned char)(3 * (i / bytes) + it);
    }
  }
  long total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("verify_app np=%d bytes=%d: %s (%ld bad bytes)\n", size, bytes, total ? "FAIL" : "PASS",
           total);
  free(one);
  free(all);
  MPI_Finalize();
  return total != 0;
}

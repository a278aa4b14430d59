/* MPI-4 large-count variants (MPI_Bcast_c, MPI_Scatter_c, MPI_Gather_c) reach the tuned path
 * when the bytes per process fit an int; results checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Count n = 3000;
  int* all = malloc(sizeof(int) * n * size);
  int* mine = malloc(sizeof(int) * n);
  for (MPI_Count i = 0; i < n; ++i) mine[i] = rank == 1 % size ? (int)i * 3 : -1;
  MPI_Bcast_c(mine, n, MPI_INT, 1 % size, MPI_COMM_WORLD);
  for (MPI_Count i = 0; i < n; ++i) bad += mine[i] != (int)i * 3;
  for (MPI_Count i = 0; i < n * size; ++i) all[i] = (int)i;
  MPI_Scatter_c(all, n, MPI_INT, mine, n, MPI_INT, 0, MPI_COMM_WORLD);
  for (MPI_Count i = 0; i < n; ++i) bad += mine[i] != (int)(rank * n + i);
  for (MPI_Count i = 0; i < n; ++i) mine[i] = -(int)(rank * n + i);
  MPI_Gather_c(mine, n, MPI_INT, all, n, MPI_INT, size - 1, MPI_COMM_WORLD);
  if (rank == size - 1)
    for (MPI_Count i = 0; i < n * size; ++i) bad += all[i] != -(int)i;
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("largecount np=%d: %d failed\n", size, total);
  free(all);
  free(mine);
  MPI_Finalize();
  return total ? 1 : 0;
}

/* An unmodified C MPI program (built without colltune): bcast, scatter and gather, including
 * MPI_IN_PLACE at the root, each checked. Exit 0 when every check passed on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0, n = 1000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* all = malloc(sizeof(int) * n * size);
  int* mine = malloc(sizeof(int) * n);
  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < n; ++i) mine[i] = rank == root ? i + root : -1;
    MPI_Bcast(mine, n, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) bad += mine[i] != i + root;
    if (rank == root)
      for (int i = 0; i < n * size; ++i) all[i] = i;
    MPI_Scatter(all, n, MPI_INT, rank == root ? MPI_IN_PLACE : mine, n, MPI_INT, root,
                MPI_COMM_WORLD);
    if (rank != root)
      for (int i = 0; i < n; ++i) bad += mine[i] != rank * n + i;
    for (int i = 0; i < n; ++i) mine[i] = -(rank * n + i);
    if (rank == root)
      for (int i = 0; i < n; ++i) all[root * n + i] = mine[i];
    MPI_Gather(rank == root ? MPI_IN_PLACE : mine, n, MPI_INT, all, n, MPI_INT, root,
               MPI_COMM_WORLD);
    if (rank == root)
      for (int i = 0; i < n * size; ++i) bad += all[i] != -i;
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("c_app np=%d: %s (%d bad values)\n", size, total ? "FAIL" : "PASS", total);
  free(all);
  free(mine);
  MPI_Finalize();
  return total ? 1 : 0;
}

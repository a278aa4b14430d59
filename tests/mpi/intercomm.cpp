// Collectives on an intercommunicator pass through to MPICH (checked for correct data); a
// forced algorithm that cannot run there follows COLLTUNE_FALLBACK.
#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm half, inter;
  const int color = rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
  int bad = 0;
  for (int it = 0; it < 3; ++it) {
    int v[4] = {-1, -1, -1, -1};
    int hrank;
    MPI_Comm_rank(half, &hrank);
    // Group 0's rank 0 broadcasts to group 1.
    int root = color == 0 ? (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if (root == MPI_ROOT)
      for (int i = 0; i < 4; ++i) v[i] = 40 + i + it;
    MPI_Bcast(v, 4, MPI_INT, root, inter);
    if (color == 1)
      for (int i = 0; i < 4; ++i) bad += v[i] != 40 + i + it;
  }
  // The intracommunicator halves are still tuned.
  int x = rank;
  MPI_Bcast(&x, 1, MPI_INT, 0, half);
  bad += x != color;
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("intercomm np=%d: %d failed\n", size, total);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

/* The Jacobi stencil's halo exchange alone, for docs/app-models.md "Full-duplex exchanges": P
 * processes in a chain, each iteration MPI_Sendrecv down then up (as bench/apps/jacobi.c), B
 * bytes between every pair but the last, L bytes between the last two processes. Prints one
 * line from rank 0 per repetition:
 *   halo_chain P iters B L seconds
 * seconds: the slowest rank's time from a barrier to its end.
 *   halo_chain ITERS B L REPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5) {
    if (rank == 0) fprintf(stderr, "usage: halo_chain ITERS B L REPS\n");
    MPI_Finalize();
    return 2;
  }
  const int iters = atoi(argv[1]), b = atoi(argv[2]), l = atoi(argv[3]), reps = atoi(argv[4]);
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  /* Message sizes to and from each neighbour. */
  const int mup = rank == size - 1 ? l : b, mdown = rank == size - 2 ? l : b;
  const int most = b > l ? b : l;
  char* buf = calloc(4, (size_t)most + 1);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
  char *s1 = buf, *r1 = buf + most + 1, *s2 = buf + 2 * (most + 1), *r2 = buf + 3 * (most + 1);
  for (int k = 0; k < reps; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    const double t0 = MPI_Wtime();
    for (int it = 0; it < iters; ++it) {
      MPI_Sendrecv(s1, mdown, MPI_CHAR, down, 1, r1, mup, MPI_CHAR, up, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      MPI_Sendrecv(s2, mup, MPI_CHAR, up, 2, r2, mdown, MPI_CHAR, down, 2, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    }
    double mine = MPI_Wtime() - t0, worst;
    MPI_Pcontrol(0);
    MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("halo_chain %d %d %d %d %.9f\n", size, iters, b, l, worst);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}

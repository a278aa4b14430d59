/* A binomial scatter of 64 MiB blocks at np 4: rank 2 is an inner node of the tree and needs a
 * 128 MiB buffer for its subtree. Run with tests/support/fail_alloc (allocations of 100 MB or
 * more fail on rank 2), the job must end (error handler: MPI_ERRORS_ARE_FATAL), not hang. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int block = 64 << 20;
  char* all = rank == 0 ? malloc((size_t)block * size) : NULL;
  char* mine = malloc(block);
  if ((rank == 0 && !all) || !mine) {
    fprintf(stderr, "alloc_failure: rank %d: the test's own buffers failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (all) memset(all, 7, (size_t)block * size);
  const int rc = MPI_Scatter(all, block, MPI_BYTE, mine, block, MPI_BYTE, 0, MPI_COMM_WORLD);
  printf("alloc_failure: rank %d returned %d from MPI_Scatter\n", rank, rc);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("alloc_failure: the job went on past the failure\n");
  MPI_Finalize();
  return 0;
}

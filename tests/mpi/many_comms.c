/* Live communicators: COUNT duplicates of MPI_COMM_WORLD, each with a broadcast, none freed
 * until the end (tests/CMakeLists.txt: many_live_communicators). Native MPICH serves about 2000;
 * colltune must not halve that. Prints "many_comms: K of COUNT, W wrong". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int count = argc > 1 ? atoi(argv[1]) : 1500;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm* comms = malloc(sizeof(MPI_Comm) * count);
  int made = 0, wrong = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 0; i < count; ++i) {
    if (MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]) != MPI_SUCCESS) break;
    int v = rank == 0 ? i : -1;
    if (MPI_Bcast(&v, 1, MPI_INT, 0, comms[i]) != MPI_SUCCESS) ++wrong;
    wrong += v != i;
    ++made;
  }
  printf("many_comms rank %d: %d of %d, %d wrong\n", rank, made, count, wrong);
  for (int i = 0; i < made; ++i) MPI_Comm_free(&comms[i]);
  free(comms);
  MPI_Finalize();
  return 0;
}

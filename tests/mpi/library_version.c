/* Prints the MPI library's version string on every rank (tests/mpich-check.sh). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0, rank = 0;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (MPI_Get_library_version(v, &n) != MPI_SUCCESS) return 1;
  printf("rank %d: %.*s\n", rank, 60, v);
  MPI_Finalize();
  return 0;
}

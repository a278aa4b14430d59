/* The first messages between two ranks: rank 0 sends N bytes to rank 1 four times, a barrier
 * before each; rank 1 prints each receive time. TOUCH 1: the receive buffer written first.
 *   mpicc -O2 first-message.c -o first && mpiexec.mpich -n 2 ./first N TOUCH */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int c, char** v) {
  MPI_Init(&c, &v);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  long n = atol(v[1]);
  int touch = atoi(v[2]);
  char* b = malloc(n);
  if (touch || r == 0) memset(b, 1, n);
  for (int k = 0; k < 4; k++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    if (r == 0)
      MPI_Send(b, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    else
      MPI_Recv(b, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    t = MPI_Wtime() - t;
    if (r == 1) printf("%ld touch=%d msg %d: %.1f us\n", n, touch, k, t * 1e6);
  }
  MPI_Finalize();
}

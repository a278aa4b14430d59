/* np 1: the root's own block of a scatter and a gather is a local copy. With a non-dense send
 * type and over 2 GiB it cannot be one MPI_Pack, so colltune copies it as a message to self:
 * that message must travel on colltune's private communicator, never on the user's
 * MPI_COMM_SELF, where a pending wildcard receive would match it. Values are checked. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int bad = 0;
  /* 2 ints a vector element: dense memory, but not a type colltune copies with memcpy. */
  MPI_Datatype pair;
  MPI_Type_vector(2, 1, 1, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  const int pairs = 1 << 28; /* 2 GiB */
  const size_t ints = (size_t)pairs * 2;
  int* a = malloc(ints * sizeof(int));
  int* b = malloc(ints * sizeof(int));
  if (!a || !b) {
    printf("self_wildcard: cannot allocate 4 GiB\n");
    return 2;
  }
  for (size_t i = 0; i < ints; ++i) a[i] = (int)(i * 7);
  int user = -1;
  MPI_Request req;
  MPI_Irecv(&user, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &req);
  MPI_Scatter(a, pairs, pair, b, (int)ints, MPI_INT, 0, MPI_COMM_WORLD);
  for (size_t i = 0; i < ints; i += 4093) bad += b[i] != (int)(i * 7);
  bad += b[ints - 1] != (int)((ints - 1) * 7);
  for (size_t i = 0; i < ints; ++i) a[i] = -1;
  MPI_Gather(b, pairs, pair, a, (int)ints, MPI_INT, 0, MPI_COMM_WORLD);
  for (size_t i = 0; i < ints; i += 4093) bad += a[i] != (int)(i * 7);
  int flag = 0;
  MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  if (flag) {
    printf("self_wildcard: the user's wildcard receive on MPI_COMM_SELF matched a message\n");
    ++bad;
  } else {
    MPI_Cancel(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  printf("self_wildcard: %d failed\n", bad);
  MPI_Type_free(&pair);
  free(a);
  free(b);
  MPI_Finalize();
  return bad ? 1 : 0;
}

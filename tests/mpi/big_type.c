/* A type over 2 GiB (GIB GiB, default 3): bcast, scatter and gather (argv[2]: the ops, default
 * "bcast,scatter,gather") of one element per process
 * at np 2, as MPICH's own large-count paths serve them; the bcast also with another type of the
 * same signature on rank 1 (3 x 1 GiB); the root's own block is copied, not in place. Bytes
 * every 4093 and the last are checked. Prints "big_type: W wrong, E
 * errors". Needs about 3 x GIB GiB of memory per op. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t bad(const unsigned char* p, size_t n, unsigned salt) {
  size_t w = 0;
  for (size_t i = 0; i < n; i += 4093) w += p[i] != (unsigned char)(i * 13 + salt);
  w += p[n - 1] != (unsigned char)((n - 1) * 13 + salt);
  return w;
}
static void fill(unsigned char* p, size_t n, unsigned salt) {
  for (size_t i = 0; i < n; i += 4093) p[i] = (unsigned char)(i * 13 + salt);
  p[n - 1] = (unsigned char)((n - 1) * 13 + salt);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int gib = argc > 1 ? atoi(argv[1]) : 3;
  const size_t n = (size_t)gib << 30;
  const char* ops = argc > 2 ? argv[2] : "bcast,scatter,gather";
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Datatype one_gib, big;
  MPI_Type_contiguous(1 << 30, MPI_BYTE, &one_gib);
  MPI_Type_contiguous(gib, one_gib, &big);
  MPI_Type_commit(&one_gib);
  MPI_Type_commit(&big);
  size_t wrong = 0;
  int errors = 0;
  /* bcast: rank 0 one element of `big`, rank 1 `gib` elements of 1 GiB (same signature) */
  unsigned char* a = calloc(n, 1);
  if (!a) {
    fprintf(stderr, "big_type: no memory\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (strstr(ops, "bcast")) {
    if (rank == 0) fill(a, n, 1);
    errors += MPI_Bcast(a, rank == 0 ? 1 : gib, rank == 0 ? big : one_gib, 0, MPI_COMM_WORLD) !=
              MPI_SUCCESS;
    wrong += bad(a, n, 1);
  }
  /* scatter: the root keeps its own block in place */
  unsigned char* all =
      rank == 0 && (strstr(ops, "scatter") || strstr(ops, "gather")) ? calloc(2 * n, 1) : NULL;
  if (strstr(ops, "scatter")) {
    /* the root's own block is copied locally (not in place): the path that over-read */
    if (rank == 0) {
      fill(all, n, 2);
      fill(all + n, n, 3);
    }
    memset(a, 0, n);
    errors += MPI_Scatter(all, 1, big, a, 1, big, 0, MPI_COMM_WORLD) != MPI_SUCCESS;
    wrong += bad(a, n, rank == 0 ? 2 : 3);
  }
  if (strstr(ops, "gather")) {
    if (rank == 0) memset(all, 0, 2 * n);
    fill(a, n, rank == 0 ? 5 : 4);
    errors += MPI_Gather(a, 1, big, all, 1, big, 0, MPI_COMM_WORLD) != MPI_SUCCESS;
    if (rank == 0) wrong += bad(all, n, 5) + bad(all + n, n, 4);
  }
  free(all);
  free(a);
  long long mine[2] = {(long long)wrong, errors}, total[2];
  MPI_Reduce(mine, total, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("big_type %d GiB: %lld wrong, %lld errors\n", gib, total[0], total[1]);
  MPI_Type_free(&big);
  MPI_Type_free(&one_gib);
  MPI_Finalize();
  return 0;
}

/* Memory while the root rotates over every rank (tests/smpi: smpi_rotate_root_bounded): bcast,
 * scatter and gather with a built tree per root (ecef, model_linear, split forced). Under SMPI
 * every rank is in this process, so the heap in use (mallinfo2) is the whole job's (SimGrid's
 * own state per pair of processes included). Prints the heap after 1 root, after ROOTS_A roots
 * and after every root three times, the trees colltune holds for the communicator
 * (colltune_cached_entries, most on any rank), and "bounded" when that count stayed within the
 * caches' capacity (16 per communicator and op, three ops, docs/faults.md) after every root. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* glibc's, declared here: SMPI's helpers, included before any header, make <malloc.h> unusable. */
struct mallinfo2 {
  size_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost;
};
extern struct mallinfo2 mallinfo2(void);
long long colltune_cached_entries(MPI_Comm comm); /* libcolltune's test introspection */

static void calls(int root, unsigned char* buf, unsigned char* all, MPI_Comm comm) {
  const int m = 4096;
  MPI_Bcast(buf, m, MPI_BYTE, root, comm);
  MPI_Scatter(all, m, MPI_BYTE, buf, m, MPI_BYTE, root, comm);
  MPI_Gather(buf, m, MPI_BYTE, all, m, MPI_BYTE, root, comm);
}

static long heap(MPI_Comm comm) {
  MPI_Barrier(comm);
  const struct mallinfo2 mi = mallinfo2();
  MPI_Barrier(comm);
  return (long)mi.uordblks;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int roots_a = argc > 1 ? atoi(argv[1]) : 16;
  unsigned char* buf = calloc(4096, 1);
  unsigned char* all = calloc((size_t)4096 * n, 1);
  calls(0, buf, all, MPI_COMM_WORLD);
  const long h1 = heap(MPI_COMM_WORLD);
  for (int r = 0; r < roots_a; ++r) calls(r, buf, all, MPI_COMM_WORLD);
  const long ha = heap(MPI_COMM_WORLD);
  for (int round = 0; round < 3; ++round)
    for (int r = 0; r < n; ++r) calls(r, buf, all, MPI_COMM_WORLD);
  const long hall = heap(MPI_COMM_WORLD);
  long long mine = colltune_cached_entries(MPI_COMM_WORLD), most = 0;
  MPI_Reduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("rotate_root np=%d: heap %ld after 1 root, +%ld after %d roots, +%ld after %d roots x3;"
           " %lld trees cached (most on a rank)\n",
           n, h1, ha - h1, roots_a, hall - ha, n, most);
    printf("rotate_root: %s\n", most >= 1 && most <= 3 * 16 ? "bounded" : "UNBOUNDED");
  }
  free(buf);
  free(all);
  MPI_Finalize();
  return 0;
}

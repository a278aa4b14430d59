/* A local failure inside a paced gather (split, forced; without a model table it paces in
 * 8 KiB segments) with MPI_ERRORS_RETURN: every rank must return, the failing rank and the root
 * with an error (the root: its own, or the failing child's notice), the others with success,
 * and the next calls must work. Usage: fail_paced F, where F is the rank tests/support/
 * fail_alloc makes fail (allocations of 20 MB or more); root 0, 32 MiB per process of a
 * non-dense type (every other int).
 *   F > 0: F cannot allocate its packing buffer; it sends the root a notice instead of its
 *   first segment.
 *   F = 0: the root cannot allocate the buffer the packed segments land in; it consumes and
 *   credits every child's segments.
 * Then a barrier and a correct 1 MiB gather (paced too) succeed on every rank. */
#define FAIL_PROGRAM "fail_paced"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fail_expect.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int f = argc > 1 ? atoi(argv[1]) : 1;
  const int n = 8 << 20;              /* ints carried per process: 32 MiB */
  const size_t block = 2 * (size_t)n; /* ints a block spans */
  /* mmap: the shim fails malloc alone, so the test's own buffers are not refused. */
  int* send =
      mmap(NULL, block * sizeof(int), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int* recv = rank == 0 ? mmap(NULL, size * block * sizeof(int), PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                        : NULL;
  if (send == MAP_FAILED || recv == MAP_FAILED) {
    fprintf(stderr, "fail_paced: rank %d: the test's own buffers failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Datatype every_other, one;
  MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
  MPI_Type_create_resized(every_other, 0, (MPI_Aint)(block * sizeof(int)), &one);
  MPI_Type_commit(&one);
  for (size_t i = 0; i < block; ++i) send[i] = rank * 7 + (int)i;
  for (size_t i = 0; rank == 0 && i < size * block; ++i) recv[i] = -1;
  int rc = MPI_Gather(send, 1, one, recv, 1, one, 0, MPI_COMM_WORLD);
  expect("gather", rc, rank == f || rank == 0);
  rc = MPI_Barrier(MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    printf("fail_paced: barrier: rank %d WRONG: rc %d\n", rank, rc);
    ++wrong;
  }
  /* 1 MiB per process, dense: paced, no large allocation. */
  const int m = 1 << 18;
  for (int i = 0; i < m; ++i) send[i] = rank * 11 + 3 * i;
  rc = MPI_Gather(send, m, MPI_INT, recv, m, MPI_INT, 0, MPI_COMM_WORLD);
  expect("gather after", rc, 0);
  for (int r = 0; rank == 0 && rc == MPI_SUCCESS && r < size; ++r) {
    for (int i = 0; i < m; ++i) {
      if (recv[(size_t)r * m + i] != r * 11 + 3 * i) {
        printf("fail_paced: gather after: WRONG data from rank %d at %d\n", r, i);
        ++wrong;
        break;
      }
    }
  }
  int total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("fail_paced np=%d: %d wrong\n", size, total);
  MPI_Type_free(&one);
  MPI_Type_free(&every_other);
  munmap(send, block * sizeof(int));
  if (recv) munmap(recv, size * block * sizeof(int));
  MPI_Finalize();
  return total ? 1 : 0;
}

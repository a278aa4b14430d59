/* A local failure inside a pipelined (segmented) bcast with MPI_ERRORS_RETURN: every rank must
 * return, the failing rank and every rank after it in the chain with an error, the others with
 * the data, and the next calls must work. Usage: fail_segmented F, where F (not 0) is the rank
 * tests/support/fail_alloc makes fail (allocations of 100 MB or more); root 0, the chain forced
 * by the test's environment (without a model table it runs through the ranks in order).
 *   A 128 MiB bcast of a non-dense type (every other int): F cannot allocate its packing
 *   buffer before its first segment; it takes its parent's segments and sends its child a
 *   notice instead of its first one, which is passed on down the chain.
 * Then a barrier and a correct 1 MiB bcast (segmented too) succeed on every rank. */
#define FAIL_PROGRAM "fail_segmented"
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
  const int n = 32 << 20; /* ints carried: 128 MiB */
  /* mmap: the shim fails malloc alone, so the test's own buffer is not refused. */
  int* buf = mmap(NULL, 2 * (size_t)n * sizeof(int), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) buf = NULL;
  MPI_Datatype every_other;
  MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  for (size_t i = 0; buf && i < 2 * (size_t)n; ++i) buf[i] = rank == 0 ? (int)i : -1;
  if (!buf) {
    fprintf(stderr, "fail_segmented: rank %d: the test's own buffer failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  int rc = MPI_Bcast(buf, 1, every_other, 0, MPI_COMM_WORLD);
  expect("bcast", rc, rank >= f);
  for (size_t i = 0; rc == MPI_SUCCESS && i < 2 * (size_t)n; ++i) {
    const int want = i % 2 == 0 || rank == 0 ? (int)i : -1;
    if (buf[i] != want) {
      printf("fail_segmented: bcast: rank %d WRONG data at %zu\n", rank, i);
      ++wrong;
      break;
    }
  }
  rc = MPI_Barrier(MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    printf("fail_segmented: barrier: rank %d WRONG: rc %d\n", rank, rc);
    ++wrong;
  }
  /* 1 MiB, dense: segmented, no allocation. */
  for (int i = 0; i < 1 << 18; ++i) buf[i] = rank == 0 ? 3 * i : -1;
  rc = MPI_Bcast(buf, 1 << 18, MPI_INT, 0, MPI_COMM_WORLD);
  expect("bcast after", rc, 0);
  for (int i = 0; rc == MPI_SUCCESS && i < 1 << 18; ++i) {
    if (buf[i] != 3 * i) {
      printf("fail_segmented: bcast after: rank %d WRONG data at %d\n", rank, i);
      ++wrong;
      break;
    }
  }
  int total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("fail_segmented np=%d: %d wrong\n", size, total);
  MPI_Type_free(&every_other);
  munmap(buf, 2 * (size_t)n * sizeof(int));
  MPI_Finalize();
  return total ? 1 : 0;
}

/* A local failure inside a tree algorithm with MPI_ERRORS_RETURN: every rank must return, the
 * failing rank and every rank whose result depended on it with an error, the others with a
 * correct result, and the next calls must work. Usage: fail_propagation F, where F (not 0) is
 * the rank tests/support/fail_alloc makes fail (allocations of 100 MB or more); root 0,
 * binomial trees (forced by the test's environment), any np:
 *   scatter of 64 MiB blocks: F (an inner node) cannot allocate its subtree buffer: F and its
 *     subtree return an error, the others their block;
 *   gather of 64 MiB blocks: F cannot allocate its subtree buffer: F and every rank above it up
 *     to the root return an error, the others succeed;
 *   bcast (no allocation): F passes half the count (an erroneous program), its receive is
 *     truncated: F and its subtree return an error, the others the data.
 * After each, a barrier and a small correct call of the same op succeed on every rank. */
#define FAIL_PROGRAM "fail_propagation"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail_expect.h"

/* Binomial tree, root 0: r is in f's subtree; r is f or above it. */
static int below(int r, int f) { return r >= f && r < f + (f & -f); }
static int above(int r, int f) {
  for (; f > 0; f -= f & -f) {
    if (r == f) return 1;
  }
  return r == 0;
}

static void check_bytes(const char* what, const char* p, size_t n, char want) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != want) {
      printf("fail_propagation: %s: rank %d WRONG data at byte %zu\n", what, rank, i);
      ++wrong;
      return;
    }
  }
}

/* A barrier and a small call of `op` right after a failure: every rank succeeds, data correct. */
static void small_call(const char* op) {
  int rc = MPI_Barrier(MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    printf("fail_propagation: barrier after %s: rank %d WRONG: rc %d\n", op, rank, rc);
    ++wrong;
  }
  int all[64 * 8], mine[8]; /* np <= 64 */
  for (int i = 0; i < size * 8; ++i) all[i] = rank == 0 ? 1000 + i : -1;
  for (int i = 0; i < 8; ++i) mine[i] = 100 * rank + i;
  char what[64];
  snprintf(what, sizeof what, "small %s", op);
  if (strcmp(op, "scatter") == 0) {
    rc = MPI_Scatter(all, 8, MPI_INT, mine, 8, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; rc == MPI_SUCCESS && i < 8; ++i) {
      if (mine[i] != 1000 + 8 * rank + i) rc = MPI_ERR_OTHER;
    }
  } else if (strcmp(op, "gather") == 0) {
    rc = MPI_Gather(mine, 8, MPI_INT, all, 8, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; rc == MPI_SUCCESS && rank == 0 && i < size * 8; ++i) {
      if (all[i] != 100 * (i / 8) + i % 8) rc = MPI_ERR_OTHER;
    }
  } else {
    rc = MPI_Bcast(all, 8, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; rc == MPI_SUCCESS && i < 8; ++i) {
      if (all[i] != 1000 + i) rc = MPI_ERR_OTHER;
    }
  }
  if (rc != MPI_SUCCESS) {
    printf("fail_propagation: %s: rank %d WRONG: rc %d or wrong data\n", what, rank, rc);
    ++wrong;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int f = argc > 1 ? atoi(argv[1]) : 2;
  if (f <= 0 || f >= size || size > 64) {
    if (rank == 0) fprintf(stderr, "fail_propagation: np <= 64, failing rank in [1, np)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const size_t block = (size_t)64 << 20;
  char* all = rank == 0 ? malloc(block * size) : NULL; /* rank f keeps below 100 MB */
  char* mine = malloc(block);
  if ((rank == 0 && !all) || !mine) {
    fprintf(stderr, "fail_propagation: rank %d: the test's own buffers failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }

  /* Scatter: block i holds i + 1. */
  for (int i = 0; rank == 0 && i < size; ++i) memset(all + i * block, i + 1, block);
  memset(mine, 0, block);
  int rc = MPI_Scatter(all, (int)block, MPI_BYTE, mine, (int)block, MPI_BYTE, 0, MPI_COMM_WORLD);
  expect("scatter", rc, below(rank, f));
  if (rc == MPI_SUCCESS) check_bytes("scatter", mine, block, (char)(rank + 1));
  small_call("scatter");

  /* Gather: rank i sends 10 + i. */
  memset(mine, 10 + rank, block);
  if (rank == 0) memset(all, 0, block * size);
  rc = MPI_Gather(mine, (int)block, MPI_BYTE, all, (int)block, MPI_BYTE, 0, MPI_COMM_WORLD);
  expect("gather", rc, above(rank, f));
  for (int i = 0; rc == MPI_SUCCESS && rank == 0 && i < size; ++i) {
    check_bytes("gather", all + i * block, block, (char)(10 + i));
  }
  small_call("gather");

  /* Bcast: rank f receives half of what the root sends (truncated). */
  int data[1000];
  for (int i = 0; i < 1000; ++i) data[i] = rank == 0 ? 7 * i : -1;
  rc = MPI_Bcast(data, rank == f ? 500 : 1000, MPI_INT, 0, MPI_COMM_WORLD);
  expect("bcast", rc, below(rank, f));
  for (int i = 0; rc == MPI_SUCCESS && i < 1000; ++i) {
    if (data[i] != 7 * i) {
      printf("fail_propagation: bcast: rank %d WRONG data at %d\n", rank, i);
      ++wrong;
      break;
    }
  }
  small_call("bcast");

  int total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("fail_propagation np=%d: %d wrong\n", size, total);
  free(all);
  free(mine);
  MPI_Finalize();
  return total ? 1 : 0;
}

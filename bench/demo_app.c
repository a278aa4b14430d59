/* The demo's unmodified application: batches of MPI_Bcast, MPI_Scatter and MPI_Gather at a few
 * sizes (bytes per process) and roots. Prints "op bytes root us_per_call" (median of 5 batches;
 * a batch lasts about --batch-ms, its call count agreed from a first timed call).
 *   bench_demo_app [--sizes 16,4096,262144,1048576] [--roots 0] [--batch-ms 20] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Comma-separated non-negative integers into v (at most 16); returns the count, -1 if bad. */
static int parse_list(const char* s, long* v) {
  int n = 0;
  while (*s && n < 16) {
    char* end;
    v[n] = strtol(s, &end, 10);
    if (end == s || v[n] < 0 || (*end && *end != ',')) return -1;
    ++n;
    s = *end ? end + 1 : end;
  }
  return *s ? -1 : n;
}

static void call(int o, char* a, char* b, int n, int root) {
  if (o == 0) MPI_Bcast(a, n, MPI_BYTE, root, MPI_COMM_WORLD);
  if (o == 1) MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, root, MPI_COMM_WORLD);
  if (o == 2) MPI_Gather(b, n, MPI_BYTE, a, n, MPI_BYTE, root, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long sizes[16] = {16, 4096, 262144, 1048576}, roots[16] = {0};
  int nsizes = 4, nroots = 1;
  double batch = 0.02;
  for (int i = 1; i < argc; ++i) {
    int bad = i + 1 >= argc;
    if (!bad && strcmp(argv[i], "--sizes") == 0) {
      bad = (nsizes = parse_list(argv[++i], sizes)) < 1;
    } else if (!bad && strcmp(argv[i], "--roots") == 0) {
      bad = (nroots = parse_list(argv[++i], roots)) < 1;
      for (int r = 0; r < nroots && !bad; ++r) bad = roots[r] >= size;
    } else if (!bad && strcmp(argv[i], "--batch-ms") == 0) {
      batch = atof(argv[++i]) / 1e3;
      bad = !(batch > 0 && batch < 60);
    } else {
      bad = 1;
    }
    if (bad) {
      if (rank == 0) {
        fprintf(stderr,
                "bench_demo_app: bad argument '%s' (valid: --sizes N,N,... --roots R,... below "
                "%d, --batch-ms MS)\n",
                argv[i], size);
      }
      MPI_Finalize();
      return 2;
    }
  }
  long largest = 0;
  for (int s = 0; s < nsizes; ++s) largest = sizes[s] > largest ? sizes[s] : largest;
  char* a = calloc((size_t)(largest ? largest : 1) * size, 1);
  char* b = calloc((size_t)(largest ? largest : 1), 1);
  const char* ops[] = {"bcast", "scatter", "gather"};
  for (int o = 0; o < 3; ++o) {
    for (int r = 0; r < nroots; ++r) {
      for (int s = 0; s < nsizes; ++s) {
        const int n = (int)sizes[s], root = (int)roots[r];
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        call(o, a, b, n, root); /* warm-up, and the call count of a batch */
        double one = MPI_Wtime() - t0, most = 0;
        MPI_Allreduce(&one, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int iters = most > 0 ? (int)(batch / most) : 1000;
        iters = iters < 1 ? 1 : iters > 1000 ? 1000 : iters;
        double t[5];
        for (int k = 0; k < 5; ++k) {
          MPI_Barrier(MPI_COMM_WORLD);
          t0 = MPI_Wtime();
          for (int i = 0; i < iters; ++i) call(o, a, b, n, root);
          double local = (MPI_Wtime() - t0) / iters, max = 0;
          MPI_Allreduce(&local, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
          t[k] = max;
        }
        qsort(t, 5, sizeof(double), cmp);
        if (rank == 0) printf("%s %d %d %.3f\n", ops[o], n, root, t[2] * 1e6);
      }
    }
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}

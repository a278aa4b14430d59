// One dgemm shape timed by itself: C (m x n, leading dimension m) += A B, A m x k, B k x n,
// one warm-up call then `reps` calls; with `fresh`, each call's A and B are new panels (as a
// PBLAS routine's), else the same ones. Prints "m n k seconds_per_call".
//   dgemm_alone M N K REPS [fresh]
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 5 || argc > 6) {
    fprintf(stderr, "usage: dgemm_alone M N K REPS [fresh]\n");
    return 2;
  }
  const int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]), reps = atoi(argv[4]);
  const int fresh = argc == 6;
  if (m < 1 || n < 1 || k < 1 || reps < 1) {
    fprintf(stderr, "dgemm_alone: M, N, K and REPS must be positive\n");
    return 2;
  }
  const long panels = fresh ? reps + 1 : 1;
  double* a = malloc(sizeof(double) * (size_t)m * k * panels);
  double* b = malloc(sizeof(double) * (size_t)k * n * panels);
  double* c = malloc(sizeof(double) * (size_t)m * n);
  if (!a || !b || !c) {
    fprintf(stderr, "dgemm_alone: out of memory\n");
    return 2;
  }
  for (long i = 0; i < (long)m * k * panels; ++i) a[i] = 1e-3 * (double)(i % 7);
  for (long i = 0; i < (long)k * n * panels; ++i) b[i] = 1e-3 * (double)(i % 5);
  for (long i = 0; i < (long)m * n; ++i) c[i] = 0;
  const double one = 1;
  double t = 0;
  for (int r = 0; r <= reps; ++r) {
    if (r == 1) t = now();  // call 0 warms up
    const long p = fresh ? r : 0;
    dgemm_("N", "N", &m, &n, &k, &one, a + p * m * k, &m, b + p * k * n, &k, &one, c, &m);
  }
  printf("%d %d %d %.9f\n", m, n, k, (now() - t) / reps);
  free(a);
  free(b);
  free(c);
  return 0;
}

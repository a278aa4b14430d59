// Preloaded into an unmodified program: times its calls to dgemm_, dtrsm_, dswap_, dlacpy_ and
// PBLAS's local copies (dmmadd_ and kin) by routine and shape, and at exit writes
// "routine m n k calls seconds" lines to $COLLTUNE_BLAS_TIMER.<pid> (nothing without it).
// What the kernels of a ScaLAPACK routine cost inside it (bench/scalapack-kernels.sh).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  const char* name;
  int m, n, k;
  long calls;
  double seconds;
} Row;
enum { kRows = 4096 };
static Row rows[kRows];
static int nrows;
static long dropped;  // calls of shapes past kRows, not counted

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void count(const char* name, int m, int n, int k, double s) {
  for (int i = 0; i < nrows; ++i) {
    Row* r = &rows[i];
    if (r->name == name && r->m == m && r->n == n && r->k == k) {
      ++r->calls;
      r->seconds += s;
      return;
    }
  }
  if (nrows == kRows) {
    ++dropped;
    return;
  }
  rows[nrows++] = (Row){name, m, n, k, 1, s};
}

__attribute__((destructor)) static void write_rows(void) {
  const char* stem = getenv("COLLTUNE_BLAS_TIMER");
  if (!stem || !*stem) return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", stem, (int)getpid());
  FILE* f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "blas_timer: %s: cannot write\n", path);
    return;
  }
  for (int i = 0; i < nrows; ++i) {
    fprintf(f, "%s %d %d %d %ld %.9f\n", rows[i].name, rows[i].m, rows[i].n, rows[i].k,
            rows[i].calls, rows[i].seconds);
  }
  if (dropped) fprintf(f, "dropped 0 0 0 %ld 0\n", dropped);
  fclose(f);
}

static void* next(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "blas_timer: %s not found after this library\n", name);
    abort();
  }
  return f;
}

typedef void (*Gemm)(const char*, const char*, const int*, const int*, const int*, const double*,
                     const double*, const int*, const double*, const int*, const double*, double*,
                     const int*);
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc) {
  static Gemm real;
  if (!real) real = (Gemm)next("dgemm_");
  const double t = now();
  real(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  count("dgemm", *m, *n, *k, now() - t);
}

typedef void (*Trsm)(const char*, const char*, const char*, const char*, const int*, const int*,
                     const double*, const double*, const int*, double*, const int*);
void dtrsm_(const char* side, const char* uplo, const char* ta, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b,
            const int* ldb) {
  static Trsm real;
  if (!real) real = (Trsm)next("dtrsm_");
  const double t = now();
  real(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);
  count("dtrsm", *m, *n, 0, now() - t);
}

// Row exchanges (LAPACK's and PBLAS's pivoting): n elements of each vector, "dswap n 0 0".
typedef void (*Swap)(const int*, double*, const int*, double*, const int*);
void dswap_(const int* n, double* x, const int* incx, double* y, const int* incy) {
  static Swap real;
  if (!real) real = (Swap)next("dswap_");
  const double t = now();
  real(n, x, incx, y, incy);
  count("dswap", *n, 0, 0, now() - t);
}

typedef void (*Lacpy)(const char*, const int*, const int*, const double*, const int*, double*,
                      const int*);
void dlacpy_(const char* uplo, const int* m, const int* n, const double* a, const int* lda,
             double* b, const int* ldb) {
  static Lacpy real;
  if (!real) real = (Lacpy)next("dlacpy_");
  const double t = now();
  real(uplo, m, n, a, lda, b, ldb);
  count("dlacpy", *m, *n, 0, now() - t);
}

// PBLAS's local copies and adds, B := alpha A + beta B in their variants (PTOOLS/dmm*.f).
typedef void (*Mm)(const int*, const int*, const double*, const double*, const int*, const double*,
                   double*, const int*);
#define COPY(fn)                                                                               \
  void fn##_(const int* m, const int* n, const double* alpha, const double* a, const int* lda, \
             const double* beta, double* b, const int* ldb) {                                  \
    static Mm real;                                                                            \
    if (!real) real = (Mm)next(#fn "_");                                                       \
    const double t = now();                                                                    \
    real(m, n, alpha, a, lda, beta, b, ldb);                                                   \
    count(#fn, *m, *n, 0, now() - t);                                                          \
  }
COPY(dmmadd)
COPY(dmmcadd)
COPY(dmmtadd)
COPY(dmmdda)
COPY(dmmddac)

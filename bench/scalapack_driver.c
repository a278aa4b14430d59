/* Times unmodified ScaLAPACK PDGEMM and PDTRSM on a p x q BLACS grid (bench/scalapack.sh,
 * docs/forecast.md): every case of the argument list, matrices random (A of PDTRSM diagonally
 * dominant), one warm-up call, then calls until --seconds have passed (at least 3 or --reps, at
 * most
 * --reps), each timed between barriers as the slowest process saw it; prints the median.
 * Usage: scalapack_driver --grid PxQ [--reps N] [--seconds S]
 *          CASE...   with CASE = pdgemm:M:N:K:R | pdtrsm:SIDE UPLO TRANSA:M:N:R (e.g.
 * pdtrsm:RUN:...) The solution of each PDTRSM is checked (B = X op(A) or op(A) X again, relative
 * residual). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blacs.h"

void pdgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
             const double *, const int *, const int *, const int *, const double *, const int *,
             const int *, const int *, const double *, double *, const int *, const int *,
             const int *);
void pdtrsm_(const char *, const char *, const char *, const char *, const int *, const int *,
             const double *, const double *, const int *, const int *, const int *, double *,
             const int *, const int *, const int *);

static int ctxt, myrow, mycol, nprow, npcol;

/* A local block-cyclic matrix of m x n with blocks r, filled by f(global i, global j). */
typedef struct {
  int desc[9], lr, lc;
  double *a;
} Mat;

static int mat_init(Mat *m, int rows, int cols, int r, double (*f)(int, int, int), int n) {
  const int zero = 0;
  int info = 0;
  m->lr = numroc_(&rows, &r, &myrow, &zero, &nprow);
  m->lc = numroc_(&cols, &r, &mycol, &zero, &npcol);
  int lld = m->lr > 1 ? m->lr : 1;
  descinit_(m->desc, &rows, &cols, &r, &r, &zero, &zero, &ctxt, &lld, &info);
  if (info != 0) return info;
  m->a = malloc(sizeof(double) * (size_t)lld * (m->lc > 0 ? m->lc : 1));
  if (!m->a) return -1;
  for (int jl = 0; jl < m->lc; ++jl) {
    int jg = (jl / r * npcol + mycol) * r + jl % r;
    for (int il = 0; il < m->lr; ++il) {
      int ig = (il / r * nprow + myrow) * r + il % r;
      m->a[(size_t)jl * lld + il] = f(ig, jg, n);
    }
  }
  return 0;
}

static unsigned hash(int i, int j) {
  unsigned h = (unsigned)i * 2654435761u ^ ((unsigned)j * 2246822519u + 374761393u);
  h ^= h >> 15;
  h *= 2246822519u;
  return h ^ (h >> 13);
}
static double rnd(int i, int j, int n) {
  (void)n;
  return (double)(hash(i, j) % 2001) / 1000.0 - 1.0;
}
/* Triangular either way: the routine reads only its triangle; the diagonal dominates. */
static double tri(int i, int j, int n) { return i == j ? 2.0 * n : rnd(i, j, n) * 0.5; }
static double zero_f(int i, int j, int n) {
  (void)i, (void)j, (void)n;
  return 0.0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np, p = 0, q = 0, reps = 15;
  double budget = 2.0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int first = 1;
  for (; first < argc && strncmp(argv[first], "--", 2) == 0; first += 2) {
    if (first + 1 >= argc) break;
    if (!strcmp(argv[first], "--grid"))
      sscanf(argv[first + 1], "%dx%d", &p, &q);
    else if (!strcmp(argv[first], "--reps"))
      reps = atoi(argv[first + 1]);
    else if (!strcmp(argv[first], "--seconds"))
      budget = atof(argv[first + 1]);
  }
  if (p < 1 || q < 1 || p * q != np || reps < 1 || reps > 1000) {
    if (me == 0) {
      fprintf(stderr,
              "scalapack_driver: --grid PxQ must have P*Q = %d processes, --reps from 1 to 1000\n",
              np);
    }
    MPI_Finalize();
    return 2;
  }
  int pid, nprocs;
  Cblacs_pinfo(&pid, &nprocs);
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", p, q);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  const int one = 1;
  const double alpha = 1.0, beta = 1.0;
  int rc = 0;
  for (int c = first; c < argc; ++c) {
    char routine[16] = "", opts[8] = "";
    int M = 0, N = 0, K = 0, R = 0;
    int ok;
    if (!strncmp(argv[c], "pdgemm:", 7)) {
      ok = sscanf(argv[c], "pdgemm:%d:%d:%d:%d", &M, &N, &K, &R) == 4;
      strcpy(routine, "pdgemm");
    } else {
      ok =
          sscanf(argv[c], "pdtrsm:%3[LRULNT]:%d:%d:%d", opts, &M, &N, &R) == 4 && strlen(opts) == 3;
      strcpy(routine, "pdtrsm");
    }
    if (!ok || M < 1 || N < 1 || R < 1) {
      if (me == 0) fprintf(stderr, "scalapack_driver: bad case %s\n", argv[c]);
      rc = 2;
      break;
    }
    Mat A, B, C;
    double residual = 0;
    const int is_gemm = routine[2] == 'g';
    const int left = opts[0] == 'L', na = left ? M : N;
    if (is_gemm) {
      if (mat_init(&A, M, K, R, rnd, K) || mat_init(&B, K, N, R, rnd, K) ||
          mat_init(&C, M, N, R, zero_f, K)) {
        rc = 1;
        break;
      }
    } else {
      if (mat_init(&A, na, na, R, tri, na) || mat_init(&B, M, N, R, rnd, na) ||
          mat_init(&C, M, N, R, rnd, na)) { /* C keeps the right-hand side to check with */
        rc = 1;
        break;
      }
    }
    double *times = malloc(sizeof(double) * (reps + 1));
    int n = 0;
    double spent = 0;
    for (int r = 0; r <= reps; ++r) {
      if (!is_gemm) memcpy(B.a, C.a, sizeof(double) * (size_t)B.desc[8] * (B.lc > 0 ? B.lc : 1));
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Pcontrol(1); /* a profiler's window (colltune's recorder): the routine alone */
      if (is_gemm) {
        pdgemm_("N", "N", &M, &N, &K, &alpha, A.a, &one, &one, A.desc, B.a, &one, &one, B.desc,
                &beta, C.a, &one, &one, C.desc);
      } else {
        char side[2] = {opts[0], 0}, uplo[2] = {opts[1], 0}, trans[2] = {opts[2], 0};
        pdtrsm_(side, uplo, trans, "N", &M, &N, &alpha, A.a, &one, &one, A.desc, B.a, &one, &one,
                B.desc);
      }
      MPI_Pcontrol(0);
      double t = MPI_Wtime() - t0, tmax;
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r > 0) times[n++] = tmax; /* the first call warms caches and BLACS's contexts */
      spent += tmax;
      int stop = n >= 3 && spent >= budget;
      MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (stop) break;
    }
    if (!is_gemm) { /* residual: op(A) X (or X op(A)) against the right-hand side kept in C */
      Mat W;
      mat_init(&W, M, N, R, zero_f, na);
      char ta[2] = {opts[2], 0};
      /* The triangle only: zero the other side of A before multiplying. */
      for (int jl = 0; jl < A.lc; ++jl) {
        int jg = (jl / R * npcol + mycol) * R + jl % R;
        for (int il = 0; il < A.lr; ++il) {
          int ig = (il / R * nprow + myrow) * R + il % R;
          if ((opts[1] == 'U' && ig > jg) || (opts[1] == 'L' && ig < jg))
            A.a[(size_t)jl * A.desc[8] + il] = 0;
        }
      }
      if (left)
        pdgemm_(ta, "N", &M, &N, &M, &alpha, A.a, &one, &one, A.desc, B.a, &one, &one, B.desc,
                &alpha, W.a, &one, &one, W.desc);
      else
        pdgemm_("N", ta, &M, &N, &N, &alpha, B.a, &one, &one, B.desc, A.a, &one, &one, A.desc,
                &alpha, W.a, &one, &one, W.desc);
      double num = 0, den = 0, sums[2], tot[2];
      for (int jl = 0; jl < W.lc; ++jl)
        for (int il = 0; il < W.lr; ++il) {
          double w = W.a[(size_t)jl * W.desc[8] + il], b = C.a[(size_t)jl * C.desc[8] + il];
          num += (w - b) * (w - b);
          den += b * b;
        }
      sums[0] = num, sums[1] = den;
      MPI_Allreduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      residual = sqrt(tot[0] / (tot[1] > 0 ? tot[1] : 1));
      free(W.a);
    }
    qsort(times, n, sizeof(double), cmp);
    if (me == 0) {
      if (is_gemm)
        printf("pdgemm grid=%dx%d M=%d N=%d K=%d R=%d median_s=%.6g min_s=%.6g reps=%d\n", p, q, M,
               N, K, R, times[n / 2], times[0], n);
      else
        printf(
            "pdtrsm%s grid=%dx%d M=%d N=%d R=%d median_s=%.6g min_s=%.6g reps=%d residual=%.2g\n",
            opts, p, q, M, N, R, times[n / 2], times[0], n, residual);
      fflush(stdout);
    }
    if (!is_gemm && residual > 1e-8) rc = 1;
    free(times);
    free(A.a);
    free(B.a);
    free(C.a);
  }
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return rc;
}

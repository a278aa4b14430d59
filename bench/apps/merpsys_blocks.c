/* The measurements MERPSYS's block formulas are fitted to (colltune-predict fit,
 * docs/app-models.md "Fitting MERPSYS's formulas"): each communication block over sizes at
 * the launched P, and the computation block over thread counts. One CSV row per point:
 *   block,P,bytes,threads,seconds
 * seconds: the median over REPS of the slowest rank's time (p2p: half a round trip between
 * ranks 0 and P-1; compute: the slowest thread's, each doing the same instructions).
 *   merpsys_blocks comm SIZES REPS        (SIZES: comma-separated bytes per process)
 *   merpsys_blocks compute FLOPS MAX_THREADS REPS   (one process; FLOPS per thread, counted as
 *   the app models count them: a multiply and an add are 2)
 *   merpsys_blocks disk DIR SIZES REPS   (one process: a file of each size written and flushed
 *   to DIR, then its cached pages dropped and read back; rows write and read) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <omp.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, n, sizeof(double), cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One timed call of `block` with `bytes` per process; the slowest rank's seconds. */
static double timed(const char* block, long bytes, char* a, char* b, int rank, int size) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (!strcmp(block, "p2p")) {
    const int peer = size - 1;
    if (rank == 0) {
      MPI_Send(a, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(b, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == peer) {
      MPI_Recv(b, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(a, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  } else if (!strcmp(block, "bcast")) {
    MPI_Bcast(a, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  } else if (!strcmp(block, "scatter")) {
    MPI_Scatter(a, (int)bytes, MPI_BYTE, b, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  } else if (!strcmp(block, "gather")) {
    MPI_Gather(b, (int)bytes, MPI_BYTE, a, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  } else if (!strcmp(block, "alltoall")) {
    MPI_Alltoall(a, (int)bytes, MPI_BYTE, b, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double mine = MPI_Wtime() - t0, worst = 0;
  if (!strcmp(block, "p2p")) mine /= 2;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc == 4 && !strcmp(argv[1], "comm")) {
    const int reps = atoi(argv[3]);
    long sizes[64];
    int ns = 0;
    for (char* s = strtok(argv[2], ","); s && ns < 64; s = strtok(NULL, ",")) sizes[ns++] = atol(s);
    long most = 1;
    for (int k = 0; k < ns; ++k)
      if (sizes[k] > most) most = sizes[k];
    char* a = calloc((size_t)most * size, 1);
    char* b = calloc((size_t)most * size, 1);
    double* t = malloc(sizeof(double) * (size_t)reps);
    if (!a || !b || !t || reps < 1) MPI_Abort(MPI_COMM_WORLD, 2);
    const char* blocks[] = {"p2p", "bcast", "scatter", "gather", "alltoall", "barrier"};
    for (int k = 0; k < 6; ++k) {
      const int n = strcmp(blocks[k], "barrier") ? ns : 1;
      for (int s = 0; s < n; ++s) {
        const long bytes = strcmp(blocks[k], "barrier") ? sizes[s] : 0;
        timed(blocks[k], bytes, a, b, rank, size); /* warm-up */
        for (int r = 0; r < reps; ++r) t[r] = timed(blocks[k], bytes, a, b, rank, size);
        if (rank == 0) printf("%s,%d,%ld,1,%.9g\n", blocks[k], size, bytes, median(t, reps));
      }
    }
    free(a);
    free(b);
    free(t);
  } else if (argc == 5 && !strcmp(argv[1], "compute") && size == 1) {
    const double instr = atof(argv[2]);
    const int most = atoi(argv[3]), reps = atoi(argv[4]);
    double* t = malloc(sizeof(double) * (size_t)reps);
    double sink = 0;
    for (int th = 1; th <= most; ++th) {
      for (int r = 0; r < reps; ++r) {
        const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(th) reduction(+ : sink)
        {
          double x[8];
          for (int c = 0; c < 8; ++c) x[c] = 1e-3 * (c + omp_get_thread_num());
          const long steps = (long)(instr / 16); /* 8 chains x 2 flops */
          for (long i = 0; i < steps; ++i)
            for (int c = 0; c < 8; ++c) x[c] = x[c] * 0.999999 + 1e-7;
          for (int c = 0; c < 8; ++c) sink += x[c];
        }
        t[r] = omp_get_wtime() - t0;
      }
      printf("compute,1,%.0f,%d,%.9g\n", instr, th, median(t, reps));
    }
    if (sink == 42) printf("#\n");
    free(t);
  } else if (argc == 5 && !strcmp(argv[1], "disk") && size == 1) {
    const int reps = atoi(argv[4]);
    char path[4096];
    snprintf(path, sizeof path, "%s/merpsys-disk-%d.tmp", argv[2], (int)getpid());
    double* w = malloc(sizeof(double) * (size_t)reps);
    double* rd = malloc(sizeof(double) * (size_t)reps);
    for (char* s = strtok(argv[3], ","); s; s = strtok(NULL, ",")) {
      const long bytes = atol(s);
      char* buf = malloc((size_t)bytes + 1);
      if (!buf || reps < 1) MPI_Abort(MPI_COMM_WORLD, 2);
      memset(buf, 7, (size_t)bytes + 1);
      for (int r = 0; r < reps; ++r) {
        const int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
        if (fd < 0) MPI_Abort(MPI_COMM_WORLD, 2);
        double t0 = MPI_Wtime();
        for (long done = 0; done < bytes;) {
          const ssize_t k = write(fd, buf + done, (size_t)(bytes - done));
          if (k <= 0) MPI_Abort(MPI_COMM_WORLD, 2);
          done += k;
        }
        if (fsync(fd)) MPI_Abort(MPI_COMM_WORLD, 2);
        w[r] = MPI_Wtime() - t0;
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* the read comes from the disk */
        close(fd);
        const int rfd = open(path, O_RDONLY);
        if (rfd < 0) MPI_Abort(MPI_COMM_WORLD, 2);
        t0 = MPI_Wtime();
        for (long done = 0; done < bytes;) {
          const ssize_t k = read(rfd, buf + done, (size_t)(bytes - done));
          if (k <= 0) break;
          done += k;
        }
        rd[r] = MPI_Wtime() - t0;
        close(rfd);
      }
      printf("write,1,%ld,1,%.9g\n", bytes, median(w, reps));
      printf("read,1,%ld,1,%.9g\n", bytes, median(rd, reps));
      free(buf);
    }
    unlink(path);
    free(w);
    free(rd);
  } else {
    if (rank == 0)
      fprintf(stderr,
              "usage: merpsys_blocks comm SIZES REPS | compute FLOPS MAX_THREADS REPS (np 1) | "
              "disk DIR SIZES REPS (np 1)\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Finalize();
  return 0;
}

/* One-way point-to-point times of every ordered pair (default 0 B, 1 KiB, 64 KiB, 1 MiB), as
 * "i j bytes seconds" lines on rank 0's stdout, for check-truth.py to compare with the
 * platform's ground truth.
 * Measurement: ping-pong halved (the ground truth is symmetric), after two warm-up round trips
 * that leave the receiver waiting; with --reps N the minimum of N timed round trips (real
 * networks; the simulation is exact with 1); --warmup N (>= 2) warm-up round trips, which let a
 * real TCP connection settle after the previous, larger size. --half: only pairs i < j.
 * --sizes A,B,...: message sizes in bytes (default 0,1024,65536,1048576). Nothing else may cross
 * the pair's links meanwhile (a single 16-byte envelope shifts the result by 8/B): rank 0 starts
 * each pair with a 0-byte "go" and waits for its "done"; all other ranks stay silent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kGo = 1, kDone = 2, kWarm = 3, kTimed = 4, kResult = 5 };

static int reps = 1, warmups = 2;

/* Results are kept until the end: printing wakes the launcher's output forwarding, which would
 * compete with the next measurement for the CPU on small machines. */
static char* out;
static size_t out_len, out_cap;
static void emit(int i, int j, int m, double t) {
  if (out_cap - out_len < 96) {
    out_cap = out_cap ? 2 * out_cap : 65536;
    out = realloc(out, out_cap);
  }
  out_len += (size_t)snprintf(out + out_len, out_cap - out_len, "%d %d %d %.15e\n", i, j, m, t);
}

static void pingpong(int i, int j, int rank, int m, char* buf) {
  if (rank == i) {
    for (int w = 0; w < warmups; ++w) {
      MPI_Send(buf, m, MPI_BYTE, j, kWarm, MPI_COMM_WORLD);
      MPI_Recv(buf, m, MPI_BYTE, j, kWarm, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double t = 1e300;
    for (int r = 0; r < reps; ++r) {
      const double t0 = MPI_Wtime();
      MPI_Send(buf, m, MPI_BYTE, j, kTimed, MPI_COMM_WORLD);
      MPI_Recv(buf, m, MPI_BYTE, j, kTimed, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double one_way = (MPI_Wtime() - t0) / 2;
      if (one_way < t) t = one_way;
    }
    if (i == 0) {
      emit(i, j, m, t);
    } else {
      MPI_Send(&t, 1, MPI_DOUBLE, 0, kResult, MPI_COMM_WORLD); /* after the timed exchange */
    }
  } else if (rank == j) {
    for (int w = 0; w < warmups + reps; ++w) {
      const int tag = w < warmups ? kWarm : kTimed;
      MPI_Recv(buf, m, MPI_BYTE, i, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, m, MPI_BYTE, i, tag, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int half = 0;
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
    if (!strcmp(argv[a], "--half")) half = 1;
    if (!strcmp(argv[a], "--warmup") && a + 1 < argc) warmups = atoi(argv[++a]);
  }
  if (reps < 1) reps = 1;
  if (warmups < 2) warmups = 2;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int sizes[16] = {0, 1024, 65536, 1048576}, nsizes = 4;
  for (int a = 1; a + 1 < argc; ++a) {
    if (strcmp(argv[a], "--sizes") != 0) continue;
    nsizes = 0;
    for (char* tok = strtok(argv[a + 1], ","); tok && nsizes < 16; tok = strtok(NULL, ","))
      sizes[nsizes++] = atoi(tok);
  }
  int max_size = 0;
  for (int s = 0; s < nsizes; ++s) max_size = sizes[s] > max_size ? sizes[s] : max_size;
  char* buf = calloc((size_t)max_size + 1, 1);
  for (int i = 0; i < size; ++i) {
    for (int j = 0; j < size; ++j) {
      if (i == j || (half && i > j)) continue;
      for (int s = 0; s < nsizes; ++s) {
        const int m = sizes[s];
        if (rank == 0) { /* coordinator: start the pair, then wait until it is done */
          if (i != 0) MPI_Send(NULL, 0, MPI_BYTE, i, kGo, MPI_COMM_WORLD);
          if (j != 0) MPI_Send(NULL, 0, MPI_BYTE, j, kGo, MPI_COMM_WORLD);
          pingpong(i, j, rank, m, buf);
          if (i != 0) {
            double t;
            MPI_Recv(&t, 1, MPI_DOUBLE, i, kResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            emit(i, j, m, t);
          }
          if (j != 0) MPI_Recv(NULL, 0, MPI_BYTE, j, kDone, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == i || rank == j) {
          MPI_Recv(NULL, 0, MPI_BYTE, 0, kGo, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          pingpong(i, j, rank, m, buf);
          if (rank == j) MPI_Send(NULL, 0, MPI_BYTE, 0, kDone, MPI_COMM_WORLD);
        }
      }
    }
  }
  if (rank == 0 && out) fwrite(out, 1, out_len, stdout);
  free(out);
  free(buf);
  MPI_Finalize();
  return 0;
}

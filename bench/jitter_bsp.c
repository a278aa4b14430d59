/* A real bulk-synchronous program for colltune-jitter's comparison on this machine
 * (bench/jitter-real.sh, docs/jitter.md): every rank does PHASES compute phases of a fixed
 * amount of work (a loop calibrated to take QUANTUM_US without interruption: the fastest of
 * 20 trials), each followed by a barrier along a complete binary tree of empty messages (up to
 * rank 0, then down). Prints, on rank 0: the run's wall time, the fastest phase (compute and
 * barrier: the run without jitter would take PHASES times that) and their ratio, the measured
 * slowdown.
 *   mpiexec -n N bench_jitter_bsp [PHASES] [QUANTUM_US] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void work(long iters) {
  double x = 1.0;
  for (long i = 0; i < iters; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

static void tree_barrier(int rank, int n) {
  const int parent = rank == 0 ? -1 : (rank - 1) / 2;
  for (int c = 2 * rank + 1; c <= 2 * rank + 2 && c < n; ++c)
    MPI_Recv(NULL, 0, MPI_BYTE, c, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (parent >= 0) {
    MPI_Send(NULL, 0, MPI_BYTE, parent, 1, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_BYTE, parent, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  for (int c = 2 * rank + 1; c <= 2 * rank + 2 && c < n; ++c)
    MPI_Send(NULL, 0, MPI_BYTE, c, 2, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int phases = argc > 1 ? atoi(argv[1]) : 2000;
  const double quantum = (argc > 2 ? atof(argv[2]) : 1000) * 1e-6;
  /* Calibrate on rank 0, share: iterations per quantum. */
  long iters = 0;
  if (rank == 0) {
    const long probe = 1000000;
    double best = 1e9;
    for (int t = 0; t < 20; ++t) {
      const double t0 = MPI_Wtime();
      work(probe);
      const double dt = MPI_Wtime() - t0;
      if (dt < best) best = dt;
    }
    iters = (long)(quantum / best * probe);
  }
  MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double fastest = 1e9;
  const double start = MPI_Wtime();
  double last = start;
  for (int p = 0; p < phases; ++p) {
    work(iters);
    tree_barrier(rank, n);
    const double now = MPI_Wtime();
    if (now - last < fastest) fastest = now - last;
    last = now;
  }
  double total = last - start, all_total, all_fastest;
  MPI_Reduce(&total, &all_total, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&fastest, &all_fastest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("np %d phases %d quantum_us %g total_s %.6f fastest_phase_s %.9f slowdown %.5f\n", n,
           phases, quantum * 1e6, all_total, all_fastest, all_total / (phases * all_fastest));
  }
  MPI_Finalize();
  return 0;
}

/* Master-worker as MERPSYS's example, for colltune-predict app's validation (docs/app-models.md;
 * its model: config/apps/master-worker.yaml). `rounds` times: the master (rank 0) scatters
 * CHUNK bytes to every process, the workers compute WORK flops each (independent multiply-add
 * chains on their chunk, 2 flops per element step), the master gathers CHUNK/8 bytes from
 * each. Prints one line from rank 0:
 *   master_worker P rounds chunk work seconds compute_seconds
 *   master_worker ROUNDS CHUNK WORK */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: master_worker ROUNDS CHUNK WORK\n");
    MPI_Finalize();
    return 2;
  }
  const int rounds = atoi(argv[1]);
  const long chunk = atol(argv[2]);
  const double work = atof(argv[3]);
  if (rounds < 1 || chunk < 64 || chunk % 64 || work < 0) {
    if (rank == 0) fprintf(stderr, "master_worker: ROUNDS >= 1, CHUNK a multiple of 64, WORK >= 0\n");
    MPI_Finalize();
    return 2;
  }
  char* all = rank == 0 ? malloc((size_t)chunk * size) : NULL;
  char* mine = malloc((size_t)chunk);
  double* acc = calloc(8, sizeof(double));
  if ((rank == 0 && !all) || !mine || !acc) MPI_Abort(MPI_COMM_WORLD, 1);
  if (rank == 0)
    for (long k = 0; k < chunk * size; ++k) all[k] = (char)(k % 251);
  const long steps = (long)(work / 16); /* 8 chains x 2 flops */
  double compute = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Pcontrol(1); /* the timed region: COLLTUNE_RECORD_WINDOW=1 records it */
  const double t0 = MPI_Wtime();
  for (int r = 0; r < rounds; ++r) {
    MPI_Scatter(all, (int)chunk, MPI_BYTE, mine, (int)chunk, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank != 0) {
      const double c0 = MPI_Wtime();
      double x[8];
      for (int c = 0; c < 8; ++c) x[c] = mine[c] * 1e-3;
      for (long s = 0; s < steps; ++s)
        for (int c = 0; c < 8; ++c) x[c] = x[c] * 0.999999 + 1e-7;
      for (int c = 0; c < 8; ++c) acc[c] += x[c];
      ((double*)mine)[0] = acc[0];
      compute += MPI_Wtime() - c0;
    }
    MPI_Gather(mine, (int)(chunk / 8), MPI_BYTE, all, (int)(chunk / 8), MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  MPI_Pcontrol(0);
  double t[2] = {MPI_Wtime() - t0, compute}, worst[2];
  MPI_Reduce(t, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("master_worker %d %d %ld %g %.6f %.6f %g\n", size, rounds, chunk, work, worst[0], worst[1], all[1]);
  free(all);
  free(mine);
  free(acc);
  MPI_Finalize();
  return 0;
}

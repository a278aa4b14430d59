/* What MPI_Init leaves in a process: prints this process's resident memory after MPI_Init
 * (VmRSS) and its peak so far (VmHWM), in kB, from rank 0. For bench/table-memory.sh. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long rss = -1, hwm = -1;
  while (f && fgets(line, sizeof line, f)) {
    if (!strncmp(line, "VmRSS:", 6)) sscanf(line + 6, "%ld", &rss);
    if (!strncmp(line, "VmHWM:", 6)) sscanf(line + 6, "%ld", &hwm);
  }
  if (f) fclose(f);
  if (rank == 0) printf("init_rss rss_kb %ld hwm_kb %ld\n", rss, hwm);
  MPI_Finalize();
  return 0;
}

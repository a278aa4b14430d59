// Communicator churn: thousands of create/collective/free cycles. Alternates communicators of
// different sizes and rank orders, so a stale cached state reused for a recycled handle gives
// wrong data; leaked private duplicates exhaust MPICH's context ids (an MPI error) or memory.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

static long rss_kib() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * 4;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 3000;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int failures = 0;
  long rss_start = 0;
  for (int it = 0; it < iterations && failures == 0; ++it) {
    if (it == 200) rss_start = rss_kib();  // after warm-up allocations
    MPI_Comm c;
    int rc = (it % 3 == 0)   ? MPI_Comm_dup(MPI_COMM_WORLD, &c)
             : (it % 3 == 1) ? MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c)
                             : MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c);
    if (rc != MPI_SUCCESS) {
      std::fprintf(stderr, "FAIL rank %d: communicator creation failed at iteration %d\n", rank,
                   it);
      ++failures;
      break;
    }
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int crank, csize;
    MPI_Comm_rank(c, &crank);
    MPI_Comm_size(c, &csize);
    int v[3] = {crank == 0 ? it : -1, crank == 0 ? csize : -1, crank == 0 ? 7 : -1};
    rc = MPI_Bcast(v, 3, MPI_INT, 0, c);
    int g[64];
    int mine = crank * 1000 + it;
    if (rc == MPI_SUCCESS) rc = MPI_Gather(&mine, 1, MPI_INT, g, 1, MPI_INT, csize - 1, c);
    bool ok = rc == MPI_SUCCESS && v[0] == it && v[1] == csize && v[2] == 7;
    if (ok && crank == csize - 1) {
      for (int p = 0; p < csize; ++p) ok = ok && g[p] == p * 1000 + it;
    }
    if (!ok) {
      std::fprintf(stderr, "FAIL rank %d: iteration %d rc=%d got {%d,%d,%d}\n", rank, it, rc, v[0],
                   v[1], v[2]);
      ++failures;
    }
    MPI_Comm_free(&c);
  }
  const long growth = rss_kib() - rss_start;
  if (iterations > 1000 && growth > 16 * 1024) {
    std::fprintf(stderr, "FAIL rank %d: resident memory grew by %ld KiB over the churn\n", rank,
                 growth);
    ++failures;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("churn np=%d iterations=%d rss_growth_kib=%ld: %d failed\n", size, iterations,
                growth, total);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

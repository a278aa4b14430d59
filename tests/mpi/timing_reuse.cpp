// Global and window timing keep their clock offsets per communicator and root (a mark in the
// communicator's attributes). A communicator freed and replaced by another of other processes,
// which MPICH typically gives the same handle, must be synchronized afresh. Here (np >= 3) the
// first communicators are {0, 1} and {2, ...}, the next all ranks in reversed order, whose
// root was never synchronized with rank 0: with every rank's clock shifted by rank seconds
// (COLLTUNE_BENCH_TEST_CLOCK_SKEW=1), stale offsets would make a 64-byte bcast take seconds, or
// less than nothing. Prints one line per method and series, then "N wrong".
#include <mpi.h>

#include <cstdio>

#include "algorithms/registry.hpp"
#include "bench/experiments.hpp"
#include "bench/timing.hpp"

using namespace colltune;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench::Adaptive fixed{5, 5, 0.95, 0.025};
  int wrong = 0;
  for (const char* name : {"global", "window"}) {
    auto timing = bench::make_timing(name);
    bench::CollectiveCase c;
    c.op = Op::kBcast;
    c.bytes = 64;
    c.root = 0;
    c.algorithm = find_algorithm(Op::kBcast, "binomial");
    auto series = [&](MPI_Comm comm, const char* what) {
      bench::Series s;
      const int rc = bench::measure_collective(comm, c, *timing, true, fixed, &s);
      const bool ok = rc == MPI_SUCCESS && s.stats.mean >= 0 && s.stats.mean < 0.1;
      if (rank == 0) {
        std::printf("%s %s: %.3g s: %s\n", name, what, s.stats.mean, ok ? "ok" : "WRONG");
      }
      wrong += !ok;
    };
    MPI_Comm a, b;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : 1, rank, &a);
    series(a, "halves");
    series(a, "halves again (offsets kept)");
    const MPI_Comm old = a;
    MPI_Comm_free(&a);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &b);
    if (rank == 0) std::printf("%s: handle reused: %s\n", name, b == old ? "yes" : "no");
    series(b, "reversed");
    series(b, "reversed again");
    MPI_Comm_free(&b);
  }
  if (rank == 0) std::printf("timing_reuse np=%d: %d wrong\n", size, wrong);
  MPI_Finalize();
  return 0;
}

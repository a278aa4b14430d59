// The benchmarking library with an algorithm that fails on one rank at its 3rd call: every
// timing method and the bcast task method must end the series on every rank with an error
// (no rank waits for another), and the failed repetition is never a time (2 repetitions).
#include <mpi.h>

#include <cstdio>

#include "bench/experiments.hpp"
#include "bench/timing.hpp"

using namespace colltune;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench::Adaptive fixed{8, 8, 0.95, 0.025};
  int bad = 0;
  auto check = [&](const char* what, int rc, const bench::Series& s) {
    int failed = rc != MPI_SUCCESS, all = 0;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const bool ok = all == size && s.reps == 2;
    if (rank == 0)
      std::printf("%s: ranks failed %d/%d, reps %d: %s\n", what, all, size, s.reps,
                  ok ? "ok" : "WRONG");
    bad += !ok;
  };
  for (const std::string& name : bench::timing_names()) {
    int calls = 0;
    bench::CollectiveCase c;
    c.op = Op::kBcast;
    c.bytes = 64;
    c.root = 0;
    // Warm-up is not part of measure_collective: calls 1, 2 are timed, call 3 fails on rank 1.
    c.user_algorithm = [&](const CollArgs&) {
      return ++calls == 3 && rank == 1 % size ? MPI_ERR_OTHER : MPI_SUCCESS;
    };
    auto timing = bench::make_timing(name);
    bench::Series s;
    const int rc = bench::measure_collective(MPI_COMM_WORLD, c, *timing, true, fixed, &s);
    check(name.c_str(), rc, s);
  }
  {
    int calls = 0;
    bench::CollectiveCase c;
    c.op = Op::kBcast;
    c.bytes = 64;
    c.user_algorithm = [&](const CollArgs&) {
      return ++calls == 3 && rank == 1 % size ? MPI_ERR_OTHER : MPI_SUCCESS;
    };
    bench::Series s;
    const int rc = bench::measure_bcast_tasks(MPI_COMM_WORLD, c, fixed, &s);
    int failed = rc != MPI_SUCCESS, all = 0;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("bcast tasks: ranks failed %d/%d: %s\n", all, size, all == size ? "ok" : "WRONG");
    bad += all != size;
  }
  if (rank == 0) std::printf("bench_failure np=%d: %d failed\n", size, bad);
  MPI_Finalize();
  return bad ? 1 : 0;
}

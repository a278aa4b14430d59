// Timing methods against SMPI's exact ground truth (checked by tests/smpi/timing-truth.py).
//
// Every rank starts the measured operation at the same simulated instant T: after a barrier the
// root picks T = now + 10 ms, broadcasts it, and every rank sleeps until T exactly (simulated
// computation of (T - now) * speed flops on its own host). The method runs without its own
// isolation barrier, whose exit skew SMPI simulates faithfully and which would otherwise be
// part of what max and root timing measure. Rank 0 prints one line per measurement:
//   method op algorithm bytes root value correction f_0 .. f_{n-1}
// where value is the method's result, correction what it subtracted (root timing's
// confirmation cost) and f_p the instant rank p left the operation, minus T. Method "tasks"
// (bcast only) runs measure_bcast_tasks, which isolates repetitions itself:
//   tasks bcast algorithm bytes root value n
//
//   smpi_timing_truth [--ops scatter,gather,bcast] [--algorithms linear,binomial]
//                     [--sizes 1024,65536] [--methods root,max,global,tasks] [--reps 2] [--root 0]
#include <mpi.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "../../src/algorithms/registry.hpp"
#include "../../src/bench/experiments.hpp"
#include "../../src/bench/timing.hpp"

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) out.push_back(x);
  return out;
}

// Sleeps (simulated) until the simulated instant t.
void sleep_until(double t) {
  const double left = t - MPI_Wtime();
  if (left > 0) smpi_execute_flops(left * sg_host_get_speed(sg_host_self()));
}

int fail(const char* what) {
  std::fprintf(stderr, "smpi_timing_truth: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 2);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::vector<std::string> ops{"scatter", "gather", "bcast"}, algos{"linear", "binomial"},
      methods{"root", "max", "global", "window", "tasks"};
  std::vector<std::string> sizes{"1024", "65536"};
  int reps = 2, root = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--ops")
      ops = split(v);
    else if (k == "--algorithms")
      algos = split(v);
    else if (k == "--sizes")
      sizes = split(v);
    else if (k == "--methods")
      methods = split(v);
    else if (k == "--reps")
      reps = std::atoi(v.c_str());
    else if (k == "--root")
      root = std::atoi(v.c_str());
    else
      return fail(("unknown option " + k).c_str());
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm shadow;
  MPI_Comm_dup(MPI_COMM_WORLD, &shadow);
  for (const auto& opname : ops) {
    const auto parsed = colltune::op_from_name(opname);
    if (!parsed) return fail(("unknown op " + opname).c_str());
    const colltune::Op op = *parsed;
    for (const auto& algoname : algos) {
      const colltune::Algorithm* algo = colltune::find_algorithm(op, algoname);
      if (!algo) return fail(("unknown algorithm " + algoname).c_str());
      for (const auto& sz : sizes) {
        const std::uint64_t bytes = std::strtoull(sz.c_str(), nullptr, 10);
        std::vector<char> send(op == colltune::Op::kScatter && rank == root ? bytes * size : bytes,
                               1);
        std::vector<char> recv(op == colltune::Op::kGather && rank == root ? bytes * size : bytes);
        const colltune::CollArgs args = colltune::byte_args(op, MPI_COMM_WORLD, shadow, rank, size,
                                                            root, bytes, send.data(), recv.data());
        for (const auto& m : methods) {
          if (m == "tasks") {  // the bcast task method: its own barriers, no per-rank finishes
            if (op != colltune::Op::kBcast) continue;
            colltune::bench::CollectiveCase c;
            c.op = op;
            c.algorithm = algo;
            c.bytes = bytes;
            c.root = root;
            colltune::bench::Adaptive fixed;
            fixed.min_reps = fixed.max_reps = reps;
            colltune::bench::Series s;
            if (colltune::bench::measure_bcast_tasks(MPI_COMM_WORLD, c, fixed, &s) != MPI_SUCCESS)
              return fail("measure_bcast_tasks");
            if (rank == 0) {
              for (double v : s.samples)
                std::printf("tasks %s %s %llu %d %.17g %d\n", opname.c_str(), algoname.c_str(),
                            static_cast<unsigned long long>(bytes), root, v, size);
            }
            continue;
          }
          auto timing = colltune::bench::make_timing(m);
          if (!timing) return fail(("unknown method " + m).c_str());
          if (timing->prepare(MPI_COMM_WORLD, root) != MPI_SUCCESS) return fail("prepare");
          for (int r = 0; r < reps; ++r) {
            double t_start = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == root) t_start = MPI_Wtime() + 0.01;
            MPI_Bcast(&t_start, 1, MPI_DOUBLE, root, MPI_COMM_WORLD);
            sleep_until(t_start);
            double finish = NAN, value = NAN;
            const int rc = timing->measure(
                MPI_COMM_WORLD, root, /*isolate=*/false,
                [&] {  // from this rank's start: t_start, or the window method's own start
                  const double begin = MPI_Wtime();
                  const int rc = algo->run(args);
                  finish = MPI_Wtime() - begin;
                  return rc;
                },
                &value);
            if (rc != MPI_SUCCESS) return fail("measure");
            std::vector<double> finishes(size);
            MPI_Gather(&finish, 1, MPI_DOUBLE, finishes.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank == 0) {
              std::printf("%s %s %s %llu %d %.17g %.17g", m.c_str(), opname.c_str(),
                          algoname.c_str(), static_cast<unsigned long long>(bytes), root, value,
                          timing->correction());
              for (double f : finishes) std::printf(" %.17g", f);
              std::printf("\n");
            }
          }
        }
      }
    }
  }
  MPI_Comm_free(&shadow);
  MPI_Finalize();
  return 0;
}

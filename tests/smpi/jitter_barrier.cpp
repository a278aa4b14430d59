// The SMPI side of colltune-jitter's validation (tests/smpi/jitter-validate.py): every rank
// does --phases compute phases of --quantum flops (the host's speed profile, built from a
// jitter trace, stretches them) separated by a barrier on a complete binary tree of empty
// messages, with --send and --recv flops of CPU around each message (stretched too) and the
// platform's link latency between. Rank 0 prints "smpi <seconds>": when the last rank left the
// last barrier. With --trace and --starts, rank 0 also prints "colltune-jitter <seconds>" and
// "colltune-jitter-quiet <seconds>": colltune-jitter's simulation of the same program from the
// same points of the trace, with jitter and without.
#include <mpi.h>
#include <smpi/smpi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "jitter/simulate.hpp"
#include "jitter/trace.hpp"

namespace {

double arg(int argc, char** argv, const char* name, double d) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == name) return std::atof(argv[i + 1]);
  }
  return d;
}

const char* sarg(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == name) return argv[i + 1];
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  // --coschedule IN --high H --low L --out OUT: writes the co-scheduled trace (OUT) and its
  // high windows' starts (OUT.windows), then exits (the test's input, made by the library).
  if (const char* in = sarg(argc, argv, "--coschedule")) {
    if (rank == 0) {
      using namespace colltune::jitter;
      std::vector<double> starts;
      const Trace c =
          coschedule(read_trace(in), static_cast<std::uint64_t>(arg(argc, argv, "--high", 0)),
                     static_cast<std::uint64_t>(arg(argc, argv, "--low", 0)), &starts);
      const std::string out = sarg(argc, argv, "--out");
      write_trace(out, c);
      std::ofstream w(out + ".windows");
      w.precision(17);
      for (double x : starts) w << x << "\n";
      std::printf("windows %zu\n", starts.size());
    }
    MPI_Finalize();
    return 0;
  }
  const int phases = static_cast<int>(arg(argc, argv, "--phases", 10));
  const double quantum = arg(argc, argv, "--quantum", 1e6);  // flops = ns = cycles at 1 GHz
  const double send = arg(argc, argv, "--send", 1000), recv = arg(argc, argv, "--recv", 1000);
  const double wire = arg(argc, argv, "--wire", 2000);
  const int parent = rank == 0 ? -1 : (rank - 1) / 2;
  std::vector<int> kids;
  for (int c = 2 * rank + 1; c <= 2 * rank + 2 && c < n; ++c) kids.push_back(c);
  for (int p = 0; p < phases; ++p) {
    smpi_execute_flops(quantum);
    for (int c : kids) {
      MPI_Recv(nullptr, 0, MPI_BYTE, c, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      smpi_execute_flops(recv);
    }
    if (parent >= 0) {
      smpi_execute_flops(send);
      MPI_Send(nullptr, 0, MPI_BYTE, parent, 1, MPI_COMM_WORLD);
      MPI_Recv(nullptr, 0, MPI_BYTE, parent, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      smpi_execute_flops(recv);
    }
    for (int c : kids) {
      smpi_execute_flops(send);
      MPI_Send(nullptr, 0, MPI_BYTE, c, 2, MPI_COMM_WORLD);
    }
  }
  double mine = MPI_Wtime(), end = 0;
  MPI_Reduce(&mine, &end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("smpi %.12g\n", end);
    const char* trace = sarg(argc, argv, "--trace");
    const char* starts_file = sarg(argc, argv, "--starts");
    if (trace && starts_file) {
      using namespace colltune::jitter;
      const Trace t = read_trace(trace);
      std::vector<double> starts;
      std::ifstream in(starts_file);
      for (double x; in >> x;) starts.push_back(x);
      SimOptions o;
      o.quantum = quantum;
      o.phases = phases;
      o.latency.net = {send, recv, wire};
      const Tree tree = kary_tree(n, 2);
      const Timeline tl(t);
      const double hz = t.header.hz;
      std::printf("colltune-jitter %.12g\n", simulate_from(tl, tree, o, starts) / hz);
      std::printf("colltune-jitter-quiet %.12g\n",
                  simulate_from(Timeline::quiet(tl.length()), tree, o, starts) / hz);
    }
  }
  MPI_Finalize();
  return 0;
}

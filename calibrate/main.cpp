// colltune-calibrate: measures the processes it runs on and writes the model table.
//   mpiexec -n N colltune-calibrate [--output FILE] [--budget SECONDS] [--quick]
//                                   [--report FILE] [--timing root|max|global|window]
// Progress and the validation report go to standard output (rank 0). Bad arguments: one line,
// exit 2, before MPI starts. docs/calibration.md.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/timing.hpp"
#include "calibration/calibration.hpp"
#include "cli.hpp"
#include "settings.hpp"
#include "table/atomic_file.hpp"

namespace {

constexpr const char* kUsage =
    "usage: colltune-calibrate [--output FILE] [--budget SECONDS] [--quick] [--report FILE]\n"
    "                          [--timing root|max|global|window]\n";
constexpr const char* kHelp =
    "Run under mpiexec over the processes to calibrate (one per core, laid out as jobs run).\n"
    "  --output FILE   model table (default colltune-model.yaml; written to a temporary name,\n"
    "                  flushed, renamed)\n"
    "  --budget S      seconds the measurements share, 0.1 to 3600 (default 10)\n"
    "  --quick         fewer sizes and repetitions (first launch)\n"
    "  --report FILE   validation report, with FILE.gp and FILE.png (gnuplot)\n"
    "  --timing M      timing of the sweeps (default window)\n"
    "Docs: docs/calibration.md. Bad arguments exit 2.\n";

}  // namespace

int main(int argc, char** argv) {
  namespace cli = colltune::cli;
  std::string output = "colltune-model.yaml", report;
  colltune::calibrate::Options o;
  cli::Parser p("colltune-calibrate", kUsage, kHelp, cli::first_process());
  p.app.add_option("--output", output)->type_name("FILE");
  p.app.add_option("--budget", o.budget)
      ->type_name("SECONDS")
      ->check(cli::number(0.1, 3600, "seconds"));
  p.app.add_flag("--quick", o.quick);
  p.app.add_option("--report", report)->type_name("FILE");
  p.app.add_option("--timing", o.timing)
      ->type_name("METHOD")
      ->check(cli::one_of(colltune::bench::timing_names()));
  if (const int rc = p.parse(argc, argv); rc >= 0) return rc;
  const colltune::Settings s =
      colltune::read_settings([](const char* n) -> const char* { return std::getenv(n); });
  o.identity = s.identity;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  o.progress = [](const std::string& l) {
    std::printf("%s\n", l.c_str());
    std::fflush(stdout);
  };
  if (rank == 0) {
    std::printf("colltune-calibrate: %d processes, budget %g s%s -> %s\n", size, o.budget,
                o.quick ? " (quick)" : "", output.c_str());
  }
  colltune::calibrate::Result res;
  std::string why;
  const int rc = colltune::calibrate::run(comm, o, &res, &why);
  int status = 0;
  if (rc != MPI_SUCCESS) {
    if (rank == 0) {
      std::fprintf(stderr, "colltune-calibrate: failed after %.3g s: %s\n", res.seconds,
                   why.c_str());
    }
    status = 1;
  } else if (rank == 0) {
    std::printf("%s", res.report.c_str());
    try {
      colltune::write_file_atomically(output, res.text);
      std::printf("wrote %s (%.2f s)\n", output.c_str(), res.seconds);
      if (!report.empty()) {
        colltune::write_file_atomically(report, res.report);
        const std::string png = report + ".png";
        const std::string gp = report + ".gp";
        colltune::write_file_atomically(gp, colltune::calibrate::plot_script(res.table, png));
        std::printf("wrote %s and %s (gnuplot; %s)\n", report.c_str(), gp.c_str(), png.c_str());
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-calibrate: %s\n", e.what());
      status = 2;
    }
  }
  MPI_Comm_free(&comm);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
#ifndef SMPI_SHARED_MALLOC
  if (rank == 0 && status == 0 && !report.empty()) {
    const std::string cmd = "command -v gnuplot >/dev/null 2>&1 && gnuplot '" + report + ".gp'";
    if (std::system(cmd.c_str()) != 0) {
      std::printf("(no PNG: gnuplot is missing or failed)\n");
    }
  }
#endif
  return status;
}

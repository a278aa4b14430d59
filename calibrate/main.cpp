// colltune-calibrate: measures the processes it runs on and writes the model table.
//   mpiexec -n N colltune-calibrate [--output FILE] [--budget SECONDS] [--quick]
//                                   [--report FILE] [--timing root|max|global|window]
// Progress and the validation report go to standard output (rank 0). Bad arguments: one line,
// exit 2, before MPI starts. docs/calibration.md.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "atomic_file.hpp"
#include "bench/timing.hpp"
#include "calibration/calibration.hpp"
#include "settings.hpp"

namespace {

struct Args {
  std::string output = "colltune-model.yaml";
  std::string report;
  colltune::calibrate::Options o;
};

// The launcher's rank of this process before MPI starts (hydra, Slurm, Open MPI); 0 if unknown.
bool first_process() {
  for (const char* v : {"PMI_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"}) {
    if (const char* s = std::getenv(v)) return std::atoi(s) == 0;
  }
  return true;
}

int usage(const std::string& why) {
  if (first_process()) {
    std::fprintf(
        stderr,
        "colltune-calibrate: %s\nusage: colltune-calibrate [--output FILE] [--budget "
        "SECONDS (0.1 to 3600)] [--quick] [--report FILE] [--timing root|max|global|window]\n",
        why.c_str());
  }
  return 2;
}

constexpr const char* kHelp =
    "usage: colltune-calibrate [--output FILE] [--budget SECONDS] [--quick] [--report FILE]\n"
    "                          [--timing root|max|global|window]\n"
    "Run under mpiexec over the processes to calibrate (one per core, laid out as jobs run).\n"
    "  --output FILE   model table (default colltune-model.yaml; written to a temporary name,\n"
    "                  flushed, renamed)\n"
    "  --budget S      seconds the measurements share, 0.1 to 3600 (default 10)\n"
    "  --quick         fewer sizes and repetitions (first launch)\n"
    "  --report FILE   validation report, with FILE.gp and FILE.png (gnuplot)\n"
    "  --timing M      timing of the sweeps (default window)\n"
    "Docs: docs/calibration.md. Bad arguments exit 2.\n";

// "" or why the arguments are invalid; "help" for --help.
std::string parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") return "help";
    auto value = [&](std::string* out) -> std::string {
      if (i + 1 >= argc) return k + " needs a value";
      *out = argv[++i];
      if (out->empty()) return k + " needs a non-empty value";
      return {};
    };
    std::string v, why;
    if (k == "--output") {
      why = value(&a->output);
    } else if (k == "--report") {
      why = value(&a->report);
    } else if (k == "--quick") {
      a->o.quick = true;
    } else if (k == "--budget") {
      if (!(why = value(&v)).empty()) return why;
      char* end = nullptr;
      const double b = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(b >= 0.1 && b <= 3600)) {
        return "--budget: invalid value '" + v + "' (valid: seconds from 0.1 to 3600)";
      }
      a->o.budget = b;
    } else if (k == "--timing") {
      if (!(why = value(&v)).empty()) return why;
      if (!colltune::bench::make_timing(v)) {
        return "--timing: unknown method '" + v + "' (valid: root, max, global, window)";
      }
      a->o.timing = v;
    } else {
      return "unknown argument '" + k +
             "' (valid: --output, --budget, --quick, --report, --timing)";
    }
    if (!why.empty()) return why;
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (const std::string why = parse(argc, argv, &a); why == "help") {
    if (first_process()) std::fputs(kHelp, stdout);
    return 0;
  } else if (!why.empty()) {
    return usage(why);
  }
  const colltune::Settings s =
      colltune::read_settings([](const char* n) -> const char* { return std::getenv(n); });
  a.o.identity = s.identity;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  a.o.progress = [](const std::string& l) {
    std::printf("%s\n", l.c_str());
    std::fflush(stdout);
  };
  if (rank == 0) {
    std::printf("colltune-calibrate: %d processes, budget %g s%s -> %s\n", size, a.o.budget,
                a.o.quick ? " (quick)" : "", a.output.c_str());
  }
  colltune::calibrate::Result res;
  std::string why;
  const int rc = colltune::calibrate::run(comm, a.o, &res, &why);
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
      colltune::write_file_atomically(a.output, res.text);
      std::printf("wrote %s (%.2f s)\n", a.output.c_str(), res.seconds);
      if (!a.report.empty()) {
        colltune::write_file_atomically(a.report, res.report);
        const std::string png = a.report + ".png";
        const std::string gp = a.report + ".gp";
        colltune::write_file_atomically(gp, colltune::calibrate::plot_script(res.table, png));
        std::printf("wrote %s and %s (gnuplot; %s)\n", a.report.c_str(), gp.c_str(), png.c_str());
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
  if (rank == 0 && status == 0 && !a.report.empty()) {
    const std::string cmd = "command -v gnuplot >/dev/null 2>&1 && gnuplot '" + a.report + ".gp'";
    if (std::system(cmd.c_str()) != 0) {
      std::printf("(no PNG: gnuplot is missing or failed)\n");
    }
  }
#endif
  return status;
}

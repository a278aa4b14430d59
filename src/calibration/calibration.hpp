// Calibration (docs/calibration.md): measures the processes of a communicator and writes the
// model table the library chooses from. One library, used by colltune-calibrate and by the
// preloaded library's first-launch calibration; it calls only PMPI_* (through the benchmarking
// library) and returns MPI error codes, never throws across its interface. Rooms: measure
// (MPI), fit (no MPI), report (table and plot), run (the phases and the budget).
#pragma once

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>

#include "../mapped_alloc.hpp"
#include "../table/model_table.hpp"

namespace colltune::calibrate {

struct Options {
  double budget = 10;  // seconds of measurement the phases share (agreed: rank 0's clock)
  bool quick = false;  // fewer sizes and repetitions (first launch)
  std::optional<std::string> identity;  // COLLTUNE_IDENTITY of this process
  std::string timing = "window";        // timing method of the sweeps (src/bench/timing.hpp)
  // Progress lines, called on rank 0 only.
  std::function<void(const std::string&)> progress;
};

struct Result {
  ModelTable table;    // the same on every rank (rank 0 computes it, every rank parses it)
  MappedString text;   // the table as written (YAML; mapped_alloc.hpp: may be large)
  std::string report;  // the validation report (text), also in table.validation
  double seconds = 0;  // calibration's own duration (MPI_Wtime; set on failure too)
};

// Collective over `comm` (an intracommunicator of >= 2 processes); ends within o.budget plus
// 10% (what does not fit is not started; the report says what was cut). Returns an MPI error
// code, the same on every rank; *why names what failed when it is not MPI_SUCCESS. A failure on
// one rank alone (an exception: memory) returns at once on that rank; under a waits::Guard it
// abandons the guard, so that its peers' waits give up, else they may wait for it.
int run(MPI_Comm comm, const Options& o, Result* out, std::string* why);

// Gnuplot script plotting predicted against measured time for every held-out case of a table
// written by run() (its validation section), into `png`.
std::string plot_script(const ModelTable& t, const std::string& png);

}  // namespace colltune::calibrate

// The process-wide runtime behind the wrappers: settings, per-communicator state, dispatch,
// statistics. Every function here is noexcept toward the C ABI (wrappers/ only forwards).
#pragma once

#include <array>
#include <atomic>
#include <optional>
#include <string>

#include "collective.hpp"
#include "config.hpp"
#include "model_table.hpp"
#include "selection.hpp"

namespace colltune {

enum class Fallback { kSilent, kWarn, kError };

// Environment settings (COLLTUNE_*). Parsing never throws; problems land in `errors`.
struct Settings {
  bool disabled = false;
  Fallback fallback = Fallback::kWarn;
  int verbose = 0;
  bool stats = false;
  std::array<const Algorithm*, kNumOps> forced{};  // nullptr: auto
  std::optional<std::string> config_path;          // COLLTUNE_CONFIG
  std::optional<std::string> model_path;           // COLLTUNE_MODEL
  std::vector<std::string> errors;
};

// `getenv` is injectable for unit tests.
Settings read_settings(const char* (*getenv_fn)(const char*));

// Per-communicator state, cached under a keyval whose delete callback frees it.
struct CommState {
  bool inter = false;
  bool reporter = false;  // prints this communicator's messages: world rank 0 if a member, else
                          // local rank 0
  int rank = 0;
  int size = 1;
  CommFacts facts;
  MPI_Comm shadow = MPI_COMM_NULL;  // private duplicate, created at the first tuned call
  std::array<Decisions, kNumOps> decisions;
};

// Called by the MPI_Init / MPI_Init_thread wrappers after PMPI_Init succeeded. Collective over
// MPI_COMM_WORLD (one allreduce checks that every rank loaded the same configuration).
int runtime_init();
// Called by the MPI_Finalize wrapper before PMPI_Finalize (statistics, cache teardown).
int runtime_finalize();

// True when an op must go straight to PMPI (disabled, or forced native with nothing to record).
extern std::array<std::atomic<bool>, kNumOps> g_passthrough;

// The tuned path of one call. `args` holds the user's arguments (comm, root, buffers).
int dispatch(Op op, CollArgs& args) noexcept;

// Per-rank counters of calls of an (op, algorithm) pair; test and stats introspection.
std::uint64_t calls_of(Op op, std::string_view algorithm);

}  // namespace colltune

// The process-wide runtime behind the wrappers. Every function here is noexcept toward the C
// ABI (wrappers/ only forwards). Implementation in src/runtime/: init.cpp (MPI_Init/Finalize,
// configuration discovery), agreement.cpp (cross-rank check), comm_state.cpp (per-communicator
// state), dispatch.cpp (the per-call path), stats.cpp (COLLTUNE_STATS).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "algorithms/collective.hpp"

namespace colltune {

// Called by the MPI_Init / MPI_Init_thread wrappers after PMPI_Init succeeded. Collective over
// MPI_COMM_WORLD on every preloaded rank, whatever the settings: one allreduce checks that every
// rank has the same settings and configuration. A second call does nothing.
int runtime_init();
// Called by the MPI_Finalize wrapper before PMPI_Finalize (statistics, cache teardown).
int runtime_finalize();

// True when an op must go straight to PMPI (disabled, or forced native with nothing to record).
extern std::array<std::atomic<bool>, kNumOps> g_passthrough;

// The tuned path of one call. `args` holds the user's arguments (comm, root, buffers). A failure
// inside colltune goes through the communicator's error handler.
int dispatch(Op op, CollArgs& args) noexcept;

// A call MPICH serves whole whatever the decision (an intercommunicator's large-count call):
// COLLTUNE_FALLBACK applies to a forced algorithm, statistics count it, then `native(ctx)` runs.
int dispatch_passthrough(Op op, MPI_Comm comm, int (*native)(void*), void* ctx) noexcept;

// Per-rank counters of calls of an (op, algorithm) pair; test and stats introspection.
std::uint64_t calls_of(Op op, std::string_view algorithm);
// Decisions and built trees cached for comm on this rank (-1: no state yet); for tests.
long long cached_entries(MPI_Comm comm) noexcept;

}  // namespace colltune

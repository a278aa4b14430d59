// Internal state of the runtime (src/runtime/*.cpp), read-only after runtime_init.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "../algorithms/collective.hpp"
#include "../model/lmo.hpp"
#include "../selection.hpp"
#include "../settings.hpp"
#include "../table/config.hpp"
#include "../table/model_table.hpp"

namespace colltune {

struct Runtime {
  Settings settings;
  std::unique_ptr<AdminConfig> config;
  std::unique_ptr<ModelTable> table;
  bool tuning = false;  // false: every decision is native (disabled, bad input, disagreement)
  bool stats = false;   // COLLTUNE_STATS, agreed by every rank
  int keyval = MPI_KEYVAL_INVALID;
  int world_rank = 0;
  int world_size = 1;
  MPI_Comm world = MPI_COMM_NULL;  // private duplicate of MPI_COMM_WORLD
  // With a calibrated model (table->platform_model): its parameters plus the cluster average
  // (model::with_average), and each world rank's identity index in them.
  model::LmoParams params;
  std::vector<int> world_identity;
};
extern Runtime g_rt;

// Per-communicator state, cached under g_rt.keyval; its delete callback frees it.
struct CommState {
  bool inter = false;
  bool reporter = false;  // prints this communicator's messages: world rank 0 if a member, else
                          // local rank 0
  int rank = 0;
  int size = 1;
  CommFacts facts;
  MPI_Comm shadow = MPI_COMM_NULL;  // private duplicate, created at the first tuned call
  std::array<Decisions, kNumOps> decisions;
  // Model-driven ops: decisions per root and size group (model::decision_group), built at the
  // first call with that root and a size of that group.
  std::vector<int> members;  // identity index of each rank (g_rt.params)
  std::array<bool, kNumOps> by_model{};
  struct RootDecisions {
    int root, group;
    std::unique_ptr<Decisions> d;
  };
  std::array<std::vector<RootDecisions>, kNumOps> by_root;
  std::array<const Decisions*, kNumOps> last{};  // the last (root, group)'s, the common case
  std::array<int, kNumOps> last_root{-1, -1, -1}, last_group{-1, -1, -1};
  // Built trees of forced or ruled built algorithms, per (algorithm, root, size class).
  struct Built {
    int algorithm, root, size_class;
    std::shared_ptr<const BuiltTree> tree;
  };
  std::vector<Built> built;
};

// comm_state.cpp
extern std::atomic<std::uint64_t> g_generation;  // bumped when any state is deleted
int delete_state(MPI_Comm, int, void* value, void*);
int create_state(MPI_Comm comm, CommState** out);  // collective: the first intercepted call
std::string comm_label(MPI_Comm comm, const CommState& st);
// A built algorithm's tree for a call whose decision carries none (forced, admin rules): built
// once per (algorithm, root, size class) from the model's parameters of the members, or from
// uniform costs without a model; the same on every rank, no communication.
const BuiltTree* built_tree(CommState& st, const Algorithm& alg, int root, std::uint64_t bytes);

// first_launch.cpp (collective over g_rt.world, after the agreement check)
// Without a table: the cached one for this platform, or a quick calibration (COLLTUNE_CALIBRATE).
int first_launch();
// With a calibrated model: every world rank's identity (one allgather), fallbacks said once.
int setup_identities();
// The decisions of a model-driven op for one root and size group (built once; no
// communication): they cover that group's sizes.
const Decisions& model_decisions(CommState& st, Op op, int root, int group);

// stats.cpp
int stats_init();  // local: allocates the counters
void record(const Algorithm& alg, std::uint64_t bytes, double seconds);
int report_stats();  // collective over g_rt.world, on every rank when g_rt.stats

// dispatch.cpp
void validate_fast_type_size();

}  // namespace colltune

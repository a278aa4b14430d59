// Internal state of the runtime (src/runtime/*.cpp), read-only after runtime_init.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "../algorithms/collective.hpp"
#include "../model/lmo.hpp"
#include "../selection.hpp"
#include "../settings.hpp"
#include "../table/config.hpp"
#include "../table/model_table.hpp"
#include "../test_hooks.hpp"
#include "agreement.hpp"

namespace colltune {

struct Runtime {
  Settings settings;
  std::unique_ptr<AdminConfig> config;
  std::unique_ptr<ModelTable> table;
  bool tuning = false;     // false: every decision is native (disabled, bad input, disagreement)
  bool any_tuned = false;  // some op may run another algorithm than native (communicators then
                           // get a private communicator)
  bool stats = false;      // COLLTUNE_STATS, agreed by every rank
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

// A small cache of what is built per call shape (decisions per root and size group, trees per
// algorithm, root and size class): hashed lookups, at most kCapacity entries, the least recently
// used evicted. Every rank of a communicator makes the same calls, so every rank's cache holds
// the same keys: insert() adds without evicting, and commit() or abandon() follows the
// agreement on the new entry (state.hpp's built_agreed), the same on every rank.
template <typename V>
class LruCache {
 public:
  static constexpr std::size_t kCapacity = 16;
  const V* find(std::uint64_t key) {
    const auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    items_.splice(items_.begin(), items_, it->second);
    return &it->second->second;
  }
  void insert(std::uint64_t key, V v) {  // may throw (memory): nothing is then added
    items_.emplace_front(key, std::move(v));
    try {
      index_.emplace(key, items_.begin());
    } catch (...) {
      items_.pop_front();
      throw;
    }
  }
  void commit() noexcept {
    while (items_.size() > kCapacity) {
      index_.erase(items_.back().first);
      items_.pop_back();
    }
  }
  void abandon(std::uint64_t key) noexcept {
    const auto it = index_.find(key);
    if (it == index_.end()) return;
    items_.erase(it->second);
    index_.erase(it);
  }
  std::size_t size() const noexcept { return items_.size(); }

 private:
  std::list<std::pair<std::uint64_t, V>> items_;
  std::unordered_map<std::uint64_t, typename std::list<std::pair<std::uint64_t, V>>::iterator>
      index_;
};

// Per-communicator state, cached under g_rt.keyval; its delete callback frees it.
struct CommState {
  bool inter = false;
  // Every call on this communicator runs native (said once): over the limit of private
  // communicators, one that could not be made, members outside MPI_COMM_WORLD, a failed set-up.
  bool native_only = false;
  bool reporter = false;  // prints this communicator's messages: world rank 0 if a member, else
                          // local rank 0
  int rank = 0;
  int size = 1;
  CommFacts facts;
  MPI_Comm shadow = MPI_COMM_NULL;  // private communicator, made with the state when tuning
  std::array<Decisions, kNumOps> decisions;
  // Model-driven ops: decisions per root and size group (model::decision_group), built at the
  // first call with that root and a size of that group.
  std::vector<int> members;  // identity index of each rank (g_rt.params)
  std::vector<int> hosts;    // without a model: each rank's host (built trees), else empty
  std::array<bool, kNumOps> by_model{};
  std::array<LruCache<std::shared_ptr<const Decisions>>, kNumOps> by_root;
  std::array<std::shared_ptr<const Decisions>, kNumOps> last{};  // the last (root, group)'s
  std::array<int, kNumOps> last_root{-1, -1, -1}, last_group{-1, -1, -1};
  // Built trees of forced or ruled built algorithms, per (algorithm, root, size class).
  std::array<LruCache<std::shared_ptr<const BuiltTree>>, kNumOps> built;
};

// Live private communicators of this process; past kMaxShadows a new communicator runs native
// (MPICH has about 2048 context ids, and the application's own must not run out first).
inline constexpr int kMaxShadows = 256;
extern std::atomic<int> g_live_shadows;

// comm_state.cpp
extern std::atomic<std::uint64_t> g_generation;  // bumped when any state is deleted
int delete_state(MPI_Comm, int, void* value, void*);
int create_state(MPI_Comm comm, CommState** out);  // collective: the first intercepted call
std::string comm_label(MPI_Comm comm, const CommState& st);
// A built algorithm's tree for a call whose decision carries none (forced, admin rules): built
// once per (algorithm, root, size class) from the model's parameters of the members, or from
// uniform costs without a model. Collective over st.shadow when not cached (one allreduce: a
// rank that could not build it is agreed on). *tree nullptr: run native, on every rank.
int built_tree(CommState& st, const Algorithm& alg, int root, std::uint64_t bytes,
               const BuiltTree** tree);

// The cached value of `key`, or on a miss one built by build() (which may throw) and agreed on
// over `shadow` (one allreduce; every rank misses together: same calls, same cache). *out is
// empty when some rank could not build it; then no rank keeps it and the call runs native.
template <typename V, typename F>
int cached_agreed(MPI_Comm shadow, LruCache<V>& cache, std::uint64_t key, const char* hook,
                  F&& build, V* out) {
  if (const V* v = cache.find(key)) {
    *out = *v;
    return MPI_SUCCESS;
  }
  bool ok = true, every = false;
  try {
    if (hooks::fail_here(hook)) throw std::bad_alloc();
    *out = build();
    cache.insert(key, *out);
  } catch (const std::exception&) {
    ok = false;
  }
  const int rc = all_ok(shadow, ok, &every);
  if (rc != MPI_SUCCESS || !every) {
    cache.abandon(key);
    *out = V{};
    return rc;
  }
  cache.commit();
  return MPI_SUCCESS;
}

// first_launch.cpp (collective over g_rt.world, after the agreement check)
// Without a table: the cached one for this platform, or a quick calibration (COLLTUNE_CALIBRATE).
int first_launch();
// With a calibrated model: every world rank's identity (one allgather), fallbacks said once.
int setup_identities();
// The decisions of a model-driven op for one root and size group: they cover that group's sizes.
// Collective over st.shadow when not cached, as built_tree; *d nullptr: run native, every rank.
int model_decisions(CommState& st, Op op, int root, int group, std::shared_ptr<const Decisions>* d);

// stats.cpp
int stats_init();  // local: allocates the counters
void record(const Algorithm& alg, std::uint64_t bytes, double seconds);
// A verification's outcome (COLLTUNE_VERIFY), counted once per communicator (its reporter).
void record_verification(Op op, bool kept);
int report_stats();  // collective over g_rt.world, on every rank when g_rt.stats

// dispatch.cpp
void validate_fast_type_size();

}  // namespace colltune

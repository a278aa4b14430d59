// Per-communicator state: built at a communicator's first intercepted collective, cached under
// a keyval, freed by the keyval's delete callback.
#include <algorithm>
#include <memory>
#include <new>

#include "../algorithms/registry.hpp"
#include "../identity.hpp"
#include "../log.hpp"
#include "../model/platform_model.hpp"
#include "../model/trees.hpp"
#include "../test_hooks.hpp"
#include "agreement.hpp"
#include "state.hpp"

namespace colltune {

std::atomic<std::uint64_t> g_generation{0};
std::atomic<int> g_live_shadows{0};

namespace {
// The state of a communicator that runs native, when its own could not be allocated: shared,
// never freed (delete_state skips it).
CommState* native_fallback_state() noexcept {
  static CommState s = [] {
    CommState c;
    c.native_only = true;
    return c;
  }();
  return &s;
}

}  // namespace

int delete_state(MPI_Comm, int, void* value, void*) {
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  auto* st = static_cast<CommState*>(value);
  if (st == native_fallback_state()) return MPI_SUCCESS;
  int rc = MPI_SUCCESS;
  if (st->shadow != MPI_COMM_NULL) {
    rc = PMPI_Comm_free(&st->shadow);
    g_live_shadows.fetch_sub(1, std::memory_order_relaxed);
  }
  delete st;
  return rc;
}

namespace {

// Nodes and processes per node (collective over comm: the private communicator).
int topology_facts(MPI_Comm comm, CommFacts* f) {
  MPI_Comm local = MPI_COMM_NULL;
  int rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  if (rc != MPI_SUCCESS) return rc;
  int lrank = 0, lsize = 1;
  rc = PMPI_Comm_rank(local, &lrank);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(local, &lsize);
  const int frc = PMPI_Comm_free(&local);  // on every path
  if (rc != MPI_SUCCESS || (rc = frc) != MPI_SUCCESS) return rc;
  int in[2] = {lrank == 0 ? 1 : 0, lsize}, sum[2] = {0, 0}, max[2] = {0, 0};
  if ((rc = PMPI_Allreduce(in, sum, 2, MPI_INT, MPI_SUM, comm)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Allreduce(in, max, 2, MPI_INT, MPI_MAX, comm)) != MPI_SUCCESS) return rc;
  f->nodes = sum[0];
  f->ppn = max[1];
  return MPI_SUCCESS;
}

// Whether calls may run a built tree without a model: a forced built algorithm, or a rule's.
bool builds_without_model() {
  for (const Algorithm* a : g_rt.settings.forced) {
    if (a && a->build) return true;
  }
  if (!g_rt.config) return false;
  for (const Rule& r : g_rt.config->rules) {
    if (!g_rt.settings.forced[static_cast<int>(r.op)] && r.algorithm && r.algorithm->build)
      return true;
  }
  return false;
}

// True when every member of comm is a process of this job's MPI_COMM_WORLD. Without heap
// memory (chunks on the stack), so that every rank gets an answer; members of two jobs (spawn
// and merge, connect and accept) make every rank see someone outside its own world.
bool members_in_world(MPI_Comm comm, int n) {
  MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
  bool in = PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS &&
            PMPI_Comm_group(comm, &group) == MPI_SUCCESS;
  constexpr int kChunk = 256;
  int ranks[kChunk], found[kChunk];
  for (int lo = 0; lo < n && in; lo += kChunk) {
    const int m = std::min(kChunk, n - lo);
    for (int i = 0; i < m; ++i) ranks[i] = lo + i;
    in = PMPI_Group_translate_ranks(group, m, ranks, world, found) == MPI_SUCCESS;
    for (int i = 0; i < m && in; ++i) in = found[i] != MPI_UNDEFINED;
  }
  if (group != MPI_GROUP_NULL) (void)PMPI_Group_free(&group);
  if (world != MPI_GROUP_NULL) (void)PMPI_Group_free(&world);
  return in;
}

// The one process that prints messages about a communicator: world rank 0 when it belongs to
// the communicator (either group of an intercommunicator), else local rank 0.
int is_reporter(MPI_Comm comm, const CommState& st, bool* out) {
  *out = st.rank == 0;
  MPI_Group world;
  int rc = PMPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Group groups[2] = {MPI_GROUP_NULL, MPI_GROUP_NULL};  // local, remote
  rc = PMPI_Comm_group(comm, &groups[0]);
  if (rc == MPI_SUCCESS && st.inter) rc = PMPI_Comm_remote_group(comm, &groups[1]);
  const int zero = 0;
  int found[2] = {MPI_UNDEFINED, MPI_UNDEFINED};
  for (int g = 0; g < 2 && rc == MPI_SUCCESS; ++g) {
    if (groups[g] != MPI_GROUP_NULL) {
      rc = PMPI_Group_translate_ranks(world, 1, &zero, groups[g], &found[g]);
    }
  }
  if (found[0] != MPI_UNDEFINED) {
    *out = st.rank == found[0];
  } else if (found[1] != MPI_UNDEFINED) {
    *out = false;  // the other group reports
  }
  int frc = PMPI_Group_free(&world);
  for (MPI_Group& g : groups) {
    if (g != MPI_GROUP_NULL && frc == MPI_SUCCESS) frc = PMPI_Group_free(&g);
  }
  return rc != MPI_SUCCESS ? rc : frc;
}

// Each member's identity index in g_rt.params (create_state asks only when every member is in
// MPI_COMM_WORLD; a rank the translation cannot place would take
// the cluster average, the last index).
int member_identities(MPI_Comm comm, int n, std::vector<int>* out) {
  MPI_Group world, group;
  int rc = PMPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rc != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Comm_group(comm, &group)) == MPI_SUCCESS) {
    std::vector<int> ranks(n), in_world(n);
    for (int i = 0; i < n; ++i) ranks[i] = i;
    rc = PMPI_Group_translate_ranks(group, n, ranks.data(), world, in_world.data());
    const int average = g_rt.params.size() - 1;
    for (int i = 0; i < n && rc == MPI_SUCCESS; ++i) {
      const int w = in_world[i];
      out->push_back(w >= 0 && w < g_rt.world_size ? g_rt.world_identity[w] : average);
    }
    const int frc = PMPI_Group_free(&group);
    if (rc == MPI_SUCCESS) rc = frc;
  }
  const int frc = PMPI_Group_free(&world);
  return rc != MPI_SUCCESS ? rc : frc;
}

}  // namespace

std::string comm_label(MPI_Comm comm, const CommState& st) {
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  if (PMPI_Comm_get_name(comm, name, &len) != MPI_SUCCESS) len = 0;
  std::string s = len > 0 ? std::string(name, len) : std::string("comm");
  s += "(size " + std::to_string(st.size);
  if (st.facts.nodes > 0) {
    s +=
        ", " + std::to_string(st.facts.nodes) + " nodes x " + std::to_string(st.facts.ppn) + " ppn";
  }
  return s + ")";
}

int built_tree(CommState& st, const Algorithm& alg, int root, std::uint64_t bytes,
               const BuiltTree** tree) {
  const int cls = model::size_class(static_cast<double>(bytes));
  const std::uint64_t key = (static_cast<std::uint64_t>(alg.index) << 48) |
                            (static_cast<std::uint64_t>(cls & 0xffff) << 32) |
                            static_cast<std::uint32_t>(root);
  std::shared_ptr<const BuiltTree> t;
  const int rc = cached_agreed(
      st.shadow, st.built[static_cast<int>(alg.op)], key, "call.tree",
      [&] {
        if (static_cast<int>(st.members.size()) == st.size) {
          return model::build_tree(alg, g_rt.params, st.members, root, static_cast<double>(bytes));
        }
        // no model: every process alike
        return model::build_tree_uniform(alg, st.size, root, static_cast<double>(bytes), st.hosts);
      },
      &t);
  *tree = t.get();  // the cache holds it (the call runs before any other lookup)
  if (rc == MPI_SUCCESS && t && g_rt.settings.verbose >= 2 && st.reporter) try {
      // How the tree crosses hosts: what a node-aware tree changes, said once per tree.
      std::vector<int> host(static_cast<std::size_t>(st.size));
      for (int r = 0; r < st.size; ++r) {
        host[r] = static_cast<int>(st.hosts.size()) == st.size ? st.hosts[r]
                  : static_cast<int>(st.members.size()) == st.size
                      ? g_rt.params.rank_host(st.members[r], r)
                      : r;
      }
      int across = 0;
      for (int p = 1; p < t->size(); ++p) across += host[t->rank[t->parent[p]]] != host[t->rank[p]];
      std::vector<int> distinct = host;
      std::sort(distinct.begin(), distinct.end());
      const auto hosts = std::unique(distinct.begin(), distinct.end()) - distinct.begin();
      log_once("tree:" + std::to_string(key),
               std::string(op_name(alg.op)) + " " + std::string(alg.name) + " tree from root " +
                   std::to_string(root) + ", size class " + std::to_string(cls) + ": " +
                   std::to_string(hosts) + " hosts, " + std::to_string(across) +
                   " messages between hosts");
    } catch (...) {
    }
  return rc;
}

namespace {

// What a communicator that runs native says, once per process and reason, on its rank 0.
void say_native(int rank, const char* why) noexcept {
  if (rank != 0) return;
  try {
    log_once(std::string("native:") + why,
             std::string("a communicator runs native collectives: ") + why);
  } catch (...) {
  }
}

// The private communicator: every rank that can take one asks for it (color 0), the others
// refuse (MPI_UNDEFINED); a communicator smaller than comm means some rank refused, and then
// every rank goes without. MPI errors of the split (no context id left) return to us, not to
// the application's error handler. Returns the private communicator, or MPI_COMM_NULL when
// comm runs native.
MPI_Comm make_shadow(MPI_Comm comm, int rank, int size, bool can) {
  if (can && g_live_shadows.load(std::memory_order_relaxed) >= kMaxShadows) {
    say_native(rank, "more than 256 live communicators use colltune in this process");
    can = false;
  }
  MPI_Errhandler user = MPI_ERRHANDLER_NULL;
  const bool swapped = PMPI_Comm_get_errhandler(comm, &user) == MPI_SUCCESS &&
                       PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) == MPI_SUCCESS;
  MPI_Comm shadow = MPI_COMM_NULL;
  // Split (not dup): no user attribute copy callbacks run for our private communicator.
  const int rc = PMPI_Comm_split(comm, can ? 0 : MPI_UNDEFINED, rank, &shadow);
  if (swapped) (void)PMPI_Comm_set_errhandler(comm, user);
  if (user != MPI_ERRHANDLER_NULL) (void)PMPI_Errhandler_free(&user);
  if (rc != MPI_SUCCESS) {
    say_native(rank, "MPICH could not make its private communicator (communicator limit?)");
    return MPI_COMM_NULL;
  }
  if (shadow == MPI_COMM_NULL) return shadow;  // this rank refused: said above or by its caller
  int n = 0;
  if (PMPI_Comm_size(shadow, &n) != MPI_SUCCESS || n != size ||
      PMPI_Comm_set_errhandler(shadow, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
    (void)PMPI_Comm_free(&shadow);
    say_native(rank, "another rank could not take part (its communicator limit or memory)");
    return MPI_COMM_NULL;
  }
  g_live_shadows.fetch_add(1, std::memory_order_relaxed);
  return shadow;
}

void all_native_decisions(CommState& st, const char* why) {
  for (int op = 0; op < kNumOps; ++op) {
    st.by_model[op] = false;
    st.decisions[op] =
        Decisions({{Range{}, -1, &native_algorithm(static_cast<Op>(op)), why, nullptr}});
  }
}

}  // namespace

long long cached_entries(MPI_Comm comm) noexcept {
  void* value = nullptr;
  int flag = 0;
  if (g_rt.keyval == MPI_KEYVAL_INVALID ||
      PMPI_Comm_get_attr(comm, g_rt.keyval, &value, &flag) != MPI_SUCCESS || !flag) {
    return -1;
  }
  const auto* st = static_cast<const CommState*>(value);
  long long n = 0;
  for (const auto& c : st->built) n += static_cast<long long>(c.size());
  for (const auto& c : st->by_root) n += static_cast<long long>(c.size());
  return n;
}

int create_state(MPI_Comm comm, CommState** out) {
  // Local steps first, without a collective; then, when tuning, the private communicator (its
  // split agrees on who can go on), the collective queries on it, the local decisions, and one
  // agreement: a rank that fails anywhere leaves every rank native, none waiting.
  int inter = 0, rank = 0, size = 1;
  int rc = PMPI_Comm_test_inter(comm, &inter);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_rank(comm, &rank);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return rc;
  const bool tuning = g_rt.tuning && g_rt.any_tuned && !inter;
  // Members of another job: every rank sees it, so every rank skips the split alike.
  const bool in_world = inter || members_in_world(comm, size);
  std::unique_ptr<CommState> st;
  bool ok = true;
  try {
    if (hooks::fail_here("comm.create")) throw std::bad_alloc();
    st = std::make_unique<CommState>();
    st->inter = inter != 0;
    st->rank = rank;
    st->size = size;
    st->facts.size = size;
    if ((rc = is_reporter(comm, *st, &st->reporter)) != MPI_SUCCESS) ok = false;
  } catch (const std::exception&) {
    ok = false;
  }
  if (tuning && in_world) {
    const MPI_Comm shadow = make_shadow(comm, rank, size, ok);
    if (st) st->shadow = shadow;
    if (shadow == MPI_COMM_NULL) {
      if (!ok)
        log_line_noexcept(
            "error: rank %d: a communicator's set-up failed (memory); it "
            "runs native collectives",
            g_rt.world_rank);
      ok = false;
    }
  }
  if (!ok && !st) {
    if ((rc = PMPI_Comm_set_attr(comm, g_rt.keyval, native_fallback_state())) != MPI_SUCCESS) {
      return rc;
    }
    *out = native_fallback_state();
    return MPI_SUCCESS;
  }
  if (tuning && in_world && ok) {
    // On the private communicator: every rank is here.
    if (g_rt.config && g_rt.config->uses_topology()) {
      ok = topology_facts(st->shadow, &st->facts) == MPI_SUCCESS;
    }
    try {
      if (hooks::fail_here("comm.decide")) throw std::bad_alloc();
      const bool model = !g_rt.world_identity.empty();
      if (ok && model && member_identities(comm, st->size, &st->members) != MPI_SUCCESS) ok = false;
      for (int op = 0; op < kNumOps && ok; ++op) {
        st->by_model[op] = model && !g_rt.settings.forced[op];
        if (st->by_model[op]) continue;  // one source: model_decisions(), per root
        st->decisions[op] = resolve(static_cast<Op>(op), st->facts, g_rt.settings.forced[op],
                                    g_rt.config.get(), g_rt.table.get());
      }
    } catch (const std::exception&) {
      ok = false;
      log_line_noexcept("error: rank %d: a communicator's decisions could not be made (memory)",
                        g_rt.world_rank);
    }
    // Without a model, the trees of built algorithms (forced, or a rule's) are built on alike
    // processes that know their hosts (node-aware trees): the members' identities, gathered by
    // every rank whatever its own outcome so far (the settings are the same on every rank).
    if (g_rt.world_identity.empty() && builds_without_model()) {
      std::vector<std::string> ids;
      if (gather_identities(st->shadow, g_rt.settings.identity, &ids) != MPI_SUCCESS) {
        ok = false;  // agreed by gather_identities: every rank
      } else if (ok) {
        try {
          st->hosts = model::host_groups(ids);
        } catch (const std::exception&) {
          ok = false;
        }
      }
    }
    bool every = false;
    if ((rc = all_ok(st->shadow, ok, &every)) != MPI_SUCCESS || !every) {
      (void)PMPI_Comm_free(&st->shadow);
      g_live_shadows.fetch_sub(1, std::memory_order_relaxed);
      if (ok) say_native(rank, "another rank could not set it up (memory)");
      ok = false;
    }
  }
  try {
    if (!st->inter && !(tuning && in_world && ok)) {
      st->native_only = g_rt.tuning && g_rt.any_tuned;
      if (g_rt.tuning && g_rt.any_tuned && !in_world) {
        say_native(rank,
                   "its members are not all in this job's MPI_COMM_WORLD (spawned or "
                   "connected processes)");
      }
      if (g_rt.tuning && !g_rt.any_tuned) {  // every op decides native: the decisions' reasons
        for (int op = 0; op < kNumOps; ++op) {
          st->decisions[op] = resolve(static_cast<Op>(op), st->facts, g_rt.settings.forced[op],
                                      g_rt.config.get(), g_rt.table.get());
        }
      } else {
        all_native_decisions(*st, !g_rt.tuning ? "colltune is off (see the error above)"
                                               : "this communicator runs native (said above)");
      }
    }
    if (g_rt.settings.verbose >= 2 && st->reporter) {
      log_line("new communicator " + comm_label(comm, *st));
    }
  } catch (const std::exception&) {
    st->native_only = true;  // decisions may be missing: every call runs native
  }
  if ((rc = PMPI_Comm_set_attr(comm, g_rt.keyval, st.get())) != MPI_SUCCESS) return rc;
  *out = st.release();
  return MPI_SUCCESS;
}

}  // namespace colltune

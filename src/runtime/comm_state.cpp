// Per-communicator state: built at a communicator's first intercepted collective, cached under
// a keyval, freed by the keyval's delete callback.
#include <memory>

#include "../algorithms/registry.hpp"
#include "../log.hpp"
#include "../model/trees.hpp"
#include "state.hpp"

namespace colltune {

std::atomic<std::uint64_t> g_generation{0};

int delete_state(MPI_Comm, int, void* value, void*) {
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  auto* st = static_cast<CommState*>(value);
  int rc = MPI_SUCCESS;
  if (st->shadow != MPI_COMM_NULL) rc = PMPI_Comm_free(&st->shadow);
  delete st;
  return rc;
}

namespace {

// Nodes and processes per node (collective over comm).
int topology_facts(MPI_Comm comm, CommFacts* f) {
  MPI_Comm local;
  int rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  if (rc != MPI_SUCCESS) return rc;
  int lrank = 0, lsize = 1;
  if ((rc = PMPI_Comm_rank(local, &lrank)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Comm_size(local, &lsize)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Comm_free(&local)) != MPI_SUCCESS) return rc;
  int in[2] = {lrank == 0 ? 1 : 0, lsize}, sum[2] = {0, 0}, max[2] = {0, 0};
  if ((rc = PMPI_Allreduce(in, sum, 2, MPI_INT, MPI_SUM, comm)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Allreduce(in, max, 2, MPI_INT, MPI_MAX, comm)) != MPI_SUCCESS) return rc;
  f->nodes = sum[0];
  f->ppn = max[1];
  return MPI_SUCCESS;
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

// Each member's identity index in g_rt.params (processes outside MPI_COMM_WORLD, e.g. spawned:
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

const BuiltTree* built_tree(CommState& st, const Algorithm& alg, int root, std::uint64_t bytes) {
  const int cls = model::size_class(static_cast<double>(bytes));
  for (const CommState::Built& b : st.built) {
    if (b.algorithm == alg.index && b.root == root && b.size_class == cls) return b.tree.get();
  }
  std::shared_ptr<const BuiltTree> tree;
  if (static_cast<int>(st.members.size()) == st.size) {
    tree = model::build_tree(alg, g_rt.params, st.members, root, static_cast<double>(bytes));
  } else {  // no model: every process alike
    tree = model::build_tree_uniform(alg, st.size, root, static_cast<double>(bytes));
  }
  st.built.push_back({alg.index, root, cls, tree});
  return tree.get();
}

int create_state(MPI_Comm comm, CommState** out) {
  auto st = std::make_unique<CommState>();
  int inter = 0;
  int rc = PMPI_Comm_test_inter(comm, &inter);
  if (rc != MPI_SUCCESS) return rc;
  st->inter = inter != 0;
  if ((rc = PMPI_Comm_rank(comm, &st->rank)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Comm_size(comm, &st->size)) != MPI_SUCCESS) return rc;
  st->facts.size = st->size;
  if ((rc = is_reporter(comm, *st, &st->reporter)) != MPI_SUCCESS) return rc;
  if (!st->inter) {
    // Every rank agreed on g_rt.tuning and the configuration, so all or none of them query.
    if (g_rt.tuning && g_rt.config && g_rt.config->uses_topology()) {
      if ((rc = topology_facts(comm, &st->facts)) != MPI_SUCCESS) return rc;
    }
    const bool model = g_rt.tuning && !g_rt.world_identity.empty();
    if (model && (rc = member_identities(comm, st->size, &st->members)) != MPI_SUCCESS) return rc;
    for (int op = 0; op < kNumOps; ++op) {
      st->by_model[op] = model && !g_rt.settings.forced[op];
      if (st->by_model[op]) continue;  // one source: model_decisions(), per root
      if (g_rt.tuning) {
        st->decisions[op] = resolve(static_cast<Op>(op), st->facts, g_rt.settings.forced[op],
                                    g_rt.config.get(), g_rt.table.get());
      } else {
        st->decisions[op] = Decisions({{Range{}, -1, &native_algorithm(static_cast<Op>(op)),
                                        "colltune is off (see the error above)", nullptr}});
      }
    }
    if (g_rt.settings.verbose >= 2 && st->reporter) {
      log_line("new communicator " + comm_label(comm, *st));
    }
  }
  if ((rc = PMPI_Comm_set_attr(comm, g_rt.keyval, st.get())) != MPI_SUCCESS) return rc;
  *out = st.release();
  return MPI_SUCCESS;
}

}  // namespace colltune

#include "runtime.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "platform.hpp"

#ifndef COLLTUNE_DEFAULT_CONFIG
#define COLLTUNE_DEFAULT_CONFIG "/usr/local/etc/colltune/colltune.yaml"
#endif

namespace colltune {

std::array<std::atomic<bool>, kNumOps> g_passthrough = {true, true, true};

namespace {

// Read-only after runtime_init.
Settings g_settings;
std::unique_ptr<AdminConfig> g_config;
std::unique_ptr<ModelTable> g_table;
bool g_tuning = false;  // false: every decision is native (disabled, or bad input)
int g_keyval = MPI_KEYVAL_INVALID;
int g_world_rank = 0;

struct Counters {
  std::atomic<std::uint64_t> calls{0}, bytes{0}, ns{0};
};
std::unique_ptr<Counters[]> g_counters;

std::mutex g_log_mutex;
std::set<std::string> g_logged_once;

void log_line(const std::string& s) {
  const std::string line = "colltune: " + s + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

// Logs `s` once per process for `key`.
void log_once(const std::string& key, const std::string& s) {
  {
    std::lock_guard<std::mutex> lock(g_log_mutex);
    if (!g_logged_once.insert(key).second) return;
  }
  log_line(s);
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// The installed default configuration: next to the library (<libdir>/../etc/colltune/...) when
// relocated, else the path configured at build time.
std::string default_config_path() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&default_config_path), &info) != 0 && info.dli_fname) {
    char dir[PATH_MAX];
    if (realpath(info.dli_fname, dir) != nullptr) {
      std::string lib = dir;
      const auto slash = lib.rfind('/');
      const auto up = slash == std::string::npos ? slash : lib.rfind('/', slash - 1);
      if (up != std::string::npos) {
        const std::string p = lib.substr(0, up) + "/etc/colltune/colltune.yaml";
        if (file_exists(p)) return p;
      }
    }
  }
  return COLLTUNE_DEFAULT_CONFIG;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Canonical text of everything that drives decisions; equal on every rank or decisions differ.
std::string effective_inputs() {
  std::string s = g_tuning ? "tuning;" : "native;";
  for (int op = 0; op < kNumOps; ++op) {
    s += g_settings.forced[op] ? std::string(g_settings.forced[op]->name) : "auto";
    s += ";";
  }
  if (g_config) {
    for (const Rule& r : g_config->rules) {
      s += std::string(op_name(r.op)) + "," + std::string(r.algorithm->name) + "," +
           range_to_string(r.comm_size) + range_to_string(r.bytes) + range_to_string(r.nodes) +
           range_to_string(r.ppn) + "," + (r.root ? std::to_string(*r.root) : "*") + ";";
    }
  }
  if (g_table) {
    for (int op = 0; op < kNumOps; ++op) {
      for (const SizeEntry& e : g_table->decisions[op]) {
        s += range_to_string(e.comm_size);
        for (const ByteRule& b : e.bytes) {
          s += range_to_string(b.bytes) + std::string(b.algorithm->name);
        }
      }
      s += "|";
    }
  }
  return s;
}

// True when every decision for `op` is native whatever the communicator.
bool all_native(Op op) {
  if (!g_tuning) return true;
  const Algorithm* f = g_settings.forced[static_cast<int>(op)];
  if (f) return f->run == native_algorithm(op).run;
  if (g_config) {
    for (const Rule& r : g_config->rules) {
      if (r.op == op && r.algorithm != &native_algorithm(op)) return false;
    }
  }
  if (g_table) {
    for (const SizeEntry& e : g_table->decisions[static_cast<int>(op)]) {
      for (const ByteRule& b : e.bytes) {
        if (b.algorithm != &native_algorithm(op)) return false;
      }
    }
  }
  return true;
}

// Per-thread one-entry cache of the last communicator's state, valid while no state was
// deleted since it was filled (a freed handle may be reused for a new communicator).
std::atomic<std::uint64_t> g_generation{0};
struct LastComm {
  MPI_Comm comm = MPI_COMM_NULL;
  CommState* state = nullptr;
  std::uint64_t generation = ~0ull;
};
#if defined(SMPI_SHARED_MALLOC)
// SMPI dlopens a private copy of the program per rank: static TLS would run out at scale.
thread_local LastComm t_last;
#else
thread_local LastComm t_last __attribute__((tls_model("initial-exec")));
#endif

int delete_state(MPI_Comm, int, void* value, void*) {
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  auto* st = static_cast<CommState*>(value);
  int rc = MPI_SUCCESS;
  if (st->shadow != MPI_COMM_NULL) rc = PMPI_Comm_free(&st->shadow);
  delete st;
  return rc;
}

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

std::string comm_label(MPI_Comm comm, const CommState& st) {
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  PMPI_Comm_get_name(comm, name, &len);
  std::string s = len > 0 ? std::string(name, len) : std::string("comm");
  s += "(size " + std::to_string(st.size);
  if (st.facts.nodes > 0) {
    s +=
        ", " + std::to_string(st.facts.nodes) + " nodes x " + std::to_string(st.facts.ppn) + " ppn";
  }
  return s + ")";
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
  PMPI_Group_free(&world);
  for (MPI_Group& g : groups) {
    if (g != MPI_GROUP_NULL) PMPI_Group_free(&g);
  }
  return rc;
}

// Builds the state of a communicator at its first intercepted collective (collective: every
// rank enters the same first collective).
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
    if (g_tuning && g_config && g_config->uses_topology()) {
      if ((rc = topology_facts(comm, &st->facts)) != MPI_SUCCESS) return rc;
    }
    for (int op = 0; op < kNumOps; ++op) {
      if (g_tuning) {
        st->decisions[op] = resolve(static_cast<Op>(op), st->facts, g_settings.forced[op],
                                    g_config.get(), g_table.get());
      } else {
        st->decisions[op] = Decisions({{Range{}, -1, &native_algorithm(static_cast<Op>(op)),
                                        "colltune is off (see the error above)"}});
      }
    }
    if (g_settings.verbose >= 2 && st->reporter) {
      log_line("new communicator " + comm_label(comm, *st));
    }
  }
  if ((rc = PMPI_Comm_set_attr(comm, g_keyval, st.get())) != MPI_SUCCESS) return rc;
  *out = st.release();
  return MPI_SUCCESS;
}

int state_of(MPI_Comm comm, CommState** out) {
  const std::uint64_t gen = g_generation.load(std::memory_order_acquire);
  if (t_last.comm == comm && t_last.generation == gen) {
    *out = t_last.state;
    return MPI_SUCCESS;
  }
  void* value = nullptr;
  int flag = 0;
  int rc = PMPI_Comm_get_attr(comm, g_keyval, &value, &flag);
  if (rc != MPI_SUCCESS) return rc;
  if (flag) {
    *out = static_cast<CommState*>(value);
  } else if ((rc = create_state(comm, out)) != MPI_SUCCESS) {
    return rc;
  }
  t_last = {comm, *out, gen};
  return MPI_SUCCESS;
}

// MPICH encodes a builtin datatype's size in its handle (kind bits 0x4c000000, size in bits
// 8-15). Used on the per-call path only after runtime_init validated it against PMPI_Type_size
// for every builtin type below; otherwise PMPI_Type_size is called.
[[maybe_unused]] bool g_fast_type_size = false;

inline bool builtin_size(MPI_Datatype t, int* size) {
#if defined(MPICH)
  const auto h = static_cast<std::uint32_t>(t);
  if (g_fast_type_size && (h & 0xfc000000u) == 0x4c000000u) {
    *size = static_cast<int>((h >> 8) & 0xffu);
    return true;
  }
#else
  (void)t;
  (void)size;
#endif
  return false;
}

void validate_fast_type_size() {
#if defined(MPICH)
  const MPI_Datatype builtins[] = {MPI_CHAR,
                                   MPI_SIGNED_CHAR,
                                   MPI_UNSIGNED_CHAR,
                                   MPI_BYTE,
                                   MPI_WCHAR,
                                   MPI_SHORT,
                                   MPI_UNSIGNED_SHORT,
                                   MPI_INT,
                                   MPI_UNSIGNED,
                                   MPI_LONG,
                                   MPI_UNSIGNED_LONG,
                                   MPI_LONG_LONG,
                                   MPI_UNSIGNED_LONG_LONG,
                                   MPI_FLOAT,
                                   MPI_DOUBLE,
                                   MPI_LONG_DOUBLE,
                                   MPI_INT8_T,
                                   MPI_INT16_T,
                                   MPI_INT32_T,
                                   MPI_INT64_T,
                                   MPI_UINT8_T,
                                   MPI_UINT16_T,
                                   MPI_UINT32_T,
                                   MPI_UINT64_T,
                                   MPI_C_BOOL,
                                   MPI_C_FLOAT_COMPLEX,
                                   MPI_C_DOUBLE_COMPLEX,
                                   MPI_AINT,
                                   MPI_OFFSET,
                                   MPI_COUNT,
                                   MPI_PACKED,
                                   MPI_INTEGER,
                                   MPI_REAL,
                                   MPI_DOUBLE_PRECISION,
                                   MPI_COMPLEX,
                                   MPI_LOGICAL,
                                   MPI_CHARACTER,
                                   MPI_DOUBLE_INT,
                                   MPI_FLOAT_INT,
                                   MPI_2INT};
  bool ok = true;
  for (MPI_Datatype t : builtins) {
    int real = -1;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &real) != MPI_SUCCESS) continue;
    const auto h = static_cast<std::uint32_t>(t);
    if ((h & 0xfc000000u) == 0x4c000000u && static_cast<int>((h >> 8) & 0xffu) != real) ok = false;
  }
  g_fast_type_size = ok;
#endif
}

// Bytes per process from the arguments significant on this rank (design.md section 2).
int block_bytes(Op op, const CollArgs& a, int rank, std::uint64_t* out) {
  int count = a.recvcount;
  MPI_Datatype type = a.recvtype;
  if ((op == Op::kScatter && rank == a.root) || (op == Op::kGather && rank != a.root)) {
    count = a.sendcount;
    type = a.sendtype;
  }
  if (count < 0) return MPI_ERR_COUNT;
  int size = 0;
  if (!builtin_size(type, &size)) {
    const int rc = PMPI_Type_size(type, &size);
    if (rc != MPI_SUCCESS) return rc;
  }
  *out = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
  return MPI_SUCCESS;
}

void record(const Algorithm& alg, std::uint64_t bytes, double seconds) {
  Counters& c = g_counters[alg.index];
  c.calls.fetch_add(1, std::memory_order_relaxed);
  c.bytes.fetch_add(bytes, std::memory_order_relaxed);
  c.ns.fetch_add(static_cast<std::uint64_t>(seconds * 1e9), std::memory_order_relaxed);
}

int run_timed(const Algorithm& alg, const CollArgs& a) {
  if (!g_settings.stats) return alg.run(a);
  const double t0 = PMPI_Wtime();
  const int rc = alg.run(a);
  record(alg, a.block_bytes, PMPI_Wtime() - t0);
  return rc;
}

int run_native(Op op, CollArgs& a) { return run_timed(native_algorithm(op), a); }

// A forced algorithm cannot serve this call: COLLTUNE_FALLBACK decides (same on every rank).
int forced_fallback(Op op, CollArgs& a, const Algorithm& forced, bool reporter,
                    const std::string& why) {
  const std::string env = "COLLTUNE_" + upper(op_name(op)) + "_ALGORITHM";
  const std::string msg = env + "=" + std::string(forced.name) + " cannot run here: " + why;
  switch (g_settings.fallback) {
    case Fallback::kSilent:
      break;
    case Fallback::kWarn:
      if (reporter) log_once(msg, "warning: " + msg + "; using native (COLLTUNE_FALLBACK=warn)");
      break;
    case Fallback::kError:
      if (reporter) log_once(msg, "error: " + msg + " (COLLTUNE_FALLBACK=error)");
      PMPI_Comm_call_errhandler(a.comm, MPI_ERR_OTHER);
      return MPI_ERR_OTHER;
  }
  return run_native(op, a);
}

int dispatch_impl(Op op, CollArgs& a) {
  if (a.comm == MPI_COMM_NULL) return run_native(op, a);  // PMPI reports the error
  CommState* st = nullptr;
  if (state_of(a.comm, &st) != MPI_SUCCESS) return run_native(op, a);
  const Algorithm* forced = g_tuning ? g_settings.forced[static_cast<int>(op)] : nullptr;
  if (st->inter) {
    if (forced && forced->run != native_algorithm(op).run) {
      return forced_fallback(op, a, *forced, st->reporter, "intercommunicators are passed through");
    }
    return run_native(op, a);
  }
  if (a.root < 0 || a.root >= st->size) return run_native(op, a);  // PMPI reports the error
  a.rank = st->rank;
  a.size = st->size;
  if (block_bytes(op, a, st->rank, &a.block_bytes) != MPI_SUCCESS) return run_native(op, a);

  const Decisions& d = st->decisions[static_cast<int>(op)];
  const std::size_t i = d.find(a.block_bytes, a.root);
  const Segment& seg = d.segment(i);
  const Algorithm* alg = seg.algorithm;
  if (g_settings.verbose >= 1 && st->reporter && d.first_use(i)) {
    log_line(std::string(op_name(op)) + " on " + comm_label(a.comm, *st) + ", bytes " +
             range_to_string(seg.bytes) +
             (seg.root >= 0 ? ", root " + std::to_string(seg.root) : "") + ": " +
             std::string(alg->name) + " (" + seg.reason + ")");
  }
  if (alg->supports && !alg->supports(a)) {
    const std::string why = std::to_string(a.size) + " x " + std::to_string(a.block_bytes) +
                            " bytes do not fit one packed message (2 GiB)";
    if (forced == alg) return forced_fallback(op, a, *alg, st->reporter, why);
    if (g_settings.verbose >= 1 && st->reporter) {
      log_once(
          std::string(op_name(op)) + alg->name.data() + "unsupported",
          std::string(op_name(op)) + " " + std::string(alg->name) + ": " + why + "; using native");
    }
    alg = &native_algorithm(op);
  }
  if (g_settings.verbose >= 3 && st->reporter) {
    log_line("call " + std::string(op_name(op)) + " on " + comm_label(a.comm, *st) + " root " +
             std::to_string(a.root) + " bytes " + std::to_string(a.block_bytes) + ": " +
             std::string(alg->name));
  }
  if (alg->run == native_algorithm(op).run) return run_timed(*alg, a);

  if (st->shadow == MPI_COMM_NULL) {
    // Split (not dup): no user attribute copy callbacks run for our private communicator.
    int rc = PMPI_Comm_split(a.comm, 0, st->rank, &st->shadow);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Comm_set_errhandler(st->shadow, MPI_ERRORS_RETURN)) != MPI_SUCCESS) return rc;
  }
  a.shadow = st->shadow;
  const int rc = run_timed(*alg, a);
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(a.comm, rc);
  return rc;
}

}  // namespace

Settings read_settings(const char* (*getenv_fn)(const char*)) {
  Settings s;
  auto env = [&](const char* name) -> std::optional<std::string> {
    const char* v = getenv_fn(name);
    if (!v) return std::nullopt;
    return std::string(v);
  };
  auto flag = [&](const char* name, bool* out) {
    const auto v = env(name);
    if (!v || v->empty()) return;
    if (*v == "1" || *v == "yes" || *v == "true" || *v == "on")
      *out = true;
    else if (*v == "0" || *v == "no" || *v == "false" || *v == "off")
      *out = false;
    else
      s.errors.push_back(std::string(name) + ": invalid value '" + *v + "' (valid: 0, 1)");
  };
  flag("COLLTUNE_DISABLE", &s.disabled);
  flag("COLLTUNE_STATS", &s.stats);
  if (const auto v = env("COLLTUNE_VERBOSE"); v && !v->empty()) {
    if (v->size() == 1 && (*v)[0] >= '0' && (*v)[0] <= '3') {
      s.verbose = (*v)[0] - '0';
    } else {
      s.errors.push_back("COLLTUNE_VERBOSE: invalid value '" + *v + "' (valid: 0, 1, 2, 3)");
    }
  }
  if (const auto v = env("COLLTUNE_FALLBACK"); v && !v->empty()) {
    if (*v == "silent")
      s.fallback = Fallback::kSilent;
    else if (*v == "warn")
      s.fallback = Fallback::kWarn;
    else if (*v == "error")
      s.fallback = Fallback::kError;
    else
      s.errors.push_back("COLLTUNE_FALLBACK: invalid value '" + *v +
                         "' (valid: silent, warn, error)");
  }
  for (int op = 0; op < kNumOps; ++op) {
    const std::string name = "COLLTUNE_" + upper(op_name(static_cast<Op>(op))) + "_ALGORITHM";
    const auto v = env(name.c_str());
    if (!v || v->empty() || *v == "auto") continue;
    s.forced[op] = find_algorithm(static_cast<Op>(op), *v);
    if (!s.forced[op]) {
      s.errors.push_back(name + ": unknown algorithm '" + *v + "' (valid: auto, " +
                         algorithm_choices(static_cast<Op>(op)) + ")");
    }
  }
  if (const auto v = env("COLLTUNE_CONFIG"); v && !v->empty()) s.config_path = *v;
  if (const auto v = env("COLLTUNE_MODEL"); v && !v->empty()) s.model_path = *v;
  return s;
}

int runtime_init() {
  g_settings = read_settings([](const char* n) -> const char* { return std::getenv(n); });
  PMPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  const std::size_t nalg = algorithms().size();
  g_counters.reset(new Counters[nalg]);
  if (g_settings.disabled) {
    if (g_settings.verbose >= 1 && g_world_rank == 0) log_line("disabled by COLLTUNE_DISABLE=1");
    return MPI_SUCCESS;  // g_passthrough stays true: every call goes straight to PMPI
  }
  std::vector<std::string> errors = g_settings.errors;

  // Admin configuration: COLLTUNE_CONFIG (must exist; "none" for no file), else the installed
  // default when present.
  std::string config_path;
  if (g_settings.config_path) {
    if (*g_settings.config_path != "none") config_path = *g_settings.config_path;
  } else {
    const std::string def = default_config_path();
    if (file_exists(def)) config_path = def;
  }
  try {
    if (!config_path.empty())
      g_config = std::make_unique<AdminConfig>(load_admin_config(config_path));
  } catch (const std::exception& e) {
    errors.push_back(e.what());
  }
  std::optional<std::string> model_path = g_settings.model_path;
  if (!model_path && g_config && g_config->model_path) model_path = g_config->model_path;
  if (model_path && *model_path != "none") {
    try {
      g_table = std::make_unique<ModelTable>(load_model_table(*model_path));
      const std::string why = platform_mismatch(*g_table, mpi_library_version(), this_host());
      if (!why.empty()) errors.push_back(*model_path + ": platform: " + why);
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
  }
  g_tuning = errors.empty();

  // Every rank must decide alike: compare the effective inputs and error flags across ranks.
  const std::uint64_t h = fnv1a(effective_inputs());
  std::uint64_t in[3] = {h, ~h, errors.empty() ? 0u : 1u}, out[3] = {0, 0, 0};
  int rc = PMPI_Allreduce(in, out, 3, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return rc;
  const bool any_error = out[2] != 0;
  const bool mismatch = out[0] != ~out[1];
  const std::string tail = g_settings.fallback == Fallback::kError
                               ? " (COLLTUNE_FALLBACK=error: stopping)"
                               : "; running native collectives";
  if (g_world_rank == 0 || g_settings.verbose >= 1) {
    const std::string who = g_world_rank == 0 ? "" : "rank " + std::to_string(g_world_rank) + ": ";
    for (const std::string& e : errors) log_line("error: " + who + e + tail);
  }
  if (g_world_rank == 0 && errors.empty() && any_error) {
    log_line("error: another rank rejected its configuration or model table" + tail +
             " (COLLTUNE_VERBOSE=1 shows every rank's reason)");
  } else if (g_world_rank == 0 && !any_error && mismatch) {
    log_line("error: ranks loaded different configurations or model tables" + tail);
  }
  if (any_error || mismatch) {
    g_tuning = false;
    if (g_settings.fallback == Fallback::kError) {
      PMPI_Finalize();
      std::exit(1);
    }
  }

  validate_fast_type_size();
  rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_keyval, nullptr);
  if (rc != MPI_SUCCESS) return rc;
  if (g_settings.verbose >= 1 && g_world_rank == 0) {
    log_line(std::string("active; config ") + (config_path.empty() ? "none" : config_path) +
             ", model table " + (g_table ? g_table->file : "none") +
             (g_tuning ? "" : " (tuning off: native everywhere)"));
  }
  for (int op = 0; op < kNumOps; ++op) {
    g_passthrough[op] =
        all_native(static_cast<Op>(op)) && !g_settings.stats && g_settings.verbose == 0;
  }
  return MPI_SUCCESS;
}

int runtime_finalize() {
  for (auto& p : g_passthrough) p = true;
  if (g_keyval == MPI_KEYVAL_INVALID) return MPI_SUCCESS;
  int rc = MPI_SUCCESS;
  if (g_settings.stats) {
    const std::size_t n = algorithms().size();
    std::vector<std::uint64_t> mine(3 * n), sum(3 * n), max(3 * n);
    for (std::size_t i = 0; i < n; ++i) {
      mine[3 * i] = g_counters[i].calls;
      mine[3 * i + 1] = g_counters[i].bytes;
      mine[3 * i + 2] = g_counters[i].ns;
    }
    int size = 1;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    rc = PMPI_Reduce(mine.data(), sum.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_SUM,
                     0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Reduce(mine.data(), max.data(), static_cast<int>(mine.size()), MPI_UINT64_T,
                       MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (rc == MPI_SUCCESS && g_world_rank == 0) {
      for (const Algorithm& a : algorithms()) {
        const std::size_t i = static_cast<std::size_t>(a.index);
        if (sum[3 * i] == 0) continue;
        char line[512];
        std::snprintf(line, sizeof(line),
                      "stats op=%s algorithm=%s calls=%llu bytes=%llu time_s=%.6f "
                      "max_rank_calls=%llu max_rank_time_s=%.6f ranks=%d",
                      std::string(op_name(a.op)).c_str(), std::string(a.name).c_str(),
                      static_cast<unsigned long long>(sum[3 * i]),
                      static_cast<unsigned long long>(sum[3 * i + 1]), sum[3 * i + 2] * 1e-9,
                      static_cast<unsigned long long>(max[3 * i]), max[3 * i + 2] * 1e-9, size);
        log_line(line);
      }
    }
  }
  // Free our state on the predefined communicators now (their attributes may outlive us).
  PMPI_Comm_delete_attr(MPI_COMM_WORLD, g_keyval);
  PMPI_Comm_delete_attr(MPI_COMM_SELF, g_keyval);
  PMPI_Comm_free_keyval(&g_keyval);
  return rc;
}

int dispatch(Op op, CollArgs& a) noexcept {
  try {
    return dispatch_impl(op, a);
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

std::uint64_t calls_of(Op op, std::string_view algorithm) {
  const Algorithm* a = find_algorithm(op, algorithm);
  if (!a || !g_counters) return 0;
  return g_counters[a->index].calls.load(std::memory_order_relaxed);
}

}  // namespace colltune

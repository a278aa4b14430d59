// MPI_Init and MPI_Finalize: settings, configuration discovery, the cross-rank check,
// statistics at the end.
#include <dlfcn.h>
// glibc's malloc_trim; not under SMPI, whose force-included helpers make malloc a macro.
#if defined(__GLIBC__) && !defined(malloc)
#define COLLTUNE_MALLOC_TRIM 1
#include <malloc.h>
#endif
#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "../algorithms/registry.hpp"
#include "../log.hpp"
#include "../platform.hpp"
#include "../runtime.hpp"
#include "agreement.hpp"
#include "state.hpp"

#ifndef COLLTUNE_DEFAULT_CONFIG
#define COLLTUNE_DEFAULT_CONFIG "/usr/local/etc/colltune/colltune.yaml"
#endif

namespace colltune {

Runtime g_rt;

namespace {

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

// Canonical text of what drives decisions in the admin configuration and the model table.
std::string config_text(const AdminConfig* c) {
  if (!c) return "none";
  std::string s;
  for (const Rule& r : c->rules) {
    s += std::string(op_name(r.op)) + "," + std::string(r.algorithm->name) + "," +
         range_to_string(r.comm_size) + range_to_string(r.bytes) + range_to_string(r.nodes) +
         range_to_string(r.ppn) + "," + (r.root ? std::to_string(*r.root) : "*") + ";";
  }
  return s;
}

std::string table_text(const ModelTable* t) {
  if (!t) return "none";
  std::string s;
  if (t->platform_model) s = model::fingerprint(*t->platform_model);
  for (int op = 0; op < kNumOps; ++op) {
    for (const SizeEntry& e : t->decisions[op]) {
      s += range_to_string(e.comm_size);
      for (const ByteRule& b : e.bytes)
        s += range_to_string(b.bytes) + std::string(b.algorithm->name);
    }
    s += "|";
  }
  return s;
}

// True when every decision for `op` is native whatever the communicator.
bool all_native(Op op) {
  if (!g_rt.tuning) return true;
  const Algorithm* f = g_rt.settings.forced[static_cast<int>(op)];
  if (f) return f->run == native_algorithm(op).run;
  if (g_rt.config) {
    for (const Rule& r : g_rt.config->rules) {
      if (r.op == op && r.algorithm != &native_algorithm(op)) return false;
    }
  }
  if (g_rt.table && g_rt.table->platform_model) return false;  // decided per communicator
  if (g_rt.table) {
    for (const SizeEntry& e : g_rt.table->decisions[static_cast<int>(op)]) {
      for (const ByteRule& b : e.bytes) {
        if (b.algorithm != &native_algorithm(op)) return false;
      }
    }
  }
  return true;
}

// Admin configuration and model table; problems land in `errors`. Returns the config path.
std::string load_inputs(std::vector<std::string>& errors) {
  const Settings& s = g_rt.settings;
  std::string config_path;  // COLLTUNE_CONFIG (must exist; "none": no file), else the default
  if (s.config_path) {
    if (*s.config_path != "none") config_path = *s.config_path;
  } else {
    const std::string def = default_config_path();
    if (file_exists(def)) config_path = def;
  }
  try {
    if (!config_path.empty()) {
      g_rt.config = std::make_unique<AdminConfig>(load_admin_config(config_path));
    }
  } catch (const std::exception& e) {
    errors.push_back(e.what());
  }
  std::optional<std::string> model_path = s.model_path;
  if (!model_path && g_rt.config && g_rt.config->model_path) model_path = g_rt.config->model_path;
  if (model_path && *model_path != "none") {
    try {
      g_rt.table = std::make_unique<ModelTable>(load_model_table(*model_path));
      const std::string why = platform_mismatch(*g_rt.table, mpi_library_version(), this_host());
      if (!why.empty()) errors.push_back(*model_path + ": platform: " + why);
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
  }
  return config_path;
}

// One item per setting that must agree; contents for the paths.
std::vector<AgreementItem> agreement_items(const std::string& config_path) {
  std::vector<AgreementItem> items;
  const Settings& s = g_rt.settings;
  for (const SettingSpec& spec : setting_specs()) {
    if (spec.agree == Agree::kNone) continue;
    if (spec.agree == Agree::kValue) {
      const std::string v = spec.show(s);
      items.push_back({std::string(spec.name), v, v});
    } else if (spec.name == "COLLTUNE_CONFIG") {
      items.push_back({"COLLTUNE_CONFIG (contents)", config_path.empty() ? "none" : config_path,
                       config_text(g_rt.config.get())});
    } else {
      items.push_back({std::string(spec.name) + " (contents)",
                       g_rt.table ? g_rt.table->file : "none", table_text(g_rt.table.get())});
    }
  }
  return items;
}

}  // namespace

int runtime_init() {
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return MPI_SUCCESS;  // MPI_Init and mpi_init_f08 both seen
  g_rt.settings = read_settings([](const char* n) -> const char* { return std::getenv(n); });
  const Settings& s = g_rt.settings;
  int rc = PMPI_Comm_rank(MPI_COMM_WORLD, &g_rt.world_rank);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(MPI_COMM_WORLD, &g_rt.world_size);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_dup(MPI_COMM_WORLD, &g_rt.world);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_errhandler(g_rt.world, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) return rc;

  // Every local step that can fail happens before the check, so that its outcome is agreed too;
  // an exception here is a local error like bad input (the check's allreduce has a fixed length).
  std::vector<std::string> errors;
  std::string config_path;
  std::vector<AgreementItem> items;
  bool local_error = false;
  try {
    errors = s.errors;
    if (!s.disabled) config_path = load_inputs(errors);
#ifdef COLLTUNE_MALLOC_TRIM
    // Parsing a table allocates about 30 times its size in small nodes (100 MB for 256
    // identities), all freed by now: give the pages back rather than hold them for the run.
    malloc_trim(0);
#endif
    if (stats_init() != MPI_SUCCESS ||
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_rt.keyval, nullptr) !=
            MPI_SUCCESS) {
      errors.push_back("local set-up failed (keyval)");
    }
    items = agreement_items(config_path);
  } catch (const std::exception& e) {
    local_error = true;
    log_line_noexcept("error: rank %d: set-up failed (%s); running native collectives",
                      g_rt.world_rank, e.what());
  }
  Agreement ag;
  rc = check_agreement(g_rt.world, items, local_error || !errors.empty(),
                       s.fallback == Fallback::kError, &ag);
  if (rc != MPI_SUCCESS) return rc;
  const bool rank0 = g_rt.world_rank == 0;
  bool disable_differs = false, stats_differs = false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].name == "COLLTUNE_DISABLE") disable_differs = ag.differs[i];
    if (items[i].name == "COLLTUNE_STATS") stats_differs = ag.differs[i];
  }
  if (s.disabled && !disable_differs) {  // COLLTUNE_DISABLE=1 on every rank
    if (s.verbose >= 1 && rank0) log_line("disabled by COLLTUNE_DISABLE=1");
    return MPI_SUCCESS;  // g_passthrough stays true: every call goes straight to PMPI
  }

  try {  // what is said: a failure to say it changes no decision
    const std::string tail = ag.any_fallback_error ? " (COLLTUNE_FALLBACK=error: stopping)"
                                                   : "; running native collectives";
    if (rank0 || s.verbose >= 1) {
      const std::string who = rank0 ? "" : "rank " + std::to_string(g_rt.world_rank) + ": ";
      for (const std::string& e : errors) log_line("error: " + who + e + tail);
    }
    if (rank0 && errors.empty() && ag.any_error) {
      log_line("error: another rank rejected its configuration or model table" + tail +
               " (COLLTUNE_VERBOSE=1 shows every rank's reason)");
    }
    if (rank0 && !ag.any_error) {
      for (std::size_t i = 0; i < ag.report.size(); ++i) {
        // Where COLLTUNE_DISABLE differs, the contents differ only because of it: not repeated.
        if (disable_differs && ag.report[i].find("(contents)") != std::string::npos) continue;
        log_line("error: ranks disagree: " + ag.report[i] + tail);
      }
    }
  } catch (...) {
  }
  // Statistics need only COLLTUNE_STATS to agree: they then show that native served the job.
  g_rt.stats = s.stats && !stats_differs;
  if (ag.any_error || ag.any_differs()) {
    if (ag.any_fallback_error) {
      (void)PMPI_Finalize();  // stopping either way: its outcome changes nothing
      std::exit(1);
    }
    for (auto& p : g_passthrough) p = !g_rt.stats;
    return MPI_SUCCESS;  // every rank: native collectives
  }

  // From here every step that can fail on one rank alone is followed by an agreement (all_ok)
  // before any collective that depends on it: first_launch and setup_identities return an error
  // only where every rank does, and then every rank runs native.
  g_rt.tuning = true;
  validate_fast_type_size();
  rc = first_launch();
  if (rc == MPI_SUCCESS && g_rt.table && g_rt.table->platform_model) rc = setup_identities();
  if (rc != MPI_SUCCESS) {
    g_rt.tuning = false;
    g_rt.table.reset();
    g_rt.world_identity.clear();
    if (rank0) log_line_noexcept("error: set-up failed on some rank; running native collectives");
    for (auto& p : g_passthrough) p = !g_rt.stats;
    return MPI_SUCCESS;
  }
  if (s.verbose >= 1 && rank0) try {
      log_line(std::string("active; config ") + (config_path.empty() ? "none" : config_path) +
               ", model table " + (g_rt.table ? g_rt.table->file : "none"));
    } catch (...) {
    }
  g_rt.any_tuned = false;
  for (int op = 0; op < kNumOps; ++op) {
    const bool native = all_native(static_cast<Op>(op));
    g_rt.any_tuned = g_rt.any_tuned || !native;
    g_passthrough[op] = native && !s.stats && s.verbose == 0;
  }
  return MPI_SUCCESS;
}

int runtime_finalize() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return MPI_SUCCESS;
  for (auto& p : g_passthrough) p = true;
  int rc = MPI_SUCCESS;
  if (g_rt.stats) rc = report_stats();  // agreed at MPI_Init: every rank or none
  if (g_rt.keyval != MPI_KEYVAL_INVALID) {
    // Free our state on the predefined communicators now (their attributes may outlive us).
    int drc = PMPI_Comm_delete_attr(MPI_COMM_WORLD, g_rt.keyval);
    if (drc == MPI_SUCCESS) drc = PMPI_Comm_delete_attr(MPI_COMM_SELF, g_rt.keyval);
    if (drc == MPI_SUCCESS) drc = PMPI_Comm_free_keyval(&g_rt.keyval);
    if (rc == MPI_SUCCESS) rc = drc;
  }
  if (g_rt.world != MPI_COMM_NULL) {
    const int frc = PMPI_Comm_free(&g_rt.world);
    if (rc == MPI_SUCCESS) rc = frc;
  }
  return rc;
}

}  // namespace colltune

// The model in the runtime: first-launch calibration with its cache (docs/calibration.md), each
// world rank's identity, and the model's decisions per communicator, op and root.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <sstream>
#include <string_view>

#include "../algorithms/registry.hpp"
#include "../algorithms/waits.hpp"
#include "../calibration/calibration.hpp"
#include "../identity.hpp"
#include "../log.hpp"
#include "../mapped_alloc.hpp"
#include "../platform.hpp"
#include "../table/atomic_file.hpp"
#include "../table/yaml_util.hpp"
#include "../test_hooks.hpp"
#include "agreement.hpp"
#include "state.hpp"

namespace colltune {

namespace {

std::string cache_dir() {
  if (g_rt.settings.cache_dir) return *g_rt.settings.cache_dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') {
    return std::string(x) + "/colltune";
  }
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/colltune";
  return "/tmp/colltune-" + std::to_string(::getuid());  // created by usable_cache_dir
}

// Rank 0: the cache directory, created if absent; "" when it may be used, else why not. Every
// component is looked at without following links (lstat), so that a link planted on the path
// cannot redirect tables and locks: a symbolic link is accepted only above the directory and
// only when root or this user owns it; a directory on the way that others may write needs the
// sticky bit (/tmp); the directory itself must be this user's and not writable by others.
std::string usable_cache_dir(const std::string& dir) {
  if (dir.empty() || dir[0] != '/') return dir + ": not an absolute path";
  const uid_t me = ::getuid();
  for (std::size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string p = dir.substr(0, i);
    const bool last = i == dir.size() || dir.find_first_not_of('/', i) == std::string::npos;
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) return p + ": " + std::strerror(errno);
      if (::mkdir(p.c_str(), last ? 0700 : 0755) != 0 && errno != EEXIST) {
        return p + ": " + std::strerror(errno);
      }
      if (::lstat(p.c_str(), &st) != 0) return p + ": " + std::strerror(errno);
    }
    if (S_ISLNK(st.st_mode)) {
      if (last) return p + ": a symbolic link (refused: it could point anywhere)";
      if (st.st_uid != 0 && st.st_uid != me) {
        return p + ": a symbolic link owned by uid " + std::to_string(st.st_uid);
      }
      if (::stat(p.c_str(), &st) != 0) return p + ": " + std::strerror(errno);
    }
    if (!S_ISDIR(st.st_mode)) return p + ": not a directory";
    if (last) {
      if (st.st_uid != me) {
        return p + ": owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
               std::to_string(me) + ")";
      }
      if (st.st_mode & (S_IWGRP | S_IWOTH)) return p + ": writable by group or others";
      break;
    }
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX) && st.st_uid != me) {
      return p + ": writable by others without the sticky bit";
    }
  }
  return {};
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Processes per identity, "id x n" sorted by identity: what the cache key and the cached
// table's record must agree on.
std::map<std::string, int> layout_of(const std::vector<std::string>& ids) {
  std::map<std::string, int> n;
  for (const std::string& id : ids) ++n[id];
  return n;
}

std::string layout_text(const std::map<std::string, int>& layout) {
  std::string s;
  for (const auto& [id, n] : layout) s += (s.empty() ? "" : ", ") + id + " x" + std::to_string(n);
  return s;
}

// Rank 0: why the cached table cannot serve this job ("" when it can): another platform, or
// another count of processes per identity than it was calibrated with.
std::string cached_table_problem(const ModelTable& t, const std::vector<std::string>& ids) {
  if (!t.platform_model) return "it has no calibrated model";
  const std::string why = platform_mismatch(t, mpi_library_version(), this_host());
  if (!why.empty()) return why;
  std::vector<std::string> had;
  for (int i : t.calibrated_ranks) had.push_back(t.platform_model->identities[i]);
  const auto want = layout_of(ids), got = layout_of(had);
  if (want != got) {
    return "it was calibrated with " + (had.empty() ? "no recorded layout" : layout_text(got)) +
           ", this job has " + layout_text(want);
  }
  return {};
}

// Rank 0: writes the table under an exclusive lock of the cache directory, waiting for the lock
// at most `wait` seconds. `*waited`: seconds spent waiting for it.
std::string save_cached(const std::string& dir, const std::string& path, std::string_view text,
                        double wait, double* waited) {
  const std::string lock = dir + "/.lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return lock + ": " + std::strerror(errno);
  std::string why;
  const double t0 = PMPI_Wtime();
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    *waited = PMPI_Wtime() - t0;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      why = lock + ": " + std::strerror(errno);
      break;
    }
    if (*waited >= wait) {
      why = lock + ": held by another process for more than " + std::to_string(wait).substr(0, 4) +
            " s";
      break;
    }
    ::usleep(10000);
  }
  if (why.empty()) {
    try {
      write_file_atomically(path, text);
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  ::close(fd);  // releases the lock
  return why;
}

// A first-launch calibration that failed is remembered beside the table it would have written
// ("BUDGET UNIX_TIME WHY", one line): later jobs of the same key skip it while their budget is
// no larger and the failure is younger than kRetryAfter (COLLTUNE_CALIBRATE=always retries).
constexpr double kRetryAfter = 24 * 3600.0;
// A first-launch calibration's waits give up after twice its budget and this (a calibration
// ends within its budget: only a peer that left it, or a machine stopped for that long, is
// waited for so long).
constexpr double kCalibrationSlack = 10;

// Rank 0: why this job skips calibration ("" when it calibrates), from a remembered failure. A
// record that cannot be read (read_text_file: a regular file of at most 16 MiB) or does not
// parse is no record.
std::string remembered_failure(const std::string& path, double budget) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  const MappedString text = read_text_file(path, /*follow_links=*/false);  // throws InputError
  const char* p = text.data();
  const char* end = p + text.size();
  const auto number = [&](double* v) {
    while (p < end && *p == ' ') ++p;
    const auto r = std::from_chars(p, end, *v);
    if (r.ec != std::errc() || !std::isfinite(*v)) return false;
    p = r.ptr;
    return true;
  };
  double had = 0, when = 0;
  if (!number(&had) || !number(&when)) return {};
  while (p < end && *p == ' ') ++p;
  std::string why(p, static_cast<std::size_t>(std::find(p, end, '\n') - p));
  if (why.empty()) why = "no reason recorded";
  const double age = static_cast<double>(std::time(nullptr)) - when;
  if (!(had >= budget) || !(age >= 0 && age < kRetryAfter)) return {};
  return "calibration failed here " + std::to_string(static_cast<long long>(age / 60)) +
         " min ago at budget " + std::to_string(had).substr(0, 4) + " s (" + why +
         "); running native collectives (tried again after 24 h, at a larger "
         "COLLTUNE_CALIBRATE_BUDGET, or with COLLTUNE_CALIBRATE=always; " +
         path + ")";
}

void remember_failure(const std::string& path, double budget, const std::string& why) noexcept {
  try {
    char num[64];
    const auto r = std::to_chars(num, num + sizeof num, budget);
    std::string line = std::string(num, r.ptr) + " " +
                       std::to_string(static_cast<long long>(std::time(nullptr))) + " " +
                       (why.empty() ? "an MPI error" : why);
    std::replace(line.begin(), line.end(), '\n', ' ');
    write_file_atomically(path, line.substr(0, 500) + "\n");
  } catch (const std::exception& e) {
    log_line(std::string("warning: the failure is not remembered: ") + e.what());
  }
}

// Rank 0's text on every rank; a rank that cannot hold it is agreed on (MPI_ERR_NO_MEM on every
// rank).
int broadcast_text(MappedString* text) {
  long long len = static_cast<long long>(text->size());
  int rc = PMPI_Bcast(&len, 1, MPI_LONG_LONG, 0, g_rt.world);
  if (rc != MPI_SUCCESS) return rc;
  bool ok = true, every = false;
  try {
    text->resize(static_cast<std::size_t>(len));
  } catch (const std::exception&) {
    ok = false;
  }
  if ((rc = all_ok(g_rt.world, ok, &every)) != MPI_SUCCESS) return rc;
  if (!every) return MPI_ERR_NO_MEM;
  return len > 0 ? PMPI_Bcast(text->data(), static_cast<int>(len), MPI_CHAR, 0, g_rt.world) : rc;
}

std::string us(double s) {
  std::ostringstream o;
  o.precision(3);
  o << s * 1e6 << " us";
  return o.str();
}

}  // namespace

int first_launch() {
  const Settings& s = g_rt.settings;
  if (g_rt.table || s.calibrate == CalibrateMode::kNever || g_rt.world_size < 2) {
    return MPI_SUCCESS;
  }
  const bool rank0 = g_rt.world_rank == 0;
  if (std::all_of(s.forced.begin(), s.forced.end(), [](const Algorithm* a) { return a; })) {
    if (rank0 && s.verbose >= 1) {
      log_line("every op is forced (COLLTUNE_<OP>_ALGORITHM): no calibration, no model table");
    }
    return MPI_SUCCESS;
  }
  std::vector<std::string> ids;
  int rc = gather_identities(g_rt.world, s.identity, &ids);  // agreed
  if (rc != MPI_SUCCESS) return rc;
  // Local steps up to the table's broadcast: their failure on any rank is agreed below.
  std::map<std::string, int> layout;
  std::string dir, path, failed;
  MappedString text;
  std::unique_ptr<ModelTable> cached;
  std::string dir_problem;
  bool ok = true, every = false;
  try {
    // The key: library, host topology and how many processes each identity has (a table
    // measured with 2 processes on a node does not decide for 64 there).
    layout = layout_of(ids);
    std::string key = mpi_library_version() + "|" + this_host().topology;
    for (const auto& [id, n] : layout) key += "|" + id + "*" + std::to_string(n);
    dir = cache_dir();
    char name[64];
    std::snprintf(name, sizeof name, "/model-%016llx", static_cast<unsigned long long>(fnv1a(key)));
    path = dir + name + ".yaml";
    failed = dir + name + ".failed";  // a failed calibration's record
  } catch (const std::exception&) {
    ok = false;
  }
  if ((rc = all_ok(g_rt.world, ok, &every)) != MPI_SUCCESS) return rc;
  if (!every) return MPI_ERR_NO_MEM;

  // Rank 0: a valid cached table (read and parsed once) and its text for the others.
  if (rank0) try {
      dir_problem = usable_cache_dir(dir);
    } catch (const std::exception& e) {
      dir_problem = e.what();
    }
  if (rank0 && !dir_problem.empty()) {
    log_line("warning: cache directory refused: " + dir_problem +
             "; running native collectives, uncalibrated (COLLTUNE_CACHE_DIR names another)");
  }
  struct stat st;
  if (rank0 && dir_problem.empty() && s.calibrate == CalibrateMode::kFirstLaunch &&
      ::lstat(path.c_str(), &st) == 0) {
    try {
      text = read_text_file(path, /*follow_links=*/false);
      YamlReader y(path);
      auto t = std::make_unique<ModelTable>(parse_model_table(path, y.load_string(text)));
      const std::string why = cached_table_problem(*t, ids);
      if (why.empty()) {
        cached = std::move(t);
      } else {
        log_line("warning: cached table " + path + " does not serve this job: " + why +
                 "; calibrating again");
      }
    } catch (const std::exception& e) {
      log_line(std::string("warning: ") + e.what() + "; calibrating again");
    }
    if (!cached) text.clear();
  }
  if ((rc = broadcast_text(&text)) != MPI_SUCCESS) return rc;  // agreed
  if (text.empty()) {
    // A refused cache directory: no calibration (it would run again at every launch).
    int skip = rank0 && !dir_problem.empty() ? 1 : 0;
    if (rank0 && dir_problem.empty() && s.calibrate == CalibrateMode::kFirstLaunch) try {
        if (const std::string why = remembered_failure(failed, s.calibrate_budget); !why.empty()) {
          log_line("no model table for this platform and layout (" + layout_text(layout) +
                   "): " + why);
          skip = 1;
        }
      } catch (const std::exception&) {  // unreadable: no record (the peers wait below)
      }
    if ((rc = PMPI_Bcast(&skip, 1, MPI_INT, 0, g_rt.world)) != MPI_SUCCESS) return rc;
    if (skip) return MPI_SUCCESS;
    if (rank0) {
      log_line("no model table for this platform and layout (" + layout_text(layout) +
               "): calibrating MPI_COMM_WORLD (" + std::to_string(g_rt.world_size) +
               " processes, budget " + std::to_string(s.calibrate_budget).substr(0, 4) +
               " s; COLLTUNE_CALIBRATE=never skips it)");
    }
    calibrate::Options o;
    o.budget = s.calibrate_budget;
    o.quick = true;
    o.identity = s.identity;
    if (s.verbose >= 1) o.progress = [](const std::string& l) { log_line("calibrate: " + l); };
    calibrate::Result res;
    std::string why;
    {
      // Calibration runs on a communicator of its own, its waits guarded: a rank that fails
      // alone leaves it at once and tells its peers, whose waits then give up (and every wait
      // gives up past the deadline), so that every rank reaches the agreement below, on a
      // communicator the calibration never used (docs/faults.md).
      MPI_Comm cal = MPI_COMM_NULL;
      waits::Guard guard;
      rc = PMPI_Comm_dup(g_rt.world, &cal);
      if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_errhandler(cal, MPI_ERRORS_RETURN);
      if (rc == MPI_SUCCESS) rc = guard.open(cal, 2 * o.budget + kCalibrationSlack);
      if (rc == MPI_SUCCESS) {
        rc = calibrate::run(cal, o, &res, &why);
        if (guard.abandoned()) {  // a peer's notice, the deadline or this rank's own failure
          if (rc == MPI_SUCCESS) rc = waits::kErrAbandoned;
          try {
            why = std::string(guard.why()) + " during calibration (" + why + ")";
          } catch (...) {
          }
        }
      }
      if (cal != MPI_COMM_NULL) (void)PMPI_Comm_free(&cal);
    }
    // The calibration agrees on the errors it detects; what failed on one rank alone (a guard
    // that gave up, the new table's parse, this rank's copy) is agreed here.
    std::unique_ptr<ModelTable> table;
    if (rc == MPI_SUCCESS) try {
        if (hooks::fail_here("init.calibrated")) throw std::bad_alloc();
        table = std::make_unique<ModelTable>(std::move(res.table));
        table->file = "(first-launch calibration)";
      } catch (const std::exception& e) {
        rc = MPI_ERR_NO_MEM;
        why = e.what();
      }
    if (const int arc = all_ok(g_rt.world, rc == MPI_SUCCESS, &every); arc != MPI_SUCCESS) {
      return arc;
    }
    if (!every) {
      if (rank0) try {
          if (rc == MPI_SUCCESS) why = "it failed on another rank";
          log_line("warning: calibration failed after " + std::to_string(res.seconds).substr(0, 4) +
                   " s: " + why + "; running native collectives");
          remember_failure(failed, s.calibrate_budget, why);
        } catch (...) {
        }
      return MPI_SUCCESS;  // every rank: no table, native collectives
    }
    if (rank0) try {
        (void)::unlink(failed.c_str());
        const std::string took = "calibrated in " + std::to_string(res.seconds).substr(0, 4) + " s";
        double waited = 0;
        // The lock wait takes at most the budget's 10% of slack (and 2 s).
        const double wait = std::clamp(0.1 * s.calibrate_budget, 0.05, 2.0);
        const std::string err = save_cached(dir, path, res.text, wait, &waited);
        if (err.empty()) {
          log_line(took + "; saved " + path +
                   (waited > 0.05 ? " (waited " + std::to_string(waited).substr(0, 4) +
                                        " s for the cache lock)"
                                  : ""));
        } else {
          log_line("warning: " + took + "; this run uses its table without caching it: " + err);
        }
      } catch (const std::exception& e) {  // saving is rank 0's alone: the table still serves
        log_line_noexcept("warning: the table is not cached: %s", e.what());
      }
    g_rt.table = std::move(table);
    return MPI_SUCCESS;
  }
  // The others parse rank 0's text (rank 0 parsed it already); a rank that cannot (memory) is
  // agreed on, and then no rank uses the table.
  ok = true;
  if (!rank0) try {
      if (hooks::fail_here("init.table")) throw std::bad_alloc();
      YamlReader y(path);
      cached = std::make_unique<ModelTable>(parse_model_table(path, y.load_string(text)));
    } catch (const std::exception& e) {
      ok = false;
      log_line_noexcept("error: rank %d: the cached table: %s", g_rt.world_rank, e.what());
    }
  if ((rc = all_ok(g_rt.world, ok, &every)) != MPI_SUCCESS) return rc;
  if (!every) {
    if (rank0) {
      log_line_noexcept(
          "warning: another rank could not load the cached table %s; running native "
          "collectives",
          path.c_str());
    }
    return MPI_SUCCESS;
  }
  if (rank0 && s.verbose >= 1) log_line_noexcept("using the cached model table %s", path.c_str());
  g_rt.table = std::move(cached);
  return MPI_SUCCESS;
}

int setup_identities() {
  // Local steps, then one agreement, then the allgather, then the local checks, agreed again:
  // a failure on any rank leaves every rank native (runtime_init), none waiting.
  const model::PlatformModel& pm = *g_rt.table->platform_model;
  int mine[2] = {-1, -1};
  std::vector<int> all;
  bool ok = true, every = false;
  try {
    if (hooks::fail_here("init.setup")) throw std::bad_alloc();
    g_rt.params = model::with_average(pm.params);
    const model::IdentityMatch m =
        model::match_identity(pm, process_identity(g_rt.settings.identity));
    mine[0] = m.index;
    mine[1] = static_cast<int>(m.kind);
    all.resize(2 * static_cast<std::size_t>(g_rt.world_size));
    g_rt.world_identity.resize(g_rt.world_size);
  } catch (const std::exception&) {
    ok = false;
  }
  int rc = all_ok(g_rt.world, ok, &every);
  if (rc != MPI_SUCCESS) return rc;
  if (!every) return MPI_ERR_NO_MEM;
  rc = PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, g_rt.world);
  if (rc != MPI_SUCCESS) return rc;
  std::string why, host_ranks, avg_ranks;
  try {
    for (int r = 0; r < g_rt.world_size; ++r) {
      g_rt.world_identity[r] = all[2 * r];
      if (all[2 * r + 1] == model::IdentityMatch::kHost) host_ranks += " " + std::to_string(r);
      if (all[2 * r + 1] == model::IdentityMatch::kAverage) avg_ranks += " " + std::to_string(r);
    }
    why = layout_mismatch(*g_rt.table, g_rt.world_identity);  // the same list on every rank
  } catch (const std::exception&) {
    ok = false;
  }
  if ((rc = all_ok(g_rt.world, ok, &every)) != MPI_SUCCESS) return rc;
  if (!every) return MPI_ERR_NO_MEM;
  if (!why.empty()) {
    if (g_rt.world_rank == 0) {
      log_line("warning: model table " + g_rt.table->file + " does not serve this job: " + why +
               "; running native collectives (calibrate with this job's layout)");
    }
    g_rt.table.reset();
    g_rt.world_identity.clear();
    return MPI_SUCCESS;
  }
  if (g_rt.settings.verbose >= 1 && g_rt.world_rank == 0) try {
      if (!host_ranks.empty()) {
        log_line("identity not in the model table for rank(s)" + host_ranks +
                 ": using their host's parameters");
      }
      if (!avg_ranks.empty()) {
        log_line("host not in the model table for rank(s)" + avg_ranks +
                 ": using the cluster average");
      }
    } catch (...) {
    }
  return MPI_SUCCESS;
}

// The model's decisions for one root and size group (no communication; may throw).
std::shared_ptr<const Decisions> build_model_decisions(CommState& st, Op op, int root, int group);

int model_decisions(CommState& st, Op op, int root, int group,
                    std::shared_ptr<const Decisions>* d) {
  const int o = static_cast<int>(op);
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(group)) << 32) |
                            static_cast<std::uint32_t>(root);
  return cached_agreed(
      st.shadow, st.by_root[o], key, "call.decide",
      [&] { return build_model_decisions(st, op, root, group); }, d);
}

std::shared_ptr<const Decisions> build_model_decisions(CommState& st, Op op, int root, int group) {
  const int o = static_cast<int>(op);
  const model::PlatformModel& pm = *g_rt.table->platform_model;
  const std::vector<const Algorithm*> cands = model::candidates(pm, op);
  std::vector<Segment> segs;
  for (const model::Choice& c :
       model::decide(pm, g_rt.params, op, cands, st.members, root, group)) {
    std::string why = "model";
    if (!c.predicted.empty()) {
      why += ", predicted at " + std::to_string(static_cast<long long>(c.at)) + " B:";
      for (std::size_t i = 0; i < cands.size(); ++i) {
        why += std::string(i ? ", " : " ") + std::string(cands[i]->name) + " " +
               (std::isfinite(c.predicted[i]) ? us(c.predicted[i]) : "not validated here");
      }
      if (!c.held_back.empty()) why += "; native: " + c.held_back;
    } else {
      why += ": nothing to move";
    }
    Segment seg{c.bytes, root, c.algorithm, why, c.tree};
    if (c.algorithm && !c.algorithm->native()) {
      seg.verify = g_rt.settings.verify;
      seg.margin = pm.margin;
      for (std::size_t i = 0; i < cands.size() && i < c.predicted.size(); ++i) {
        if (cands[i] == c.algorithm) seg.predicted = c.predicted[i];
      }
    }
    segs.push_back(std::move(seg));
  }
  return std::make_shared<const Decisions>(
      resolve(op, st.facts, g_rt.settings.forced[o], g_rt.config.get(), g_rt.table.get(), &segs));
}

}  // namespace colltune

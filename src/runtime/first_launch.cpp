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
#include "../calibration/calibration.hpp"
#include "../identity.hpp"
#include "../log.hpp"
#include "../mapped_alloc.hpp"
#include "../platform.hpp"
#include "../table/atomic_file.hpp"
#include "../table/yaml_util.hpp"
#include "state.hpp"

namespace colltune {

namespace {

std::string cache_dir() {
  if (g_rt.settings.cache_dir) return *g_rt.settings.cache_dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') {
    return std::string(x) + "/colltune";
  }
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/colltune";
  const std::string tmp = "/tmp/colltune-" + std::to_string(::getuid());
  (void)::mkdir(tmp.c_str(), 0700);  // another user's is refused by usable_cache_dir
  return tmp;
}

// mkdir -p, 0755 (existing directories are kept as they are).
bool make_dirs(const std::string& dir, std::string* why) {
  for (std::size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string p = dir.substr(0, i);
    if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = p + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

// Rank 0: the cache directory, created if absent; "" when it may be used, else why not (a
// directory another user owns or others may write could hold a planted table).
std::string usable_cache_dir(const std::string& dir) {
  std::string why;
  if (!make_dirs(dir, &why)) return why;
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return dir + ": " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return dir + ": not a directory";
  if (st.st_uid != ::getuid()) {
    return dir + ": owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(::getuid()) + ")";
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return dir + ": writable by group or others";
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

// Rank 0: why this job skips calibration ("" when it calibrates), from a remembered failure. A
// record that cannot be read (read_text_file: a regular file of at most 16 MiB) or does not
// parse is no record.
std::string remembered_failure(const std::string& path, double budget) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  const MappedString text = read_text_file(path);  // throws InputError
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

int broadcast_text(MappedString* text) {
  long long len = static_cast<long long>(text->size());
  int rc = PMPI_Bcast(&len, 1, MPI_LONG_LONG, 0, g_rt.world);
  if (rc != MPI_SUCCESS) return rc;
  text->resize(static_cast<std::size_t>(len));
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
  int rc = gather_identities(g_rt.world, s.identity, &ids);
  if (rc != MPI_SUCCESS) return rc;
  // The key: library, host topology and how many processes each identity has (a table measured
  // with 2 processes on a node does not decide for 64 there).
  const std::map<std::string, int> layout = layout_of(ids);
  std::string key = mpi_library_version() + "|" + this_host().topology;
  for (const auto& [id, n] : layout) key += "|" + id + "*" + std::to_string(n);
  const std::string dir = cache_dir();
  char name[64];
  std::snprintf(name, sizeof name, "/model-%016llx", static_cast<unsigned long long>(fnv1a(key)));
  const std::string path = dir + name + ".yaml";
  const std::string failed = dir + name + ".failed";  // a failed calibration's record

  // Rank 0: a valid cached table (read and parsed once) and its text for the others.
  MappedString text;
  std::unique_ptr<ModelTable> cached;
  std::string dir_problem;
  if (rank0) {
    dir_problem = usable_cache_dir(dir);
    if (!dir_problem.empty()) {
      log_line("warning: cache directory refused: " + dir_problem +
               "; this run's table is not cached (COLLTUNE_CACHE_DIR)");
    }
  }
  struct stat st;
  if (rank0 && dir_problem.empty() && s.calibrate == CalibrateMode::kFirstLaunch &&
      ::stat(path.c_str(), &st) == 0) {
    try {
      text = read_text_file(path);
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
  if ((rc = broadcast_text(&text)) != MPI_SUCCESS) return rc;
  if (text.empty()) {
    int skip = 0;
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
    rc = calibrate::run(g_rt.world, o, &res, &why);
    if (rc != MPI_SUCCESS) {
      if (rank0) {
        log_line("warning: calibration failed after " + std::to_string(res.seconds).substr(0, 4) +
                 " s: " + why + "; running native collectives");
        if (dir_problem.empty()) remember_failure(failed, s.calibrate_budget, why);
      }
      return MPI_SUCCESS;  // every rank saw the same failure (the calibration agrees on errors)
    }
    if (rank0) {
      if (dir_problem.empty()) (void)::unlink(failed.c_str());
      const std::string took = "calibrated in " + std::to_string(res.seconds).substr(0, 4) + " s";
      double waited = 0;
      // The lock wait takes at most the budget's 10% of slack (and 2 s).
      const double wait = std::clamp(0.1 * s.calibrate_budget, 0.05, 2.0);
      const std::string err =
          dir_problem.empty() ? save_cached(dir, path, res.text, wait, &waited) : std::string();
      if (!dir_problem.empty()) {
        log_line(took + " (not cached: the cache directory was refused)");
      } else if (err.empty()) {
        log_line(took + "; saved " + path +
                 (waited > 0.05
                      ? " (waited " + std::to_string(waited).substr(0, 4) + " s for the cache lock)"
                      : ""));
      } else {
        log_line("warning: " + took + "; this run uses its table without caching it: " + err);
      }
    }
    // Every rank parsed the same text inside calibrate::run.
    g_rt.table = std::make_unique<ModelTable>(std::move(res.table));
    g_rt.table->file = "(first-launch calibration)";
    return MPI_SUCCESS;
  }
  if (rank0) {
    if (s.verbose >= 1) log_line("using the cached model table " + path);
    g_rt.table = std::move(cached);
    return MPI_SUCCESS;
  }
  try {
    YamlReader y(path);
    g_rt.table = std::make_unique<ModelTable>(parse_model_table(path, y.load_string(text)));
  } catch (const std::exception& e) {  // rank 0 parsed the same text: cannot happen
    log_line(std::string("error: rank ") + std::to_string(g_rt.world_rank) + ": " + e.what());
    return MPI_ERR_INTERN;
  }
  return MPI_SUCCESS;
}

int setup_identities() {
  const model::PlatformModel& pm = *g_rt.table->platform_model;
  g_rt.params = model::with_average(pm.params);
  const model::IdentityMatch m =
      model::match_identity(pm, process_identity(g_rt.settings.identity));
  int mine[2] = {m.index, static_cast<int>(m.kind)};
  std::vector<int> all(2 * static_cast<std::size_t>(g_rt.world_size));
  const int rc = PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, g_rt.world);
  if (rc != MPI_SUCCESS) return rc;
  g_rt.world_identity.resize(g_rt.world_size);
  std::string host_ranks, avg_ranks;
  for (int r = 0; r < g_rt.world_size; ++r) {
    g_rt.world_identity[r] = all[2 * r];
    if (all[2 * r + 1] == model::IdentityMatch::kHost) host_ranks += " " + std::to_string(r);
    if (all[2 * r + 1] == model::IdentityMatch::kAverage) avg_ranks += " " + std::to_string(r);
  }
  // Every rank has the same list: the same outcome everywhere.
  if (const std::string why = layout_mismatch(*g_rt.table, g_rt.world_identity); !why.empty()) {
    if (g_rt.world_rank == 0) {
      log_line("warning: model table " + g_rt.table->file + " does not serve this job: " + why +
               "; running native collectives (calibrate with this job's layout)");
    }
    g_rt.table.reset();
    g_rt.world_identity.clear();
    return MPI_SUCCESS;
  }
  if (g_rt.settings.verbose >= 1 && g_rt.world_rank == 0) {
    if (!host_ranks.empty()) {
      log_line("identity not in the model table for rank(s)" + host_ranks +
               ": using their host's parameters");
    }
    if (!avg_ranks.empty()) {
      log_line("host not in the model table for rank(s)" + avg_ranks +
               ": using the cluster average");
    }
  }
  return MPI_SUCCESS;
}

const Decisions& model_decisions(CommState& st, Op op, int root, int group) {
  const int o = static_cast<int>(op);
  for (const auto& r : st.by_root[o]) {
    if (r.root == root && r.group == group) return *r.d;
  }
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
    segs.push_back({c.bytes, root, c.algorithm, why, c.tree});
  }
  auto d = std::make_unique<Decisions>(
      resolve(op, st.facts, g_rt.settings.forced[o], g_rt.config.get(), g_rt.table.get(), &segs));
  st.by_root[o].push_back({root, group, std::move(d)});
  return *st.by_root[o].back().d;
}

}  // namespace colltune

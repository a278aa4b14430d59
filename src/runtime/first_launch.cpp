// The model in the runtime: first-launch calibration with its cache (docs/calibration.md), each
// world rank's identity, and the model's decisions per communicator, op and root.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string_view>

#include "../algorithms.hpp"
#include "../atomic_file.hpp"
#include "../identity.hpp"
#include "../log.hpp"
#include "../mapped_alloc.hpp"
#include "../platform.hpp"
#include "calibration.hpp"
#include "state.hpp"

namespace colltune {

namespace {

std::string cache_dir() {
  if (g_rt.settings.cache_dir) return *g_rt.settings.cache_dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') {
    return std::string(x) + "/colltune";
  }
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/colltune";
  return "/tmp/colltune-" + std::to_string(::getuid());
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

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Rank 0: why the cached table cannot serve this job ("" when it can).
std::string cached_table_problem(const ModelTable& t, const std::vector<std::string>& ids) {
  if (!t.platform_model) return "it has no calibrated model";
  const std::string why = platform_mismatch(t, mpi_library_version(), this_host());
  if (!why.empty()) return why;
  for (const std::string& id : ids) {
    if (t.platform_model->find_identity(id) < 0) return "it does not know process '" + id + "'";
  }
  return {};
}

// Rank 0: writes the table under an exclusive lock of the cache directory.
std::string save_cached(const std::string& dir, const std::string& path, std::string_view text) {
  std::string why;
  if (!make_dirs(dir, &why)) return why;
  const std::string lock = dir + "/.lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return lock + ": " + std::strerror(errno);
  if (::flock(fd, LOCK_EX) != 0) why = lock + ": " + std::strerror(errno);
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
  std::vector<std::string> ids;
  int rc = gather_identities(g_rt.world, s.identity, &ids);
  if (rc != MPI_SUCCESS) return rc;
  std::set<std::string> distinct(ids.begin(), ids.end());
  std::string key = mpi_library_version() + "|" + this_host().topology;
  for (const std::string& id : distinct) key += "|" + id;
  const std::string dir = cache_dir();
  char name[64];
  std::snprintf(name, sizeof name, "/model-%016llx.yaml",
                static_cast<unsigned long long>(fnv1a(key)));
  const std::string path = dir + name;

  MappedString text;  // rank 0: a valid cached table's text, else empty (mapped_alloc.hpp)
  if (rank0 && s.calibrate == CalibrateMode::kFirstLaunch) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      try {
        const ModelTable t = load_model_table(path);
        const std::string why = cached_table_problem(t, ids);
        if (why.empty()) {
          MappedOStream out;
          emit_model_table(t, out);
          text = std::move(out).str();
        } else {
          log_line("warning: cached table " + path + " does not serve this job: " + why +
                   "; calibrating again");
        }
      } catch (const std::exception& e) {
        log_line(std::string("warning: ") + e.what() + "; calibrating again");
      }
    }
  }
  if ((rc = broadcast_text(&text)) != MPI_SUCCESS) return rc;
  std::string file = path;
  if (text.empty()) {
    if (rank0) {
      log_line("no model table for this platform: calibrating MPI_COMM_WORLD (" +
               std::to_string(g_rt.world_size) + " processes, budget " +
               std::to_string(s.calibrate_budget).substr(0, 4) +
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
      if (rank0) log_line("warning: calibration failed: " + why + "; running native collectives");
      return MPI_SUCCESS;  // every rank saw the same failure (the calibration agrees on errors)
    }
    text = std::move(res.text);
    if (rank0) {
      const std::string err = save_cached(dir, path, text);
      if (err.empty()) {
        log_line("calibrated in " + std::to_string(res.seconds).substr(0, 4) + " s; saved " + path);
      } else {
        log_line("warning: calibrated, but the table could not be saved: " + err);
        file = "(first-launch calibration)";
      }
    }
  } else if (rank0 && s.verbose >= 1) {
    log_line("using the cached model table " + path);
  }
  try {
    YamlReader y(file);
    g_rt.table = std::make_unique<ModelTable>(parse_model_table(file, y.load_string(text)));
  } catch (const std::exception& e) {  // identical text on every rank: identical outcome
    if (rank0) log_line(std::string("warning: ") + e.what() + "; running native collectives");
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

const Decisions& model_decisions(CommState& st, Op op, int root) {
  const int o = static_cast<int>(op);
  for (const auto& r : st.by_root[o]) {
    if (r.root == root) return *r.d;
  }
  const model::PlatformModel& pm = *g_rt.table->platform_model;
  const std::vector<const Algorithm*> cands = algorithms_of(op);
  std::vector<Segment> segs;
  for (const model::Choice& c : model::decide(pm, g_rt.params, op, cands, st.members, root)) {
    std::string why = "model";
    if (!c.predicted.empty()) {
      why += ", predicted at " + std::to_string(static_cast<long long>(c.at)) + " B:";
      for (std::size_t i = 0; i < cands.size(); ++i) {
        why += std::string(i ? ", " : " ") + std::string(cands[i]->name) + " " + us(c.predicted[i]);
      }
    } else {
      why += ": nothing to move";
    }
    segs.push_back({c.bytes, root, c.algorithm, why});
  }
  auto d = std::make_unique<Decisions>(
      resolve(op, st.facts, g_rt.settings.forced[o], g_rt.config.get(), g_rt.table.get(), &segs));
  st.by_root[o].push_back({root, std::move(d)});
  return *st.by_root[o].back().d;
}

}  // namespace colltune

// colltune-predict: forecasts on a calibrated model table, before anything runs
// (docs/forecast.md).
//   colltune-predict comm --table TABLE [--table TABLE...] --from ID --to ID --bytes B[,B...]
//                                 one message from one identity's process to another's; tables
//                                 calibrated apart are merged by identity name, and a link none
//                                 measured is combined along measured ones (marked "combined");
//                                 each link's age; [--links FILE] re-measured links take the
//                                 calibrated ones' place; [--max-age DURATION] marks older ones
//                                 stale; [--refresh] measures the pair again when stale
//                                 ([--launcher CMD], default "mpiexec.mpich -n 2 -hosts {hosts}")
//   colltune-predict measure-link --from ID --to ID --links FILE [--bytes M] [--small-bytes S]
//                                 MPI, 2 processes (rank 0 on ID from, 1 on to): the link's
//                                 fixed and per-byte time as calibration measures them, and
//                                 with S (default min(16384, M/4); 0: none) the bytes it passes
//                                 before the per-byte time counts; recorded in FILE with the date
//   colltune-predict replay DIR [--table TABLE] [--to-model FILE] [--members ID,...]
//                           [--eager B|inf] [--compute-scale F] [--shared-cores C]
//                                 a run libcolltune_record.so recorded (docs/recording.md),
//                                 forecast on the table's platform: messages on its links,
//                                 computation as recorded (times F; C: every process shares
//                                 C cores, hosts emulated on one machine), collectives as MPICH's
//                                 and as colltune would pick them; --to-model: the run as an
//                                 application model (docs/app-models.md); --calls: each kind
//                                 of call as a wall-clock recording timed it and as replayed;
//                                 tree broadcasts and reductions as their messages unless
//                                 --whole-collectives
//   colltune-predict app MODEL (-n N | --best-n LIST) [--table TABLE] [--node FILE] ...
//                                 an application model on N processes: time, energy, chance
//                                 of finishing (docs/app-models.md; predict/app.cpp)
//   colltune-predict fit CSV... --output NODE
//                                 MERPSYS's block formulas fitted to measurements
//   colltune-predict coll --table TABLE --op OP --root R --bytes B[,B...] [--members ID,...]
//                         [--algorithm NAME]
//                                 every candidate the library weighs for OP on the members
//                                 (default: the ranks the table calibrated), predicted as the
//                                 library predicts it, its validated error, and its pick
//   colltune-predict benchmark --output FILE [--quick] [--kernels K[,K...]]
//                                 times BLAS dgemm, dtrsm, daxpy and a matrix add on this host
//                                 (OpenBLAS, one thread), fits each by polynomial regression and
//                                 writes the computation model; prints each fit's error on
//                                 square sizes it never saw
//   colltune-predict comp --model FILE --kernel K --sizes S[,S...] [--memory BYTES]
//                                 a kernel's time and memory at those sizes; refused (exit 2) when
//                                 its operands do not fit the memory available (MemAvailable)
//   colltune-predict routine --table TABLE --model FILE --routine pdgemm|pdtrsm
//                            --sizes M,N,K|M,N [--form SUT] --block R --grid PxQ
//                            [--members ID,...] [--memory BYTES]
//                                 PDGEMM's or PDTRSM's time on the grid's first P Q members
//                                 (default: the ranks the table calibrated): BLACS's rings on the
//                                 links, the kernels from the computation model
//   colltune-predict best --table TABLE --model FILE --routine pdgemm|pdtrsm --sizes ...
//                         --processes P [--blocks R,...] [--members ID,...] [--memory BYTES]
//                                 every grid of at most P processes and block size, fastest first
//   --format table|csv|json (default table)
// Bad arguments or input: one line naming the option or file and the valid values, exit 2.
// A pair no measured path joins: one line, exit 1.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "app.hpp"
#include "calibration/link.hpp"
#include "cli.hpp"
#include "forecast/app_yaml.hpp"
#include "forecast/call_times.hpp"
#include "forecast/coll.hpp"
#include "forecast/comm.hpp"
#include "forecast/comp.hpp"
#include "forecast/comp_yaml.hpp"
#include "forecast/links.hpp"
#include "forecast/links_yaml.hpp"
#include "forecast/output.hpp"
#include "forecast/replay.hpp"
#include "forecast/routine.hpp"
#include "forecast/to_model.hpp"
#include "identity.hpp"
#include "table/atomic_file.hpp"
#include "table/model_table.hpp"

namespace {

namespace cli = colltune::cli;
namespace fc = colltune::forecast;
using colltune::ModelTable;

constexpr const char* kUsage =
    "usage: colltune-predict comm --table TABLE [--table TABLE...] --from ID --to ID --bytes "
    "B[,B...] [--links FILE] [--max-age DURATION [--refresh] [--launcher CMD]] [--format F]\n"
    "       colltune-predict measure-link --from ID --to ID --links FILE [--bytes M] "
    "[--small-bytes S]\n"
    "       colltune-predict replay DIR [--table TABLE] [--to-model FILE] [--members ID[,ID...]] "
    "[--eager B|inf] [--compute-scale F] [--shared-cores C] [--links FILE] [--calls] "
    "[--whole-collectives] [--format F]\n"
    "       colltune-predict coll --table TABLE --op OP --root R --bytes B[,B...] [--members "
    "ID[,ID...]] [--algorithm NAME] [--links FILE [--max-age DURATION]] [--format F]\n"
    "       colltune-predict benchmark --output FILE [--quick] [--occupancy N] [--kernels "
    "K[,K...]]\n"
    "       colltune-predict comp --model FILE --kernel K --sizes S[,S...] [--memory BYTES] "
    "[--format F]\n"
    "       colltune-predict routine --table TABLE --model FILE --routine pdgemm|pdtrsm "
    "--sizes M,N,K|M,N [--form SUT] --block R --grid PxQ [--members ID[,ID...]] [--eager B|inf] "
    "[--links FILE] [--max-age DURATION] [--memory BYTES] [--format F]\n"
    "       colltune-predict best --table TABLE --model FILE --routine pdgemm|pdtrsm --sizes "
    "M,N,K|M,N [--form SUT] --processes P [--blocks R[,R...]] [--members ID[,ID...]] [--eager "
    "B|inf] [--links FILE] [--max-age DURATION] [--memory BYTES] [--format F]\n"
    "       colltune-predict app MODEL.yaml (-n N | --best-n N[,N...]|A:B) [--table TABLE "
    "[--links FILE]] [--node FILE] [--costs lmo|merpsys|both] [--per-node K] [--var NAME=V...] "
    "[--mpich] [--eager B|inf] [--flops-rate F|F@W,...] [--cores C] [--noise TRACE] [--idle-wait] "
    "[--checkpoint C[,TAU]] [--objective time|expected|energy] [--energy-cap J] [--format F]\n"
    "       colltune-predict fit CSV... --output NODE.yaml [--dtu B] [--p-low N] [--p-high N] "
    "[--like NODE] [--format F]\n";
constexpr const char* kHelp =
    "  comm   one message of B bytes from identity ID's process to another's: measured links\n"
    "         as calibrated, links no table measured combined along measured ones (FAST),\n"
    "         each with its age; --max-age marks older ones stale, --refresh measures the\n"
    "         pair again then (--launcher, {hosts}: the two identities' hosts)\n"
    "  measure-link  (MPI, 2 processes) the link between --from and --to, recorded with its\n"
    "         date in the --links FILE that comm, coll, routine and best then take\n"
    "  replay a run recorded by libcolltune_record.so (COLLTUNE_RECORD=DIR) on the table's\n"
    "         platform, rank r on the r-th member: with MPICH's collectives and colltune's;\n"
    "         --to-model FILE writes the run as an application model (colltune-predict app);\n"
    "         --calls: each kind of call as recorded on the wall clock and as replayed;\n"
    "         tree broadcasts and reductions run as their messages (--whole-collectives:\n"
    "         every collective priced as one, all members leaving together)\n"
    "  coll   OP of B bytes per process on the members from root R: every candidate's\n"
    "         predicted time, its validated error and the library's pick\n"
    "  benchmark  time BLAS dgemm, dtrsm, daxpy and a matrix add here (OpenBLAS, one thread),\n"
    "         fit each by polynomial regression, write the computation model to FILE\n"
    "  comp   a kernel's time and memory at the sizes (dgemm M,N,K; dtrsm, add M,N; daxpy N)\n"
    "         from the computation model; refused when the memory does not suffice\n"
    "  routine  PDGEMM (M,N,K) or PDTRSM (M,N; --form: side L|R, uplo U|L, trans N|T,\n"
    "         default LUN) on a PxQ grid of the members with blocks R: BLACS's broadcast rings\n"
    "         on the calibrated links, the kernels from the computation model\n"
    "  best   every grid of at most P processes and block size, fastest first\n"
    "  app    an application model (docs/app-models.md) run on N processes: on the table's\n"
    "         platform (LMO links, MPICH's collectives and colltune's) and/or MERPSYS's\n"
    "         formulas with a node file's coefficients; energy and success probability from\n"
    "         the node file; --best-n: the N that minimizes the objective\n"
    "  fit    MERPSYS's block formulas fitted to bench/apps/merpsys_blocks's measurements:\n"
    "         a node file for app --costs merpsys, and each fit's R^2 beside the paper's\n"
    "         Table 2\n"
    "  --format table|csv|json   (default table)\n"
    "Bad arguments or input exit 2; a pair that no measured path joins exits 1.\n";

// A calibrated table, or the one line naming what is wrong (then exit 2).
bool load(const std::string& file, ModelTable* t) {
  try {
    *t = colltune::load_model_table(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-predict: %s\n", e.what());
    return false;
  }
  if (!t->platform_model) {
    std::fprintf(stderr,
                 "colltune-predict: %s: model: absent (a table colltune-calibrate wrote has "
                 "one)\n",
                 file.c_str());
    return false;
  }
  return true;
}

// The computation model with `kernel` in it, or the one line naming what is wrong (exit 2).
bool load_comp(const std::string& file, fc::Kernel kernel, fc::CompModel* m) {
  try {
    *m = colltune::load_comp_model(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-predict: %s\n", e.what());
    return false;
  }
  if (!m->find(kernel)) {
    std::fprintf(stderr,
                 "colltune-predict: %s: kernels.%s: absent (rerun colltune-predict "
                 "benchmark)\n",
                 file.c_str(), fc::kernel_name(kernel));
    return false;
  }
  return true;
}

// The links re-measured after calibration in `file` ("" for none), or the one line naming what
// is wrong (exit 2). `may_be_missing`: a file not there yet reads as none.
bool load_links(const std::string& file, bool may_be_missing,
                std::vector<fc::LinkMeasurement>* out) {
  out->clear();
  if (file.empty()) return true;
  std::error_code ec;
  if (may_be_missing && !std::filesystem::exists(file, ec)) return true;
  try {
    *out = colltune::load_links(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-predict: %s\n", e.what());
    return false;
  }
  return true;
}

// The table with the links re-measured in `links` ("": none) taking their place in its model;
// false after the one line (exit 2).
bool load_with_links(const std::string& table, const std::string& links, ModelTable* t,
                     std::vector<fc::LinkMeasurement>* fresh) {
  if (!load(table, t) || !load_links(links, false, fresh)) return false;
  fc::apply(*t->platform_model, *fresh);
  return true;
}

// The table's links dated from its calibration, the re-measured ones (with their dates) in
// their place.
fc::LinkGraph links_of(const ModelTable& t, std::span<const fc::LinkMeasurement> fresh) {
  fc::LinkGraph g = fc::graph_of(*t.platform_model, t.calibrated_ranks);
  fc::date_links(g, t.finished);
  fc::apply(g, fresh);
  return g;
}

double now() { return static_cast<double>(std::time(nullptr)); }

// The oldest link under a forecast on these processes: its age ("unknown" without a date) and
// whether it is older than max_age; a stale one is said once on stderr with the command that
// measures it again.
std::vector<colltune::forecast::Cell> age_cells(const colltune::forecast::LinkGraph& g,
                                                std::span<const int> ranks, double max_age,
                                                bool* said) {
  namespace fc = colltune::forecast;
  const fc::OldestLink o = fc::oldest_link(g, ranks, now());
  const bool stale = o.from >= 0 && o.age > max_age;
  if (stale && !*said) {
    *said = true;
    std::fprintf(stderr,
                 "colltune-predict: the link %s-%s under this forecast is older than --max-age "
                 "(%s); measure it again: colltune-predict measure-link --from %s --to %s "
                 "--links FILE, then give --links FILE\n",
                 g.identities[o.from].c_str(), g.identities[o.to].c_str(),
                 std::isfinite(o.age)
                     ? (std::to_string(static_cast<long long>(o.age)) + " s").c_str()
                     : "its date unknown",
                 g.identities[o.from].c_str(), g.identities[o.to].c_str());
  }
  return {std::isfinite(o.age) ? fc::number(o.age) : fc::text("unknown"), fc::boolean(stale)};
}

double max_age_of(const std::string& v) {
  return v.empty() ? std::numeric_limits<double>::infinity()
                   : *colltune::forecast::parse_duration(v);
}

// --eager's value (validated): bytes, or inf.
double eager_of(const std::string& v) {
  return v == "inf" ? std::numeric_limits<double>::infinity() : std::stod(v);
}

// The identities' names for messages: "h0, h1, ... (8)".
std::string some(const std::vector<std::string>& ids) {
  std::vector<std::string> first(ids.begin(), ids.begin() + std::min<std::size_t>(ids.size(), 12));
  return cli::join(first) + (ids.size() > 12 ? ", ... (" + std::to_string(ids.size()) + ")" : "");
}

// --members' identities as indexes into `identities` (a table's), into *out; the one line
// naming the unknown one otherwise (exit 2), -1 when all are known.
int members_of(const cli::Parser& p, const std::string& list, const std::string& table,
               const std::vector<std::string>& identities, std::vector<int>* out) {
  out->clear();
  for (const std::string& id : cli::split(list)) {
    const auto at = std::find(identities.begin(), identities.end(), id);
    if (at == identities.end()) {
      return p.fail("--members: invalid value '" + id + "' (valid: the identities of " + table +
                    ": " + some(identities) + ")");
    }
    out->push_back(static_cast<int>(at - identities.begin()));
  }
  return -1;
}

std::vector<double> sizes_of(const std::string& list) {
  std::vector<double> out;
  for (const std::string& b : cli::split(list)) out.push_back(std::stod(b));
  return out;
}

struct CommQuery {
  std::vector<std::string> tables;
  std::string from, to, bytes, links, max_age, launcher;
  bool refresh = false;
};

// The host an identity runs on ("host/numa0" -> "host").
std::string host_of(const std::string& identity) { return identity.substr(0, identity.find('/')); }

// What `sh -c` reads as the one word `s`.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs this program's measure-link for the pair through `launcher` (a shell command: {hosts}
// the two identities' hosts, {from} and {to} the identities, {command} the measure-link
// command, appended when absent); its exit status.
int remeasure(const CommQuery& a, double m) {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  const std::string command = quoted(self) + " measure-link --from " + quoted(a.from) + " --to " +
                              quoted(a.to) + " --links " + quoted(a.links) + " --bytes " +
                              std::to_string(static_cast<long long>(m)) + " --small-bytes " +
                              std::to_string(std::min(16384LL, static_cast<long long>(m) / 4));
  std::string cmd = a.launcher;
  if (cmd.find("{command}") == std::string::npos) cmd += " {command}";
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{"{hosts}", host_of(a.from) + "," + host_of(a.to)},
        {"{from}", quoted(a.from)},
        {"{to}", quoted(a.to)},
        {"{command}", command}}) {
    for (std::size_t at = 0; (at = cmd.find(key, at)) != std::string::npos;) {
      cmd.replace(at, key.size(), value);
      at += value.size();
    }
  }
  std::fprintf(stderr, "colltune-predict: re-measuring %s-%s: %s\n", a.from.c_str(), a.to.c_str(),
               cmd.c_str());
  std::fflush(nullptr);
  const int st = std::system(cmd.c_str());
  return st == -1 ? 127 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int cmd_comm(const cli::Parser& p, const CommQuery& a, fc::Format format) {
  std::vector<fc::LinkGraph> graphs;
  double message_m = 0;
  for (const std::string& f : a.tables) {
    ModelTable t;
    if (!load(f, &t)) return cli::kBadArgs;
    graphs.push_back(fc::graph_of(*t.platform_model, t.calibrated_ranks));
    fc::date_links(graphs.back(), t.finished);
    message_m = std::max(message_m, t.platform_model->message_m);
  }
  const fc::LinkGraph tables = graphs.size() == 1 ? graphs.front() : fc::merge(graphs);
  const int from = tables.find(a.from), to = tables.find(a.to);
  for (const auto& [opt, id, i] : {std::tuple{"--from", a.from, from}, {"--to", a.to, to}}) {
    if (i < 0) {
      return p.fail(std::string(opt) + ": invalid value '" + id +
                    "' (valid: the tables' identities " + some(tables.identities) + ")");
    }
  }
  if (a.refresh && (a.links.empty() || a.max_age.empty())) {
    return p.fail(
        "--refresh: needs --links FILE (where the measurement goes) and --max-age "
        "(what is stale)");
  }
  const double max_age = max_age_of(a.max_age);
  std::vector<fc::LinkMeasurement> fresh;
  if (!load_links(a.links, a.refresh, &fresh)) return cli::kBadArgs;
  fc::LinkGraph g = tables;
  fc::apply(g, fresh);
  const std::vector<double> sizes = sizes_of(a.bytes);
  int rc = 0;
  // A stale link (or one of unknown age) between the two is measured again, once, when asked.
  const auto stale_now = [&] {
    for (const double m : sizes) {
      if (fc::age(g, fc::comm(g, from, to, m), now()) > max_age) return true;
    }
    return false;
  };
  if (a.refresh && stale_now()) {
    if (const int st = remeasure(a, message_m > 0 ? message_m : 65536); st != 0) {
      std::fprintf(stderr,
                   "colltune-predict: re-measuring %s-%s failed (exit %d); the forecast below "
                   "is on the stale link\n",
                   a.from.c_str(), a.to.c_str(), st);
      rc = 1;
    } else {
      if (!load_links(a.links, false, &fresh)) return cli::kBadArgs;
      g = tables;
      fc::apply(g, fresh);
    }
  }
  std::vector<std::vector<fc::Cell>> rows;
  for (const double m : sizes) {
    const fc::Link l = fc::comm(g, from, to, m);
    if (l.source == fc::LinkSource::kNone) {
      std::fprintf(stderr, "colltune-predict: no measured path joins %s and %s in %s\n",
                   a.from.c_str(), a.to.c_str(), cli::join(a.tables).c_str());
      return 1;
    }
    std::string path;
    for (const int v : l.path) path += (path.empty() ? "" : ">") + g.identities[v];
    const double age = fc::age(g, l, now());
    rows.push_back({fc::text(a.from), fc::text(a.to), fc::number(m), fc::number(l.at(m)),
                    fc::number(l.fixed), fc::number(l.per_byte),
                    fc::text(fc::source_name(l.source)), fc::text(path),
                    std::isfinite(age) ? fc::number(age) : fc::text("unknown"),
                    fc::boolean(age > max_age), fc::number(l.free)});
  }
  std::fputs(fc::render({"from", "to", "bytes", "seconds", "fixed_s", "per_byte_s", "source",
                         "path", "age_s", "stale", "free_bytes"},
                        rows, format)
                 .c_str(),
             stdout);
  return rc;
}

struct MeasureQuery {
  std::string from, to, links, bytes = "65536", small;  // small: min(16384, M / 4) by default
};

// MPI, 2 processes: rank 0 on identity `from`, rank 1 on `to`; rank 0 records the link.
int cmd_measure_link(const MeasureQuery& a) {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return 1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto finish = [&](int code) {
    MPI_Finalize();
    return code;
  };
  if (size != 2) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "colltune-predict: measure-link: %d processes (valid: 2, one on each "
                   "identity)\n",
                   size);
    }
    return finish(cli::kBadArgs);
  }
  const int m = std::stoi(a.bytes);
  const int small = a.small.empty() ? std::min(16384, m / 4) : std::stoi(a.small);
  if (small >= m) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "colltune-predict: measure-link: --small-bytes %d (valid: 0 for none, or 1 to "
                   "%d, below --bytes)\n",
                   small, m - 1);
    }
    return finish(cli::kBadArgs);
  }
  const char* env = std::getenv("COLLTUNE_IDENTITY");
  std::vector<std::string> ids;
  if (colltune::gather_identities(MPI_COMM_WORLD,
                                  env && *env ? std::optional<std::string>(env) : std::nullopt,
                                  &ids) != MPI_SUCCESS) {
    return finish(1);
  }
  if (ids[0] != a.from || ids[1] != a.to) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "colltune-predict: measure-link: ranks 0 and 1 run on identities %s and %s "
                   "(valid: %s and %s, --from and --to; COLLTUNE_IDENTITY names emulated "
                   "hosts)\n",
                   ids[0].c_str(), ids[1].c_str(), a.from.c_str(), a.to.c_str());
    }
    return finish(cli::kBadArgs);
  }
  colltune::bench::Adaptive reps;
  reps.min_reps = 6;
  reps.max_reps = 40;
  reps.rel_error = 0.01;
  reps.median = true;  // a preempted repetition does not move it
  colltune::calibrate::LinkTimes lt;
  if (const int rc = colltune::calibrate::measure_link(MPI_COMM_WORLD, m, small, reps, &lt);
      rc != MPI_SUCCESS) {
    if (rank == 0) std::fprintf(stderr, "colltune-predict: measure-link: MPI error %d\n", rc);
    return finish(1);
  }
  int code = 0;
  if (rank == 0) {
    fc::LinkMeasurement l{a.from, a.to, lt.fixed, lt.per_byte, now(), static_cast<double>(m),
                          lt.reps};
    if (small > 0 && small < m) {
      l.small_bytes = small;
      l.free_bytes = lt.free;
    }
    try {
      colltune::record_link(l, a.links);
      std::fprintf(stderr,
                   "colltune-predict: %s-%s: fixed %.6g s, per byte %.6g s above %.0f B (%d "
                   "repetitions); wrote %s\n",
                   a.from.c_str(), a.to.c_str(), lt.fixed, lt.per_byte, lt.free, lt.reps,
                   a.links.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-predict: %s\n", e.what());
      code = cli::kBadArgs;
    }
  }
  // Both ranks end with rank 0's verdict.
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return finish(code);
}

struct CollQuery {
  std::string table, op, root, bytes, members, algorithm, links, max_age;
};

int cmd_coll(const cli::Parser& p, const CollQuery& a, fc::Format format) {
  using namespace colltune;
  ModelTable t;
  std::vector<fc::LinkMeasurement> fresh;
  if (!load_with_links(a.table, a.links, &t, &fresh)) return cli::kBadArgs;
  const model::PlatformModel& pm = *t.platform_model;
  std::vector<int> members = t.calibrated_ranks;
  if (!a.members.empty()) {
    if (const int rc = members_of(p, a.members, a.table, pm.identities, &members); rc >= 0) {
      return rc;
    }
  }
  if (members.empty()) {
    std::fprintf(stderr,
                 "colltune-predict: %s: calibration.rank_identity: absent (give --members)\n",
                 a.table.c_str());
    return cli::kBadArgs;
  }
  const long long root = std::stoll(a.root);
  if (root >= static_cast<long long>(members.size())) {
    return p.fail("--root: invalid value '" + a.root + "' (valid: ROOT from 0 to " +
                  std::to_string(members.size() - 1) + ", a rank of the members)");
  }
  const Op op = *op_from_name(a.op);
  const Algorithm* only = nullptr;
  if (!a.algorithm.empty()) {
    std::vector<std::string> names;
    for (const Algorithm* x : algorithms_of(op)) {
      names.emplace_back(x->name);
      if (x->name == a.algorithm) only = x;
    }
    if (!only) {
      return p.fail("--algorithm: invalid value '" + a.algorithm + "' (valid: " + cli::join(names) +
                    ")");
    }
  }
  const std::vector<double> sizes = sizes_of(a.bytes);
  const fc::LinkGraph g = links_of(t, fresh);
  bool said = false;
  const std::vector<fc::Cell> ages = age_cells(g, members, max_age_of(a.max_age), &said);
  std::vector<std::vector<fc::Cell>> rows;
  fc::ModelAtSize sized(pm, g);  // links that pass bytes free: each size's own rate
  for (const fc::CollRow& r :
       fc::coll(pm, op, members, static_cast<int>(root), sizes, only, &sized)) {
    rows.push_back({fc::text(a.op), fc::number(r.bytes), fc::number(static_cast<double>(root)),
                    fc::text(std::string(r.algorithm->name)), fc::number(r.seconds),
                    fc::number(r.error), fc::boolean(r.picked), ages[0], ages[1]});
  }
  std::fputs(fc::render({"op", "bytes", "root", "algorithm", "seconds", "error", "picked",
                         "links_age_s", "stale"},
                        rows, format)
                 .c_str(),
             stdout);
  return 0;
}

struct ReplayQuery {
  std::string dir, table, members, links, eager = "0", scale = "1", to_model, cores = "0";
  bool calls = false;
  bool whole = false;  // --whole-collectives
};

// A recorded run (libcolltune_record.so) forecast on the table's platform, with MPICH's
// collectives and with colltune's picks.
int cmd_replay(const cli::Parser& p, const ReplayQuery& a, fc::Format format) {
  using namespace colltune;
  if (a.table.empty() && a.to_model.empty()) {
    return p.fail("replay: give --table TABLE, --to-model FILE or both");
  }
  // The rank files: DIR/rank-0.ti, rank-1.ti, ... as many as there are.
  std::vector<std::vector<fc::TraceAction>> traces;
  for (int r = 0;; ++r) {
    const std::string f = a.dir + "/rank-" + std::to_string(r) + ".ti";
    std::error_code ec;
    if (!std::filesystem::exists(f, ec)) break;
    try {
      const MappedString text = read_text_file(f);
      traces.push_back(fc::parse_trace(std::string(text.data(), text.size()), r));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-predict: %s: %s\n", f.c_str(), e.what());
      return cli::kBadArgs;
    }
  }
  if (traces.empty()) {
    std::fprintf(stderr,
                 "colltune-predict: %s: no rank-0.ti (valid: a folder COLLTUNE_RECORD wrote, "
                 "docs/recording.md)\n",
                 a.dir.c_str());
    return cli::kBadArgs;
  }
  if (!a.to_model.empty()) {
    try {
      const fc::AppModel m = fc::model_of_trace(traces, std::stod(a.scale));
      std::string note = "colltune-predict replay --to-model: the run recorded in " + a.dir + " (" +
                         std::to_string(traces.size()) +
                         " ranks), its computations in seconds as recorded";
      write_file_atomically(a.to_model, emit_app_model(m, note));
      std::fprintf(stderr, "colltune-predict: wrote %s (%zu groups)\n", a.to_model.c_str(),
                   m.groups.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-predict: %s: --to-model: %s\n", a.dir.c_str(), e.what());
      return cli::kBadArgs;
    }
    if (a.table.empty()) return 0;
  }
  ModelTable t;
  std::vector<fc::LinkMeasurement> fresh;
  if (!load_with_links(a.table, a.links, &t, &fresh)) return cli::kBadArgs;
  const fc::LinkGraph g = links_of(t, fresh);
  std::vector<int> members = t.calibrated_ranks;
  if (!a.members.empty()) {
    if (const int rc = members_of(p, a.members, a.table, g.identities, &members); rc >= 0) {
      return rc;
    }
  }
  if (members.size() < traces.size()) {
    std::fprintf(stderr,
                 "colltune-predict: %s has %zu ranks, the members %zu (give --members with one "
                 "identity per rank)\n",
                 a.dir.c_str(), traces.size(), members.size());
    return cli::kBadArgs;
  }
  fc::ReplayOptions o;
  o.eager = eager_of(a.eager);
  o.compute_scale = std::stod(a.scale);
  o.shared_cores = std::stoi(a.cores);
  o.tree_messages = !a.whole;
  std::vector<std::vector<fc::Cell>> rows;
  if (a.calls) {  // the run as it ran: MPICH's collectives
    o.native = o.action_times = true;
    std::vector<fc::CallTimes> ct;
    try {
      ct = fc::call_times(traces, fc::replay(*t.platform_model, g, members, traces, o));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-predict: %s: %s\n", a.dir.c_str(), e.what());
      return cli::kBadArgs;
    }
    if (ct.empty()) {
      std::fprintf(stderr,
                   "colltune-predict: %s: --calls: no call was timed (record with "
                   "COLLTUNE_RECORD_CLOCK=wall, docs/recording.md)\n",
                   a.dir.c_str());
      return cli::kBadArgs;
    }
    for (const fc::CallTimes& c : ct) {
      rows.push_back({fc::text(c.call), fc::number(c.bytes_from), fc::number(c.bytes_to),
                      fc::number(c.calls), fc::number(c.recorded), fc::number(c.replayed),
                      fc::number(c.replayed - c.recorded)});
    }
    std::fputs(fc::render({"call", "bytes_from", "bytes_to", "calls", "recorded_s", "replayed_s",
                           "difference_s"},
                          rows, format)
                   .c_str(),
               stdout);
    return 0;
  }
  for (const bool native : {true, false}) {
    o.native = native;
    fc::ReplayResult r;
    try {
      r = fc::replay(*t.platform_model, g, members, traces, o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-predict: %s: %s\n", a.dir.c_str(), e.what());
      return cli::kBadArgs;
    }
    rows.push_back({fc::text(native ? "mpich" : "colltune"),
                    fc::number(static_cast<double>(traces.size())), fc::number(r.seconds),
                    fc::number(*std::max_element(r.compute.begin(), r.compute.end())),
                    fc::number(r.collectives), fc::number(r.replays)});
  }
  std::fputs(fc::render({"collectives", "ranks", "seconds", "compute_max_s", "collective_calls",
                         "replays"},
                        rows, format)
                 .c_str(),
             stdout);
  return 0;
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> out;
  for (const fc::Kernel k : fc::kKernels) out.emplace_back(fc::kernel_name(k));
  return out;
}

std::string host_name() {
  char b[256] = {};
  return gethostname(b, sizeof b - 1) == 0 ? b : "unknown";
}

struct BenchmarkQuery {
  std::string output, kernels;
  bool quick = false;
  int occupancy = 1;
};

int cmd_benchmark(const BenchmarkQuery& a, fc::Format format) {
  std::vector<fc::Kernel> kernels;
  for (const std::string& k :
       cli::split(a.kernels.empty() ? cli::join(kernel_names()) : a.kernels, ',')) {
    if (const auto x = fc::kernel_from_name(k.substr(k.find_first_not_of(' ')))) {
      kernels.push_back(*x);
    }
  }
  fc::CompModel m;
  try {
    const std::string blas = fc::blas_name();
    std::fprintf(stderr, "colltune-predict: benchmarking %s on %s%s, %d process%s at once\n",
                 blas.c_str(), host_name().c_str(), a.quick ? " (quick)" : "", a.occupancy,
                 a.occupancy > 1 ? "es" : "");
    const int neighbours = a.occupancy - 1;
    m = fc::benchmark(
        kernels, a.quick, host_name(), blas,
        [neighbours](fc::Kernel k, const std::vector<double>& x) {
          return fc::time_kernel(k, x, 0.05, neighbours);
        },
        [](fc::Kernel k) { std::fprintf(stderr, "  %s\n", fc::kernel_name(k)); });
    m.occupancy = a.occupancy;
    colltune::save_comp_model(m, a.output);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-predict: %s\n", e.what());
    return cli::kBadArgs;
  }
  std::vector<std::vector<fc::Cell>> rows;
  for (const fc::KernelModel& k : m.kernels) {
    rows.push_back({fc::text(fc::kernel_name(k.kernel)), fc::number(k.time.degree),
                    fc::number(static_cast<double>(k.fitted.size())),
                    fc::number(static_cast<double>(k.validated.size())),
                    fc::number(k.validation.mean), fc::number(k.validation.max),
                    fc::number(k.selection.mean)});
  }
  std::fputs(fc::render({"kernel", "degree", "fitted", "validated", "error_mean", "error_max",
                         "selection_error_mean"},
                        rows, format)
                 .c_str(),
             stdout);
  std::fprintf(stderr, "colltune-predict: wrote %s\n", a.output.c_str());
  return 0;
}

struct CompQuery {
  std::string model, kernel, sizes, memory;
};

int cmd_comp(const cli::Parser& p, const CompQuery& a, fc::Format format) {
  const fc::Kernel k = *fc::kernel_from_name(a.kernel);
  const std::vector<double> sizes = sizes_of(a.sizes);
  if (static_cast<int>(sizes.size()) != fc::kernel_vars(k)) {
    return p.fail("--sizes: invalid value '" + a.sizes + "' (valid: " + fc::kernel_sizes(k) +
                  " for " + a.kernel + ")");
  }
  fc::CompModel m;
  if (!load_comp(a.model, k, &m)) return cli::kBadArgs;
  const fc::CompForecast f = fc::comp(m, k, sizes);
  const double available = a.memory.empty() ? fc::memory_available() : std::stod(a.memory);
  if (available > 0 && f.bytes > available) {
    std::fprintf(stderr,
                 "colltune-predict: %s at %s needs %.0f bytes of memory, %.0f available (%s); "
                 "no forecast\n",
                 a.kernel.c_str(), a.sizes.c_str(), f.bytes, available,
                 a.memory.empty() ? "MemAvailable of /proc/meminfo" : "--memory");
    return cli::kBadArgs;
  }
  const fc::CpuNow cpu = fc::cpu_now();  // this host's load at the query
  std::fputs(fc::render({"kernel", "sizes", "seconds", "error_mean", "error_max", "bytes",
                         "extrapolated", "cpu_share_now", "seconds_now"},
                        {{fc::text(a.kernel), fc::text(a.sizes), fc::number(f.seconds),
                          fc::number(f.validation.mean), fc::number(f.validation.max),
                          fc::number(f.bytes), fc::boolean(f.outside), fc::number(cpu.share),
                          fc::number(f.seconds / cpu.share)}},
                        format)
                 .c_str(),
             stdout);
  return 0;
}

struct RoutineQuery {
  std::vector<std::string> models;
  std::string table, routine, sizes, block, grid, members, memory, processes, blocks, links;
  std::string form = "LUN", eager = "0", max_age;
};

// The table's links and the members' identities (default: the ranks it calibrated), the
// computation model and M, N, K; false after printing the one line (exit 2).
struct RoutineInputs {
  fc::LinkGraph links;
  std::vector<int> ranks;
  std::vector<fc::CompModel> comps;  // one per occupancy measured
  double M = 0, N = 0, K = 0, memory = 0, eager = 0;
  fc::Trsm trsm;
};
int routine_inputs(const cli::Parser& p, const RoutineQuery& a, RoutineInputs* in) {
  const std::vector<double> mnk = sizes_of(a.sizes);
  const bool gemm = a.routine == "pdgemm";
  if (mnk.size() != (gemm ? 3u : 2u) || *std::min_element(mnk.begin(), mnk.end()) <= 32) {
    return p.fail("--sizes: invalid value '" + a.sizes +
                  (gemm ? "' (valid: M,N,K each from 33: PDGEMM calls MPI_Bcast at 32 or less, "
                          "not modelled)"
                        : "' (valid: M,N each from 33: PDTRSM keeps the caller's topology at 32 "
                          "or less, not modelled)"));
  }
  in->M = mnk[0], in->N = mnk[1], in->K = gemm ? mnk[2] : 0;
  in->trsm = fc::Trsm{a.form[0], a.form[1], a.form[2]};
  in->eager = eager_of(a.eager);
  in->memory = a.memory.empty() ? 0 : std::stod(a.memory);
  ModelTable t;
  std::vector<fc::LinkMeasurement> fresh;
  if (!load_with_links(a.table, a.links, &t, &fresh)) return cli::kBadArgs;
  in->links = links_of(t, fresh);
  in->ranks = t.calibrated_ranks;
  if (!a.members.empty()) {
    if (const int rc = members_of(p, a.members, a.table, in->links.identities, &in->ranks);
        rc >= 0) {
      return rc;
    }
  }
  for (const std::string& file : a.models) {
    fc::CompModel m;
    if (!load_comp(file, fc::Kernel::kDgemm, &m)) return cli::kBadArgs;
    if (!gemm && !load_comp(file, fc::Kernel::kDtrsm, &m)) return cli::kBadArgs;
    in->comps.push_back(std::move(m));
  }
  return -1;
}

// A routine's row; the age of the oldest link among the grid's p q processes (age_cells).
std::vector<fc::Cell> routine_row(const std::string& routine, fc::Grid g, double R,
                                  const fc::RoutineForecast& f, const RoutineInputs& in,
                                  double max_age, bool* said) {
  const std::size_t n = std::min(in.ranks.size(), static_cast<std::size_t>(g.p) * g.q);
  const std::vector<fc::Cell> ages =
      age_cells(in.links, std::span<const int>(in.ranks).first(n), max_age, said);
  return {fc::text(routine),
          fc::text(std::to_string(g.p) + "x" + std::to_string(g.q)),
          fc::number(R),
          fc::number(f.seconds),
          fc::number(f.compute),
          fc::number(f.bytes),
          fc::boolean(f.extrapolated),
          ages[0],
          ages[1]};
}
const std::vector<std::string> kRoutineColumns = {
    "routine",           "grid",         "block",       "seconds", "compute_s",
    "bytes_per_process", "extrapolated", "links_age_s", "stale"};

int cmd_routine(const cli::Parser& p, const RoutineQuery& a, fc::Format format) {
  const auto x = a.grid.find('x');
  const fc::Grid g{std::stoi(a.grid.substr(0, x)), std::stoi(a.grid.substr(x + 1))};
  RoutineInputs in;
  if (const int rc = routine_inputs(p, a, &in); rc >= 0) return rc;
  if (g.p * g.q > static_cast<int>(in.ranks.size())) {
    return p.fail("--grid: invalid value '" + a.grid + "' (valid: P x Q at most " +
                  std::to_string(in.ranks.size()) + ", the members)");
  }
  const double R = std::stod(a.block);
  if (a.routine == "pdtrsm") {
    if (const std::string why = fc::pdtrsm_unmodelled(g, in.trsm, in.M, in.N, R); !why.empty()) {
      std::fprintf(stderr, "colltune-predict: pdtrsm %s at %s on %s R %s: not modelled: %s\n",
                   a.form.c_str(), a.sizes.c_str(), a.grid.c_str(), a.block.c_str(), why.c_str());
      return cli::kBadArgs;
    }
  }
  const fc::CompModel& comp = *fc::for_occupancy(in.comps, fc::busiest_host(in.ranks, g));
  const fc::RoutineForecast f =
      a.routine == "pdgemm"
          ? fc::pdgemm(in.links, in.ranks, comp, g, in.M, in.N, in.K, R, in.eager)
          : fc::pdtrsm(in.links, in.ranks, comp, g, in.trsm, in.M, in.N, R, in.eager);
  if (in.memory > 0 && f.bytes > in.memory) {
    std::fprintf(stderr,
                 "colltune-predict: %s at %s on %s needs %.0f bytes per process, %.0f "
                 "available (--memory); no forecast\n",
                 a.routine.c_str(), a.sizes.c_str(), a.grid.c_str(), f.bytes, in.memory);
    return cli::kBadArgs;
  }
  bool said = false;
  std::fputs(fc::render(kRoutineColumns,
                        {routine_row(a.routine, g, R, f, in, max_age_of(a.max_age), &said)}, format)
                 .c_str(),
             stdout);
  return 0;
}

int cmd_best(const cli::Parser& p, const RoutineQuery& a, fc::Format format) {
  RoutineInputs in;
  if (const int rc = routine_inputs(p, a, &in); rc >= 0) return rc;
  std::vector<double> Rs;
  for (const std::string& r : cli::split(a.blocks.empty() ? "32,64,128" : a.blocks)) {
    Rs.push_back(std::stod(r));
  }
  const int P = std::stoi(a.processes);
  std::vector<std::vector<fc::Cell>> rows;
  const std::vector<fc::BestCase> cases =
      a.routine == "pdgemm"
          ? fc::best_pdgemm(in.links, in.ranks, in.comps, P, in.M, in.N, in.K, Rs, in.eager)
          : fc::best_pdtrsm(in.links, in.ranks, in.comps, P, in.trsm, in.M, in.N, Rs, in.eager);
  if (cases.empty()) {
    std::fprintf(stderr,
                 "colltune-predict: pdtrsm %s at %s: no grid of at most %d processes is modelled "
                 "(see colltune-predict routine for why); no forecast\n",
                 a.form.c_str(), a.sizes.c_str(), P);
    return cli::kBadArgs;
  }
  bool said = false;
  for (const fc::BestCase& b : cases) {
    if (in.memory > 0 && b.forecast.bytes > in.memory) continue;  // does not fit: not a choice
    rows.push_back(
        routine_row(a.routine, b.grid, b.R, b.forecast, in, max_age_of(a.max_age), &said));
  }
  if (rows.empty()) {
    std::fprintf(stderr,
                 "colltune-predict: no grid of at most %d processes fits %s bytes per "
                 "process; no forecast\n",
                 P, a.memory.c_str());
    return cli::kBadArgs;
  }
  std::fputs(fc::render(kRoutineColumns, rows, format).c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace colltune;
  cli::Parser p("colltune-predict", kUsage, kHelp);
  std::string format_name = "table";  // every command takes --format, before or after it
  const auto add_format = [&](CLI::App* a) {
    a->add_option("--format", format_name)
        ->type_name("F")
        ->check(cli::one_of({"table", "csv", "json"}));
  };
  add_format(&p.app);
  const auto bytes_check = cli::each(cli::integer(0, 1ll << 40, "BYTES"));
  CommQuery comm;
  CLI::App* comm_cmd = p.app.add_subcommand("comm");
  comm_cmd->add_option("--table", comm.tables)
      ->required()
      ->allow_extra_args(false)
      ->type_name("TABLE");
  comm_cmd->add_option("--from", comm.from)->required()->type_name("ID");
  comm_cmd->add_option("--to", comm.to)->required()->type_name("ID");
  comm_cmd->add_option("--bytes", comm.bytes)
      ->required()
      ->type_name("B[,B...]")
      ->check(bytes_check);
  const auto duration_check =
      cli::valid("a duration: N, Ns, Nm, Nh or Nd, N >= 0",
                 [](const std::string& v) { return fc::parse_duration(v).has_value(); });
  comm_cmd->add_option("--max-age", comm.max_age)->type_name("DURATION")->check(duration_check);
  comm_cmd->add_flag("--refresh", comm.refresh);
  comm_cmd->add_option("--launcher", comm.launcher)->type_name("CMD");
  add_format(comm_cmd);
  MeasureQuery measure;
  CLI::App* measure_cmd = p.app.add_subcommand("measure-link");
  measure_cmd->add_option("--from", measure.from)->required()->type_name("ID");
  measure_cmd->add_option("--to", measure.to)->required()->type_name("ID");
  measure_cmd->add_option("--links", measure.links)->required()->type_name("FILE");
  measure_cmd->add_option("--bytes", measure.bytes)
      ->type_name("M")
      ->check(cli::integer(1, 1 << 30, "M"));
  measure_cmd->add_option("--small-bytes", measure.small)
      ->type_name("S")
      ->check(cli::integer(0, 1 << 30, "S (0: none)"));
  CollQuery coll;
  std::vector<std::string> op_names;
  for (int o = 0; o < kNumOps; ++o) op_names.emplace_back(op_name(static_cast<Op>(o)));
  CLI::App* coll_cmd = p.app.add_subcommand("coll");
  coll_cmd->add_option("--table", coll.table)->required()->type_name("TABLE");
  coll_cmd->add_option("--op", coll.op)->required()->type_name("OP")->check(cli::one_of(op_names));
  coll_cmd->add_option("--root", coll.root)
      ->required()
      ->type_name("R")
      ->check(cli::integer(0, 1 << 30, "ROOT"));
  coll_cmd->add_option("--bytes", coll.bytes)
      ->required()
      ->type_name("B[,B...]")
      ->check(cli::each(cli::integer(1, 1ll << 40, "BYTES")));
  coll_cmd->add_option("--members", coll.members)->type_name("ID[,ID...]");
  coll_cmd->add_option("--algorithm", coll.algorithm)->type_name("NAME");
  coll_cmd->add_option("--links", coll.links)->type_name("FILE");
  coll_cmd->add_option("--max-age", coll.max_age)->type_name("DURATION")->check(duration_check);
  comm_cmd->add_option("--links", comm.links)->type_name("FILE");
  add_format(coll_cmd);
  BenchmarkQuery bench;
  CLI::App* bench_cmd = p.app.add_subcommand("benchmark");
  bench_cmd->add_option("--output", bench.output)->required()->type_name("FILE");
  bench_cmd->add_flag("--quick", bench.quick);
  bench_cmd->add_option("--occupancy", bench.occupancy)
      ->type_name("N")
      ->check(cli::integer(1, 4096, "N"));
  bench_cmd->add_option("--kernels", bench.kernels)
      ->type_name("K[,K...]")
      ->check(cli::each(cli::one_of(kernel_names())));
  add_format(bench_cmd);
  CompQuery comp;
  CLI::App* comp_cmd = p.app.add_subcommand("comp");
  comp_cmd->add_option("--model", comp.model)->required()->type_name("FILE");
  comp_cmd->add_option("--kernel", comp.kernel)
      ->required()
      ->type_name("K")
      ->check(cli::one_of(kernel_names()));
  comp_cmd->add_option("--sizes", comp.sizes)
      ->required()
      ->type_name("S[,S...]")
      ->check(cli::each(cli::integer(1, 1 << 30, "SIZES")));
  comp_cmd->add_option("--memory", comp.memory)
      ->type_name("BYTES")
      ->check(cli::number(1, 1e18, "BYTES"));
  add_format(comp_cmd);
  const auto eager_check =
      cli::valid("BYTES from 0, or inf (the MPI's rendezvous threshold)", [](const std::string& v) {
        return v == "inf" || cli::number(0, 1e18)(const_cast<std::string&>(v)).empty();
      });
  RoutineQuery routine;
  CLI::App* routine_cmd = p.app.add_subcommand("routine");
  CLI::App* best_cmd = p.app.add_subcommand("best");
  for (CLI::App* c : {routine_cmd, best_cmd}) {
    c->add_option("--table", routine.table)->required()->type_name("TABLE");
    c->add_option("--model", routine.models)
        ->required()
        ->allow_extra_args(false)
        ->type_name("FILE");
    c->add_option("--routine", routine.routine)
        ->required()
        ->type_name("NAME")
        ->check(cli::one_of({"pdgemm", "pdtrsm"}));
    c->add_option("--sizes", routine.sizes)
        ->required()
        ->type_name("M,N,K|M,N")
        ->check(cli::each(cli::integer(1, 1 << 24, "SIZES")));
    c->add_option("--members", routine.members)->type_name("ID[,ID...]");
    c->add_option("--links", routine.links)->type_name("FILE");
    c->add_option("--max-age", routine.max_age)->type_name("DURATION")->check(duration_check);
    c->add_option("--form", routine.form)
        ->type_name("SUT")
        ->check(cli::valid("SIDE UPLO TRANS letters: L|R, U|L, N|T (e.g. LUN)",
                           [](const std::string& v) {
                             return v.size() == 3 && (v[0] == 'L' || v[0] == 'R') &&
                                    (v[1] == 'U' || v[1] == 'L') && (v[2] == 'N' || v[2] == 'T');
                           }));
    c->add_option("--eager", routine.eager)->type_name("BYTES|inf")->check(eager_check);
    c->add_option("--memory", routine.memory)
        ->type_name("BYTES")
        ->check(cli::number(1, 1e18, "BYTES"));
    add_format(c);
  }
  routine_cmd->add_option("--block", routine.block)
      ->required()
      ->type_name("R")
      ->check(cli::integer(1, 1 << 20, "R"));
  routine_cmd->add_option("--grid", routine.grid)
      ->required()
      ->type_name("PxQ")
      ->check(cli::valid("PxQ with P, Q from 1 to 4096", [](const std::string& v) {
        const auto x = v.find('x');
        if (x == std::string::npos) return false;
        const std::string l = v.substr(0, x), r = v.substr(x + 1);
        return cli::integer(1, 4096)(const_cast<std::string&>(l)).empty() &&
               cli::integer(1, 4096)(const_cast<std::string&>(r)).empty();
      }));
  best_cmd->add_option("--processes", routine.processes)
      ->required()
      ->type_name("P")
      ->check(cli::integer(1, 4096, "P"));
  best_cmd->add_option("--blocks", routine.blocks)
      ->type_name("R[,R...]")
      ->check(cli::each(cli::integer(1, 1 << 20, "R")));
  ReplayQuery replay;
  CLI::App* replay_cmd = p.app.add_subcommand("replay");
  replay_cmd->add_option("dir", replay.dir)->required()->type_name("DIR");
  replay_cmd->add_option("--table", replay.table)->type_name("TABLE");
  replay_cmd->add_option("--to-model", replay.to_model)->type_name("FILE");
  replay_cmd->add_option("--members", replay.members)->type_name("ID[,ID...]");
  replay_cmd->add_option("--links", replay.links)->type_name("FILE");
  replay_cmd->add_option("--eager", replay.eager)->type_name("BYTES|inf")->check(eager_check);
  replay_cmd->add_option("--compute-scale", replay.scale)
      ->type_name("F")
      ->check(cli::number(1e-9, 1e9, "F"));
  replay_cmd->add_option("--shared-cores", replay.cores)
      ->type_name("C")
      ->check(cli::integer(1, 1 << 20, "C"));
  replay_cmd->add_flag("--calls", replay.calls);
  replay_cmd->add_flag("--whole-collectives", replay.whole);
  add_format(replay_cmd);
  AppQuery app;
  CLI::App* app_cmd = add_app_command(&p, &app);
  add_format(app_cmd);
  FitQuery fit;
  CLI::App* fit_cmd = add_fit_command(&p, &fit);
  add_format(fit_cmd);
  p.app.require_subcommand(1, 1);
  if (const int rc = p.parse(argc, argv); rc >= 0) return rc;
  const fc::Format format = *fc::format_from_name(format_name);
  if (comm_cmd->parsed()) {
    if (comm.launcher.empty()) comm.launcher = "mpiexec.mpich -n 2 -hosts {hosts}";
    return cmd_comm(p, comm, format);
  }
  if (measure_cmd->parsed()) return cmd_measure_link(measure);
  if (replay_cmd->parsed()) return cmd_replay(p, replay, format);
  if (app_cmd->parsed()) return cmd_app(p, app, format, load_with_links);
  if (fit_cmd->parsed()) return cmd_fit(p, fit, format);
  if (bench_cmd->parsed()) return cmd_benchmark(bench, format);
  if (comp_cmd->parsed()) return cmd_comp(p, comp, format);
  if (routine_cmd->parsed()) return cmd_routine(p, routine, format);
  if (best_cmd->parsed()) return cmd_best(p, routine, format);
  return cmd_coll(p, coll, format);
}

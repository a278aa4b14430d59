// colltune-bench: MPIBlib-style benchmarks of point-to-point and collective operations.
// Run under mpiexec, srun or the test beds; rank 0 prints a table (every time with its
// confidence interval and repetitions), optionally CSV and JSON, and a progress bar on stderr
// when that is a terminal. Bad arguments: one line naming the option and its valid values, then
// the usage (rank 0), and exit status 2 (on every rank).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "bench/experiments.hpp"
#include "bench/timing.hpp"
#include "cli.hpp"
#include "table/atomic_file.hpp"

using namespace colltune;
using namespace colltune::bench;

namespace {

constexpr const char* kUsage =
    "usage: colltune-bench --op p2p|p2p-all|one-to-two|bcast|scatter|gather [options]\n";
constexpr const char* kHelp =
    "  --algorithms native,linear,...        collective algorithms (default: every one of the op)\n"
    "  --sizes LIST|A:B:STRIDE|A..B*FACTOR   bytes per process (default 0..1048576*4)\n"
    "  --timing root|max|global|window       collective timing method (default max)\n"
    "  --bcast-tasks                         bcast: the per-process task method instead\n"
    "  --min-reps N --max-reps N             repetitions (default 5, 100)\n"
    "  --confidence C --rel-error E          stop when the C interval is within E (0.95, 0.025)\n"
    "  --root R                              root of collectives (default 0)\n"
    "  --no-isolation                        no barrier between repetitions (pipelining)\n"
    "  --sequential                          p2p-all: one pair at a time (default: rounds)\n"
    "  --resync N                            global timing: resynchronize clocks every N\n"
    "  --csv FILE --json FILE                write the results\n";

struct Options {
  std::string op;
  std::string algorithms;  // empty: every algorithm of the op (the registry)
  std::string sizes;
  std::string timing = "max";
  bool bcast_tasks = false;
  Adaptive adaptive;
  int root = 0;
  bool isolate = true;
  bool parallel = true;
  int resync = 0;
  std::string csv, json;
};

struct Row {
  std::string op, algorithm, method;
  long bytes = 0;
  int root = -1, i = -1, j = -1, k = -1;
  Interval stats;
  int reps = 0;
};

bool parse_long(const std::string& s, long* v) {
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(s.c_str(), &end, 10);
  if (errno || end == s.c_str() || *end || x < 0) return false;
  *v = x;
  return true;
}

// "1,2,3", "A:B:STRIDE" (arithmetic) or "A..B*FACTOR" (geometric, A >= 1).
std::optional<std::vector<long>> parse_sizes(const std::string& s) {
  std::vector<long> out;
  long a, b, c;
  const auto colon = s.find(':');
  const auto dots = s.find("..");
  if (colon != std::string::npos) {
    const auto colon2 = s.find(':', colon + 1);
    if (colon2 == std::string::npos || !parse_long(s.substr(0, colon), &a) ||
        !parse_long(s.substr(colon + 1, colon2 - colon - 1), &b) ||
        !parse_long(s.substr(colon2 + 1), &c) || c <= 0 || b < a)
      return std::nullopt;
    for (long x = a; x <= b; x += c) out.push_back(x);
  } else if (dots != std::string::npos) {
    const auto star = s.find('*', dots);
    if (star == std::string::npos || !parse_long(s.substr(0, dots), &a) ||
        !parse_long(s.substr(dots + 2, star - dots - 2), &b) ||
        !parse_long(s.substr(star + 1), &c) || a < 1 || c < 2 || b < a)
      return std::nullopt;
    for (long x = a; x <= b; x *= c) out.push_back(x);
  } else {
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (!parse_long(item, &a)) return std::nullopt;
      out.push_back(a);
    }
  }
  for (long x : out)
    if (x > (1L << 30)) return std::nullopt;
  if (out.empty()) return std::nullopt;
  return out;
}

// -1 when the options are valid for this job; else the exit status (0 after --help, 2 after
// the message, which rank 0 prints).
int parse(int argc, char** argv, int rank, int size, Options* o) {
  namespace cli = colltune::cli;
  const std::vector<std::string> ops = {"p2p",   "p2p-all", "one-to-two",
                                        "bcast", "scatter", "gather"};
  cli::Parser p("colltune-bench", kUsage, kHelp, rank == 0);
  p.app.add_option("--op", o->op)->required()->type_name(cli::join(ops))->check(cli::one_of(ops));
  p.app.add_option("--algorithms", o->algorithms)->type_name("NAME[,NAME...]");
  p.app.add_option("--sizes", o->sizes)
      ->type_name("LIST|A:B:STRIDE|A..B*FACTOR")
      ->check(cli::valid("a list (1,2,3), A:B:STRIDE or A..B*FACTOR of 0..1 GiB",
                         [](const std::string& v) { return parse_sizes(v).has_value(); }));
  p.app.add_option("--timing", o->timing)->type_name("METHOD")->check(cli::one_of(timing_names()));
  p.app.add_flag("--bcast-tasks", o->bcast_tasks);
  for (auto [name, value] : {std::pair{"--min-reps", &o->adaptive.min_reps},
                             {"--max-reps", &o->adaptive.max_reps},
                             {"--root", &o->root},
                             {"--resync", &o->resync}}) {
    p.app.add_option(name, *value)->type_name("N")->check(cli::integer(0, 1000000));
  }
  for (auto [name, value] : {std::pair{"--confidence", &o->adaptive.confidence},
                             {"--rel-error", &o->adaptive.rel_error}}) {
    p.app.add_option(name, *value)
        ->type_name("X")
        ->check(cli::valid("more than 0 and less than 1", [](auto& v) {
          double x = 0;
          return cli::to_number(v, &x) && x > 0 && x < 1;
        }));
  }
  p.app.add_flag("!--no-isolation", o->isolate);
  p.app.add_flag("!--sequential", o->parallel);
  p.app.add_option("--csv", o->csv)->type_name("FILE");
  p.app.add_option("--json", o->json)->type_name("FILE");
  if (const int rc = p.parse(argc, argv); rc >= 0) return rc;
  if (o->adaptive.min_reps < 1 || o->adaptive.max_reps < o->adaptive.min_reps)
    return p.fail("--min-reps/--max-reps: need 1 <= min-reps <= max-reps");
  if (o->root >= size)
    return p.fail("--root: invalid value '" + std::to_string(o->root) + "' (valid: 0 to " +
                  std::to_string(size - 1) + ", the job has " + std::to_string(size) +
                  " processes)");
  if ((o->op == "p2p" || o->op == "p2p-all") && size < 2)
    return p.fail("--op " + o->op + ": needs at least 2 processes");
  if (o->op == "one-to-two" && size < 3)
    return p.fail("--op one-to-two: needs at least 3 processes");
  if (auto collective = op_from_name(o->op)) {
    for (const auto& name : cli::split(o->algorithms))
      if (!find_algorithm(*collective, name))
        return p.fail("--algorithms: unknown algorithm '" + name +
                      "' (valid: " + algorithm_choices(*collective) + ")");
  }
  if (o->bcast_tasks && o->op != "bcast") return p.fail("--bcast-tasks: only with --op bcast");
  return -1;
}

void progress(int done, int total) {
  static const bool tty = isatty(2);
  if (!tty) return;
  const int width = 30, filled = total ? done * width / total : width;
  std::fprintf(stderr, "\r[%.*s%*s] %d/%d", filled, "##############################",
               width - filled, "", done, total);
  if (done == total) std::fputs("\n", stderr);
  std::fflush(stderr);
}

void write_outputs(const Options& o, const std::vector<Row>& rows, int size) {
  std::printf("%-10s %-9s %-7s %10s %5s %5s %14s %12s %6s %8s\n", "op", "algorithm", "timing",
              "bytes", "root", "pair", "time_us", "+-ci_us", "reps", "rel_err");
  for (const Row& r : rows) {
    std::string pair = r.i < 0 ? "-" : std::to_string(r.i) + "-" + std::to_string(r.j);
    if (r.k >= 0) pair += "," + std::to_string(r.k);
    std::printf("%-10s %-9s %-7s %10ld %5s %5s %14.3f %12.3f %6d %8.4f\n", r.op.c_str(),
                r.algorithm.c_str(), r.method.c_str(), r.bytes,
                r.root < 0 ? "-" : std::to_string(r.root).c_str(), pair.c_str(), r.stats.mean * 1e6,
                r.stats.half_width * 1e6, r.reps, r.stats.rel_error);
  }
  auto atomic_write = [](const std::string& path, const std::string& text) {
    try {
      write_file_atomically(path, text);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-bench: %s\n", e.what());
    }
  };
  if (!o.csv.empty()) {
    std::ostringstream s;
    s << "op,algorithm,timing,bytes,root,i,j,k,np,mean_s,ci_half_s,confidence,reps,rel_error\n";
    for (const Row& r : rows) {
      s << r.op << ',' << r.algorithm << ',' << r.method << ',' << r.bytes << ',' << r.root << ','
        << r.i << ',' << r.j << ',' << r.k << ',' << size << ',' << r.stats.mean << ','
        << r.stats.half_width << ',' << o.adaptive.confidence << ',' << r.reps << ','
        << r.stats.rel_error << '\n';
    }
    atomic_write(o.csv, s.str());
  }
  if (!o.json.empty()) {
    std::ostringstream s;
    s << "[\n";
    for (std::size_t n = 0; n < rows.size(); ++n) {
      const Row& r = rows[n];
      s << "  {\"op\": \"" << r.op << "\", \"algorithm\": \"" << r.algorithm << "\", \"timing\": \""
        << r.method << "\", \"bytes\": " << r.bytes << ", \"root\": " << r.root
        << ", \"i\": " << r.i << ", \"j\": " << r.j << ", \"k\": " << r.k << ", \"np\": " << size
        << ", \"mean_s\": " << r.stats.mean << ", \"ci_half_s\": " << r.stats.half_width
        << ", \"confidence\": " << o.adaptive.confidence << ", \"reps\": " << r.reps
        << ", \"rel_error\": " << r.stats.rel_error << "}" << (n + 1 < rows.size() ? "," : "")
        << "\n";
    }
    s << "]\n";
    atomic_write(o.json, s.str());
  }
}

std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, len);
}

// An MPI error that leaves the benchmark nothing to do: named, then the job is aborted.
void must(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  std::fprintf(stderr, "colltune-bench: %s failed: %s\n", what, error_text(rc).c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  must(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  must(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  Options o;
  if (const int rc = parse(argc, argv, rank, size, &o); rc >= 0) {
    MPI_Finalize();  // every rank parsed the same arguments: all stop alike
    return rc;
  }
  const std::vector<long> sizes =
      *parse_sizes(o.sizes.empty() ? "0,1,1024,65536,1048576,4194304" : o.sizes);
  std::vector<std::string> algorithms = colltune::cli::split(o.algorithms);
  if (const auto op = op_from_name(o.op); op && algorithms.empty()) {
    for (const Algorithm* a : algorithms_of(*op)) algorithms.emplace_back(a->name);
  }
  MPI_Comm comm;
  must(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  std::vector<Row> rows;
  int rc = MPI_SUCCESS, failed_cases = 0;
  must(MPI_Barrier(comm), "MPI_Barrier");
  const double started = MPI_Wtime();
  // One timing object for the whole run (root timing measures its confirmation cost once).
  auto timing = make_timing(o.timing, o.resync);
  const int total = static_cast<int>(sizes.size() * (op_from_name(o.op) ? algorithms.size() : 1));
  int done = 0;
  for (long bytes : sizes) {
    if (o.op == "p2p" || o.op == "p2p-all") {
      std::vector<PairResult> pairs;
      int n = static_cast<int>(bytes);
      MPI_Comm sub = comm;
      if (o.op == "p2p") {
        must(MPI_Comm_split(comm, rank < 2 ? 0 : MPI_UNDEFINED, rank, &sub), "MPI_Comm_split");
      }
      if (sub != MPI_COMM_NULL) rc = roundtrips(sub, n, n, o.parallel, o.adaptive, &pairs);
      if (o.op == "p2p" && sub != MPI_COMM_NULL) must(MPI_Comm_free(&sub), "MPI_Comm_free");
      for (const auto& p : pairs)
        rows.push_back({o.op, "-", "roundtrip", bytes, -1, p.i, p.j, -1, p.stats, p.reps});
    } else if (o.op == "one-to-two") {
      std::vector<TripletResult> triplets;
      rc = one_to_two(comm, static_cast<int>(bytes), false, o.adaptive, &triplets);
      for (const auto& t : triplets)
        rows.push_back({o.op, "-", "at-root", bytes, t.i, t.i, t.j, t.k, t.stats, t.reps});
    } else {
      const Op op = *op_from_name(o.op);
      for (const auto& name : algorithms) {
        CollectiveCase c;
        c.op = op;
        c.algorithm = find_algorithm(op, name);
        c.bytes = static_cast<std::uint64_t>(bytes);
        c.root = o.root;
        Series s;
        std::string method = o.timing;
        if (o.bcast_tasks) {
          method = "tasks";
          rc = measure_bcast_tasks(comm, c, o.adaptive, &s);
        } else {
          rc = measure_collective(comm, c, *timing, o.isolate, o.adaptive, &s);
        }
        if (rank == 0) progress(++done, total);
        if (rc != MPI_SUCCESS) {
          // Every rank learns of a failed repetition (the timing methods agree on it): the case
          // is reported, never timed, and the run goes on.
          if (rank == 0) {
            std::fprintf(stderr, "colltune-bench: %s %s %ld B: failed (%s); not timed\n",
                         o.op.c_str(), name.c_str(), bytes, error_text(rc).c_str());
          }
          ++failed_cases;
          rc = MPI_SUCCESS;
          continue;
        }
        rows.push_back({o.op, name, method, bytes, o.root, -1, -1, -1, s.stats, s.reps});
      }
    }
    if (rc != MPI_SUCCESS) break;
  }
  must(MPI_Barrier(comm), "MPI_Barrier");
  const double elapsed = MPI_Wtime() - started;
  if (rank == 0 && rc == MPI_SUCCESS) {
    write_outputs(o, rows, size);
    // The benchmark's own cost (simulated time under SMPI): compare methods by it.
    std::printf("# benchmark time: %.6f s (%s, np %d)\n", elapsed, o.op.c_str(), size);
  }
  if (rc != MPI_SUCCESS && rank == 0) {
    std::fprintf(stderr, "colltune-bench: %s\n", error_text(rc).c_str());
  }
  must(MPI_Comm_free(&comm), "MPI_Comm_free");
  MPI_Finalize();
  return rc == MPI_SUCCESS && failed_cases == 0 ? 0 : 1;
}

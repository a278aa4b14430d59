// colltune-jitter: OS-jitter traces and trace-driven simulation (docs/jitter.md).
//   colltune-jitter collect  [--duration S] [--cores LIST] [--threshold N|Nns|Nx] [--output PREFIX]
//   colltune-jitter summary  TRACE...
//   colltune-jitter import   --hz HZ --input NOISE --output TRACE   (LogGOPSim noise -> trace)
//   colltune-jitter export   --input TRACE --output NOISE            (trace -> LogGOPSim noise)
//   colltune-jitter latency  [--output FILE]                         (under mpiexec -n 2)
//   colltune-jitter simulate --trace FILE... [options]               (see --help)
// Bad arguments and bad input: one line naming what is wrong (arguments: then the usage), exit 2.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/shapes/shapes.hpp"
#include "bench/experiments.hpp"
#include "cli.hpp"
#include "identity.hpp"
#include "jitter/collect.hpp"
#include "jitter/simulate.hpp"
#include "jitter/trace.hpp"
#include "model/platform_model.hpp"
#include "table/atomic_file.hpp"
#include "table/model_table.hpp"
#include "table/yaml_util.hpp"

using namespace colltune;
using namespace colltune::jitter;
namespace cli = colltune::cli;

namespace {

constexpr const char* kUsage =
    "usage: colltune-jitter collect|summary|import|export|latency|simulate [options]\n";
constexpr const char* kHelp =
    "collect   --duration S (default 10) --cores 0,1 (default all) --threshold N (cycles),\n"
    "          Nns or Nx (times the smallest delta; default 10x) --output PREFIX (default\n"
    "          jitter: PREFIX-coreK.trace)\n"
    "summary   TRACE...\n"
    "import    --hz HZ --input NOISE --output TRACE  (LogGOPSim noise: <start>\\t<duration> ns)\n"
    "export    --input TRACE --output NOISE\n"
    "latency   [--output FILE], under mpiexec -n 2 (same node: shared memory; two nodes: the\n"
    "          network): message costs measured with colltune's benchmarking library\n"
    "simulate  --trace FILE (repeatable: one curve per trace)\n"
    "          --tasks 1:1048576 (powers of two) or a list 1,64,4096 (default 1:1048576)\n"
    "          --quantum-us Q (work per phase, default 1000) --phases N (default 100)\n"
    "          --mode unsync,sync,cosched (default unsync; one curve per mode)\n"
    "          --high-us H --low-us L (cosched windows, default 9500 and 500)\n"
    "          --coverage F (share of the trace each task covers, (0, 1], default 1)\n"
    "          --tree kary:K (default kary:2) | binomial | linear (colltune's schedules)\n"
    "          --sync barrier (default) | bcast | scatter | gather | allreduce, along the tree\n"
    "          --bytes B (per process, for the collectives) --byte-ns X (wire, per byte)\n"
    "          --cpu-byte-ns Y (sender's and receiver's CPU, per byte)\n"
    "          --reps R (default 5) --seed S\n"
    "          --model TABLE (message costs from a colltune model table: o and C - o, t and\n"
    "          1/beta per byte)\n"
    "          --send-ns --recv-ns --wire-ns (between nodes; default 1000, 1000, 1000)\n"
    "          --shm-send-ns --shm-recv-ns --shm-wire-ns (within a node; default 300, 300, 0)\n"
    "          --latency FILE (written by 'latency': replaces the costs of its kind)\n"
    "          --tasks-per-node K (default 1)\n"
    "          --csv FILE --plot FILE.png (gnuplot)\n"
    "Docs: docs/jitter.md.\n";

// A number of a file, from lo to hi; else std::invalid_argument naming what.
double num(const std::string& what, const std::string& v, double lo, double hi) {
  double x = 0;
  if (!parse_number(v, &x) || x < lo || x > hi) {
    throw std::invalid_argument(what + ": invalid value '" + v + "' (valid: numbers from " +
                                cli::text(lo) + " to " + cli::text(hi) + ")");
  }
  return x;
}

// --threshold N (cycles), Nns or Nx (times t_min) into o; false if t is none of them.
bool parse_threshold(const std::string& t, CollectOptions* o) {
  double x = 0;
  if (t.size() > 2 && t.substr(t.size() - 2) == "ns") {
    if (!cli::to_number(t.substr(0, t.size() - 2), &x) || x < 1 || x > 1e9) return false;
    o->threshold_ns = x;
  } else if (!t.empty() && t.back() == 'x') {
    if (!cli::to_number(t.substr(0, t.size() - 1), &x) || x < 1.01 || x > 1e6) return false;
    o->threshold_factor = x;
  } else {
    if (!cli::to_number(t, &x) || x < 1 || x > 1e15) return false;
    o->threshold_cycles = static_cast<std::uint64_t>(x);
  }
  return true;
}

// --tasks LO:HI (powers of two from LO) or a list; nullopt if invalid.
std::optional<std::vector<int>> parse_tasks(const std::string& ts) {
  constexpr double kMax = 1 << 26;
  std::vector<int> tasks;
  double lo = 0, hi = 0;
  if (ts.find(':') != std::string::npos) {
    const auto r = cli::split(ts, ':');
    if (r.size() != 2 || !cli::to_number(r[0], &lo) || !cli::to_number(r[1], &hi) || lo < 1 ||
        hi < lo || hi > kMax) {
      return std::nullopt;
    }
    for (double n = lo; n <= hi; n *= 2) tasks.push_back(static_cast<int>(n));
  } else {
    for (const auto& x : cli::split(ts, ',')) {
      if (!cli::to_number(x, &lo) || lo < 1 || lo > kMax) return std::nullopt;
      tasks.push_back(static_cast<int>(lo));
    }
  }
  if (tasks.empty()) return std::nullopt;
  return tasks;
}

// --tree kary:K, binomial or linear; nullopt if invalid.
std::optional<std::function<Tree(int)>> parse_tree(const std::string& tree) {
  double k = 0;
  if (tree.rfind("kary:", 0) == 0 && cli::to_number(tree.substr(5), &k) && k >= 1 && k <= 1024) {
    return [k = static_cast<int>(k)](int n) { return kary_tree(n, k); };
  }
  if (tree == "binomial") return [](int n) { return shape_tree(kShape_binomial, n); };
  if (tree == "linear") return [](int n) { return shape_tree(kShape_linear, n); };
  return std::nullopt;
}

struct CollectArgs {
  double duration = 10;
  std::string cores, threshold, output = "jitter";
};

struct SimulateArgs {
  std::vector<std::string> traces;
  std::string tasks = "1:1048576", mode = "unsync", tree = "kary:2", sync = "barrier";
  double quantum_us = 1000, phases = 100, reps = 5, seed = 1, coverage = 1, high_us = 9500,
         low_us = 500, tasks_per_node = 1, bytes = 0, byte_ns = 0, cpu_byte_ns = 0;
  double send_ns = 1000, recv_ns = 1000, wire_ns = 1000;
  double shm_send_ns = 300, shm_recv_ns = 300, shm_wire_ns = 0;
  std::string model, latency, csv, plot;
};

int cmd_collect(const CollectArgs& args) {
  CollectOptions o;
  o.duration_s = args.duration;
  for (const auto& c : cli::split(args.cores, ',')) o.cores.push_back(std::stoi(c));
  if (!args.threshold.empty()) parse_threshold(args.threshold, &o);
  const std::string& prefix = args.output;
  std::vector<CoreTrace> traces;
  std::string why;
  std::printf("collecting %g s on %s\n", o.duration_s,
              o.cores.empty() ? "every core" : args.cores.c_str());
  if (!collect(o, &traces, &why)) {
    std::fprintf(stderr, "colltune-jitter collect: %s\n", why.c_str());
    return 2;
  }
  for (const CoreTrace& ct : traces) {
    const std::string path = prefix + "-core" + std::to_string(ct.trace.header.core) + ".trace";
    write_trace(path, ct.trace);
    std::printf("wrote %s (TSC %.6g Hz, t_min %llu cycles%s)\n%s", path.c_str(), ct.trace.header.hz,
                static_cast<unsigned long long>(ct.t_min),
                ct.overflow ? ", STOPPED EARLY: more events than reserved" : "",
                summarize(ct.trace).c_str());
  }
  return 0;
}

// Message costs from a model table: a message from i to j costs o_i + o_j of CPU and
// (C_i - o_i) + (C_j - o_j) between (the cluster's averages).
MessageCost from_model(const std::string& path, double hz) {
  const ModelTable t = load_model_table(path);
  if (!t.platform_model) throw InputError(path, 0, "model", "has no calibrated model");
  const model::LmoParams avg = model::with_average(t.platform_model->params);
  const int a = avg.size() - 1;
  const double c = avg.C[a].value, o = avg.busy(a);
  const double tb = avg.t[a].value, ib = avg.ib(a, a);
  return {o * hz, o * hz, 2 * (c - o) * hz, tb * hz, tb * hz, ib * hz};
}

// Message costs between the two processes of MPI_COMM_WORLD (docs/jitter.md): the empty
// roundtrip's half is one message; as in jitSim, half of it is the sender's and half the
// receiver's CPU (the MPI stack), nothing between on one node; the 64 KiB roundtrip's extra
// time per byte is the wire's per-byte cost. Rank 0 prints them and writes FILE.
int cmd_latency(int argc, char** argv, const std::string& output) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "colltune-jitter latency: run it on 2 processes (mpiexec -n 2), not %d\n", size);
    }
    MPI_Finalize();
    return 2;
  }
  std::vector<std::string> ids;
  bench::Adaptive a;
  a.min_reps = 20;
  a.max_reps = 1000;
  a.rel_error = 0.01;
  std::vector<bench::PairResult> empty, full;
  constexpr int kBytes = 65536;
  int rc = gather_identities(MPI_COMM_WORLD, std::nullopt, &ids);
  if (rc == MPI_SUCCESS) rc = bench::roundtrips(MPI_COMM_WORLD, 0, 0, false, a, &empty);
  if (rc == MPI_SUCCESS) rc = bench::roundtrips(MPI_COMM_WORLD, kBytes, 0, false, a, &full);
  int out = 0;
  if (rank == 0) {
    if (rc != MPI_SUCCESS || empty.empty() || full.empty()) {
      std::fprintf(stderr, "colltune-jitter latency: the roundtrips failed\n");
      out = 2;
    } else {
      const std::string host0 = ids[0].substr(0, ids[0].find('/'));
      const bool shm = host0 == ids[1].substr(0, ids[1].find('/'));
      const double one_way = empty[0].stats.mean / 2 * 1e9;
      const double per_byte =
          std::max(0.0, (full[0].stats.mean - empty[0].stats.mean) / kBytes * 1e9);
      std::ostringstream f;
      f << "kind " << (shm ? "shm" : "net") << "\nsend_ns " << one_way / 2 << "\nrecv_ns "
        << one_way / 2 << "\nwire_ns 0\nbyte_ns " << per_byte << "\n";
      std::printf("%s (%s and %s): one message %.1f ns, %.4f ns per byte\n%s",
                  shm ? "shared memory" : "network", ids[0].c_str(), ids[1].c_str(), one_way,
                  per_byte, f.str().c_str());
      if (!output.empty()) write_file_atomically(output, f.str());
    }
  }
  MPI_Bcast(&out, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return out;
}

// Reads a file written by 'latency' into the costs of its kind.
void read_latency(const std::string& path, double hz, Latencies* lat) {
  std::istringstream in(read_text(path));
  std::map<std::string, std::string> kv;
  std::string k, v;
  while (in >> k >> v) kv[k] = v;
  for (const char* key : {"kind", "send_ns", "recv_ns", "wire_ns", "byte_ns"}) {
    if (!kv.count(key))
      throw InputError(path, 0, key, "missing (written by 'colltune-jitter latency')");
  }
  if (kv["kind"] != "shm" && kv["kind"] != "net") {
    throw InputError(path, 0, "kind", "'" + kv["kind"] + "' (valid: shm, net)");
  }
  MessageCost& m = kv["kind"] == "shm" ? lat->shm : lat->net;
  m.send = num(path + ": send_ns", kv["send_ns"], 0, 1e12) * 1e-9 * hz;
  m.recv = num(path + ": recv_ns", kv["recv_ns"], 0, 1e12) * 1e-9 * hz;
  m.wire = num(path + ": wire_ns", kv["wire_ns"], 0, 1e12) * 1e-9 * hz;
  m.wire_per_byte = num(path + ": byte_ns", kv["byte_ns"], 0, 1e9) * 1e-9 * hz;
}

int cmd_simulate(const SimulateArgs& a) {
  const std::vector<int> tasks = *parse_tasks(a.tasks);
  const auto phases = static_cast<int>(a.phases);
  const auto reps = static_cast<int>(a.reps);
  const auto seed = static_cast<std::uint64_t>(a.seed);
  const std::vector<std::string> mode_names = cli::split(a.mode, ',');
  std::vector<StartMode> modes;
  for (const auto& m : mode_names) {
    modes.push_back(m == "sync"      ? StartMode::kSync
                    : m == "cosched" ? StartMode::kCosched
                                     : StartMode::kUnsync);
  }
  const std::map<std::string, Sync> syncs = {{"barrier", Sync::kBarrier},
                                             {"bcast", Sync::kBcast},
                                             {"scatter", Sync::kScatter},
                                             {"gather", Sync::kGather},
                                             {"allreduce", Sync::kAllreduce}};
  const Sync sync = syncs.at(a.sync);
  const std::function<Tree(int)> make_tree = *parse_tree(a.tree);
  std::FILE* csv = nullptr;
  if (!a.csv.empty()) {
    csv = std::fopen(a.csv.c_str(), "w");
    if (!csv) throw std::invalid_argument("--csv " + a.csv + ": cannot be written");
    std::fprintf(csv, "label,tasks,slowdown,ci95,reps,phases,seconds,task_phases_per_second\n");
  }
  std::vector<std::string> labels;
  std::printf("%-28s %9s %10s %9s %9s %14s\n", "curve", "tasks", "slowdown", "ci95", "seconds",
              "task-phases/s");
  for (const std::string& path : a.traces) {
    const Trace trace = read_trace(path);
    const double hz = trace.header.hz;
    SimOptions o;
    o.quantum = a.quantum_us * 1e-6 * hz;
    o.phases = phases;
    o.coverage = a.coverage;
    o.latency.tasks_per_node = static_cast<int>(a.tasks_per_node);
    o.sync = sync;
    o.bytes = a.bytes;
    // Costs from the options (ns), then a model table's, then a measured file's.
    auto costs = [&](double send, double recv, double wire) {
      const double byte = a.cpu_byte_ns * 1e-9 * hz;
      return MessageCost{send * 1e-9 * hz,     recv * 1e-9 * hz, wire * 1e-9 * hz, byte, byte,
                         a.byte_ns * 1e-9 * hz};
    };
    o.latency.net = costs(a.send_ns, a.recv_ns, a.wire_ns);
    o.latency.shm = costs(a.shm_send_ns, a.shm_recv_ns, a.shm_wire_ns);
    if (!a.model.empty()) o.latency.net = from_model(a.model, hz);
    if (!a.latency.empty()) read_latency(a.latency, hz, &o.latency);
    const Timeline plain(trace);
    std::vector<double> starts;
    const Trace cos = coschedule(trace, static_cast<std::uint64_t>(a.high_us * 1e-6 * hz),
                                 static_cast<std::uint64_t>(a.low_us * 1e-6 * hz), &starts);
    const Timeline cosched(cos);
    for (std::size_t mi = 0; mi < modes.size(); ++mi) {
      o.mode = modes[mi];
      o.window_starts = modes[mi] == StartMode::kCosched ? starts : std::vector<double>{};
      const Timeline& tl = modes[mi] == StartMode::kCosched ? cosched : plain;
      std::string label = path.substr(path.find_last_of('/') + 1) + " " + mode_names[mi];
      labels.push_back(label);
      for (int n : tasks) {
        const Point pt = slowdown(tl, make_tree, n, o, reps, seed + static_cast<std::uint64_t>(n));
        std::printf("%-28s %9d %10.4f %9.4f %9.3f %14.4g\n", label.c_str(), n, pt.mean, pt.ci95,
                    pt.seconds, pt.task_phases_per_second());
        std::fflush(stdout);
        if (csv) {
          std::fprintf(csv, "\"%s\",%d,%.6f,%.6f,%d,%d,%.4f,%.6g\n", label.c_str(), n, pt.mean,
                       pt.ci95, reps, phases, pt.seconds, pt.task_phases_per_second());
        }
      }
    }
  }
  if (csv) std::fclose(csv);
  if (!a.plot.empty()) {
    const std::string png = a.plot, gp = png + ".gp", data = a.csv;
    std::ostringstream s;
    s << "set terminal pngcairo size 900,600\nset output '" << png << "'\n"
      << "set datafile separator ','\nset logscale x 2\nset format x '%.0f'\nset key top left\n"
      << "set xlabel 'tasks'\nset ylabel 'slowdown (time with jitter / without)'\n"
      << "set title 'colltune-jitter: " << a.quantum_us << " us phases, " << phases << " phases, "
      << a.tree << " tree, " << a.sync << "'\nplot ";
    for (std::size_t i = 0; i < labels.size(); ++i) {
      s << (i ? ", " : "") << "'" << data << "' using 2:(stringcolumn(1) eq '" << labels[i]
        << "' ? $3 : 1/0):4 with yerrorlines title '" << labels[i] << "'";
    }
    s << "\n";
    write_file_atomically(gp, s.str());
    const std::string cmd = "command -v gnuplot >/dev/null 2>&1 && gnuplot '" + gp + "'";
    if (std::system(cmd.c_str()) == 0) {
      std::printf("wrote %s (gnuplot: %s)\n", png.c_str(), gp.c_str());
    } else {
      std::printf("wrote %s; no PNG (gnuplot is missing or failed)\n", gp.c_str());
    }
  }
  return 0;
}

// The subcommands' options, then the command.
int run(int argc, char** argv) {
  cli::Parser p("colltune-jitter", kUsage, kHelp);
  CLI::App& app = p.app;
  CollectArgs c;
  CLI::App* collect_cmd = app.add_subcommand("collect");
  collect_cmd->add_option("--duration", c.duration)
      ->type_name("S")
      ->check(cli::number(0.001, 86400));
  collect_cmd->add_option("--cores", c.cores)
      ->type_name("LIST")
      ->check(cli::each(cli::integer(0, 1000000)));
  collect_cmd->add_option("--threshold", c.threshold)
      ->type_name("N|Nns|Nx")
      ->check(cli::valid("N cycles (1 to 1e15), Nns (1 to 1e9) or Nx (1.01 to 1e6)",
                         [](const std::string& v) {
                           CollectOptions o;
                           return parse_threshold(v, &o);
                         }));
  collect_cmd->add_option("--output", c.output)->type_name("PREFIX");
  std::vector<std::string> summary_traces;
  CLI::App* summary_cmd = app.add_subcommand("summary");
  summary_cmd->add_option("TRACE", summary_traces)->required();
  double hz = 0;
  std::string input, output;
  CLI::App* import_cmd = app.add_subcommand("import");
  import_cmd->add_option("--hz", hz)->required()->type_name("HZ")->check(cli::number(1, 1e12));
  import_cmd->add_option("--input", input)->required()->type_name("NOISE");
  import_cmd->add_option("--output", output)->required()->type_name("TRACE");
  CLI::App* export_cmd = app.add_subcommand("export");
  export_cmd->add_option("--input", input)->required()->type_name("TRACE");
  export_cmd->add_option("--output", output)->required()->type_name("NOISE");
  CLI::App* latency_cmd = app.add_subcommand("latency");
  latency_cmd->add_option("--output", output)->type_name("FILE");
  SimulateArgs s;
  CLI::App* sim = app.add_subcommand("simulate");
  sim->add_option("--trace", s.traces)->required()->allow_extra_args(false)->type_name("FILE");
  sim->add_option("--tasks", s.tasks)
      ->type_name("LO:HI|LIST")
      ->check(cli::valid("LO:HI or a list, from 1 to 67108864",
                         [](const std::string& v) { return parse_tasks(v).has_value(); }));
  const auto number = [&](const char* name, double* v, double lo, double hi) {
    sim->add_option(name, *v)->type_name("NUMBER")->check(cli::number(lo, hi));
  };
  number("--quantum-us", &s.quantum_us, 0.001, 1e9);
  number("--phases", &s.phases, 1, 1e7);
  sim->add_option("--mode", s.mode)
      ->type_name("MODE[,MODE...]")
      ->check(cli::each(cli::one_of({"unsync", "sync", "cosched"})));
  number("--high-us", &s.high_us, 0.001, 1e9);
  number("--low-us", &s.low_us, 0, 1e9);
  number("--coverage", &s.coverage, 1e-6, 1);
  sim->add_option("--tree", s.tree)
      ->type_name("TREE")
      ->check(cli::valid("kary:K with K from 1 to 1024, binomial, linear",
                         [](const std::string& v) { return parse_tree(v).has_value(); }));
  number("--reps", &s.reps, 1, 1e6);
  number("--seed", &s.seed, 0, 1e18);
  sim->add_option("--model", s.model)->type_name("TABLE");
  number("--send-ns", &s.send_ns, 0, 1e12);
  number("--recv-ns", &s.recv_ns, 0, 1e12);
  number("--wire-ns", &s.wire_ns, 0, 1e12);
  number("--shm-send-ns", &s.shm_send_ns, 0, 1e12);
  number("--shm-recv-ns", &s.shm_recv_ns, 0, 1e12);
  number("--shm-wire-ns", &s.shm_wire_ns, 0, 1e12);
  number("--tasks-per-node", &s.tasks_per_node, 1, 1e6);
  sim->add_option("--latency", s.latency)->type_name("FILE");
  sim->add_option("--sync", s.sync)
      ->type_name("SYNC")
      ->check(cli::one_of({"barrier", "bcast", "scatter", "gather", "allreduce"}));
  number("--bytes", &s.bytes, 0, 1e12);
  number("--byte-ns", &s.byte_ns, 0, 1e9);
  number("--cpu-byte-ns", &s.cpu_byte_ns, 0, 1e9);
  CLI::Option* csv = sim->add_option("--csv", s.csv)->type_name("FILE");
  sim->add_option("--plot", s.plot)->type_name("FILE.png")->needs(csv);
  app.require_subcommand(0, 1);
  if (const int rc = p.parse(argc, argv); rc >= 0) return rc;
  if (collect_cmd->parsed()) return cmd_collect(c);
  if (summary_cmd->parsed()) {
    for (const auto& f : summary_traces) {
      std::printf("%s: %s", f.c_str(), summarize(read_trace(f)).c_str());
    }
    return 0;
  }
  if (import_cmd->parsed()) {
    write_trace(output, from_loggopsim(read_text(input), input, hz));
    return 0;
  }
  if (export_cmd->parsed()) {
    write_file_atomically(output, to_loggopsim(read_trace(input)));
    return 0;
  }
  if (latency_cmd->parsed()) return cmd_latency(argc, argv, output);
  if (sim->parsed()) return cmd_simulate(s);
  return p.fail("missing command (valid: " + cli::Parser::commands(app) +
                "); --help for the options");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-jitter: %s\n", e.what());
  }
  return 2;
}

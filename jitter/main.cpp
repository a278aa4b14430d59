// colltune-jitter: OS-jitter traces and trace-driven simulation (docs/jitter.md).
//   colltune-jitter collect  [--duration S] [--cores LIST] [--threshold N|Nns|Nx] [--output PREFIX]
//   colltune-jitter summary  TRACE...
//   colltune-jitter import   --hz HZ --input NOISE --output TRACE   (LogGOPSim noise -> trace)
//   colltune-jitter export   --input TRACE --output NOISE            (trace -> LogGOPSim noise)
//   colltune-jitter simulate --trace FILE... [options]               (see --help)
// Bad arguments and bad input: one line naming what is wrong, exit 2.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/shapes/shapes.hpp"
#include "atomic_file.hpp"
#include "bench/experiments.hpp"
#include "collect.hpp"
#include "identity.hpp"
#include "model/platform_model.hpp"
#include "model_table.hpp"
#include "simulate.hpp"
#include "trace.hpp"
#include "yaml_util.hpp"

using namespace colltune;
using namespace colltune::jitter;

namespace {

constexpr const char* kHelp =
    "usage: colltune-jitter collect|summary|import|export|simulate [options]\n"
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

struct BadArgs {
  std::string why;
};

double num(const std::string& opt, const std::string& v, double lo, double hi) {
  double x = 0;
  if (!parse_number(v, &x) || x < lo || x > hi) {
    std::ostringstream s;
    s << opt << ": '" << v << "' is not a number from " << lo << " to " << hi;
    throw BadArgs{s.str()};
  }
  return x;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string x;
  while (std::getline(in, x, sep)) out.push_back(x);
  return out;
}

// Options as name -> values (repeatable), and the positional arguments.
struct Parsed {
  std::map<std::string, std::vector<std::string>> opt;
  std::vector<std::string> pos;
  std::string get(const std::string& k, const std::string& d) const {
    auto it = opt.find(k);
    return it == opt.end() ? d : it->second.back();
  }
  bool has(const std::string& k) const { return opt.count(k) > 0; }
};

Parsed parse(int argc, char** argv, const std::vector<std::string>& valid) {
  Parsed p;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      p.pos.push_back(a);
      continue;
    }
    const std::string k = a.substr(2);
    bool ok = false;
    for (const auto& v : valid) ok = ok || v == k;
    if (!ok) {
      std::string list;
      for (const auto& v : valid) list += (list.empty() ? "--" : ", --") + v;
      throw BadArgs{"unknown option " + a + " (valid: " + list + ")"};
    }
    if (i + 1 >= argc || std::string(argv[i + 1]).empty()) throw BadArgs{a + " needs a value"};
    p.opt[k].push_back(argv[++i]);
  }
  return p;
}

int cmd_collect(const Parsed& p) {
  CollectOptions o;
  o.duration_s = num("--duration", p.get("duration", "10"), 0.001, 86400);
  if (p.has("cores")) {
    for (const auto& c : split(p.get("cores", ""), ',')) {
      o.cores.push_back(static_cast<int>(num("--cores", c, 0, 1e6)));
    }
  }
  if (p.has("threshold")) {
    const std::string t = p.get("threshold", "");
    if (t.size() > 2 && t.substr(t.size() - 2) == "ns") {
      o.threshold_ns = num("--threshold", t.substr(0, t.size() - 2), 1, 1e9);
    } else if (!t.empty() && t.back() == 'x') {
      o.threshold_factor = num("--threshold", t.substr(0, t.size() - 1), 1.01, 1e6);
    } else {
      o.threshold_cycles = static_cast<std::uint64_t>(num("--threshold", t, 1, 1e15));
    }
  }
  const std::string prefix = p.get("output", "jitter");
  std::vector<CoreTrace> traces;
  std::string why;
  std::printf("collecting %g s on %s\n", o.duration_s,
              o.cores.empty() ? "every core" : p.get("cores", "").c_str());
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
int cmd_latency(int argc, char** argv, const Parsed& p) {
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
      if (p.has("output")) write_file_atomically(p.get("output", ""), f.str());
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

int cmd_simulate(const Parsed& p) {
  if (!p.has("trace")) throw BadArgs{"simulate needs --trace FILE"};
  std::vector<int> tasks;
  const std::string ts = p.get("tasks", "1:1048576");
  if (ts.find(':') != std::string::npos) {
    const auto r = split(ts, ':');
    if (r.size() != 2) throw BadArgs{"--tasks: expected LO:HI or a list"};
    const double lo = num("--tasks", r[0], 1, 1 << 26), hi = num("--tasks", r[1], lo, 1 << 26);
    for (double n = lo; n <= hi; n *= 2) tasks.push_back(static_cast<int>(n));
  } else {
    for (const auto& x : split(ts, ','))
      tasks.push_back(static_cast<int>(num("--tasks", x, 1, 1 << 26)));
  }
  const double quantum_us = num("--quantum-us", p.get("quantum-us", "1000"), 0.001, 1e9);
  const int phases = static_cast<int>(num("--phases", p.get("phases", "100"), 1, 1e7));
  const int reps = static_cast<int>(num("--reps", p.get("reps", "5"), 1, 1e6));
  const auto seed = static_cast<std::uint64_t>(num("--seed", p.get("seed", "1"), 0, 1e18));
  const double coverage = num("--coverage", p.get("coverage", "1"), 1e-6, 1);
  const double high_us = num("--high-us", p.get("high-us", "9500"), 0.001, 1e9);
  const double low_us = num("--low-us", p.get("low-us", "500"), 0, 1e9);
  const int per_node =
      static_cast<int>(num("--tasks-per-node", p.get("tasks-per-node", "1"), 1, 1e6));
  std::vector<StartMode> modes;
  std::vector<std::string> mode_names = split(p.get("mode", "unsync"), ',');
  for (const auto& m : mode_names) {
    if (m == "unsync")
      modes.push_back(StartMode::kUnsync);
    else if (m == "sync")
      modes.push_back(StartMode::kSync);
    else if (m == "cosched")
      modes.push_back(StartMode::kCosched);
    else
      throw BadArgs{"--mode: unknown '" + m + "' (valid: unsync, sync, cosched)"};
  }
  Sync sync = Sync::kBarrier;
  const std::string sync_name = p.get("sync", "barrier");
  if (sync_name == "barrier")
    sync = Sync::kBarrier;
  else if (sync_name == "bcast")
    sync = Sync::kBcast;
  else if (sync_name == "scatter")
    sync = Sync::kScatter;
  else if (sync_name == "gather")
    sync = Sync::kGather;
  else if (sync_name == "allreduce")
    sync = Sync::kAllreduce;
  else {
    throw BadArgs{"--sync: unknown '" + sync_name +
                  "' (valid: barrier, bcast, scatter, gather, allreduce)"};
  }
  const double bytes = num("--bytes", p.get("bytes", "0"), 0, 1e12);
  const double byte_ns = num("--byte-ns", p.get("byte-ns", "0"), 0, 1e9);
  const double cpu_byte_ns = num("--cpu-byte-ns", p.get("cpu-byte-ns", "0"), 0, 1e9);
  std::function<Tree(int)> make_tree;
  const std::string tree = p.get("tree", "kary:2");
  if (tree.rfind("kary:", 0) == 0) {
    const int k = static_cast<int>(num("--tree", tree.substr(5), 1, 1024));
    make_tree = [k](int n) { return kary_tree(n, k); };
  } else if (tree == "binomial") {
    make_tree = [](int n) { return shape_tree(kShape_binomial, n); };
  } else if (tree == "linear") {
    make_tree = [](int n) { return shape_tree(kShape_linear, n); };
  } else {
    throw BadArgs{"--tree: unknown '" + tree + "' (valid: kary:K, binomial, linear)"};
  }
  std::FILE* csv = nullptr;
  if (p.has("csv")) {
    csv = std::fopen(p.get("csv", "").c_str(), "w");
    if (!csv) throw BadArgs{"--csv " + p.get("csv", "") + ": cannot be written"};
    std::fprintf(csv, "label,tasks,slowdown,ci95,reps,phases,seconds,task_phases_per_second\n");
  }
  std::vector<std::string> labels;
  std::printf("%-28s %9s %10s %9s %9s %14s\n", "curve", "tasks", "slowdown", "ci95", "seconds",
              "task-phases/s");
  for (const std::string& path : p.opt.at("trace")) {
    const Trace trace = read_trace(path);
    const double hz = trace.header.hz;
    SimOptions o;
    o.quantum = quantum_us * 1e-6 * hz;
    o.phases = phases;
    o.coverage = coverage;
    o.latency.tasks_per_node = per_node;
    o.sync = sync;
    o.bytes = bytes;
    // Costs from the options (ns), then a model table's, then a measured file's.
    auto costs = [&](const std::string& pre, const char* send, const char* recv, const char* wire) {
      auto ns = [&](const std::string& k, const char* d) {
        return num("--" + pre + k, p.get(pre + k, d), 0, 1e12) * 1e-9 * hz;
      };
      return MessageCost{ns("send-ns", send),     ns("recv-ns", recv),     ns("wire-ns", wire),
                         cpu_byte_ns * 1e-9 * hz, cpu_byte_ns * 1e-9 * hz, byte_ns * 1e-9 * hz};
    };
    o.latency.net = costs("", "1000", "1000", "1000");
    o.latency.shm = costs("shm-", "300", "300", "0");
    if (p.has("model")) o.latency.net = from_model(p.get("model", ""), hz);
    if (p.has("latency")) read_latency(p.get("latency", ""), hz, &o.latency);
    const Timeline plain(trace);
    std::vector<double> starts;
    const Trace cos = coschedule(trace, static_cast<std::uint64_t>(high_us * 1e-6 * hz),
                                 static_cast<std::uint64_t>(low_us * 1e-6 * hz), &starts);
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
  if (p.has("plot")) {
    if (!p.has("csv")) throw BadArgs{"--plot needs --csv (the data it plots)"};
    const std::string png = p.get("plot", ""), gp = png + ".gp", data = p.get("csv", "");
    std::ostringstream s;
    s << "set terminal pngcairo size 900,600\nset output '" << png << "'\n"
      << "set datafile separator ','\nset logscale x 2\nset format x '%.0f'\nset key top left\n"
      << "set xlabel 'tasks'\nset ylabel 'slowdown (time with jitter / without)'\n"
      << "set title 'colltune-jitter: " << quantum_us << " us phases, " << phases << " phases, "
      << tree << " tree, " << sync_name << "'\nplot ";
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

int run(int argc, char** argv) {
  if (argc < 2) {
    throw BadArgs{
        "missing command (valid: collect, summary, import, export, latency, simulate); --help "
        "for the options"};
  }
  if (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const std::string cmd = argv[1];
  if (cmd == "collect") {
    return cmd_collect(parse(argc, argv, {"duration", "cores", "threshold", "output"}));
  }
  if (cmd == "summary") {
    const Parsed p = parse(argc, argv, {});
    if (p.pos.empty()) throw BadArgs{"summary needs TRACE..."};
    for (const auto& f : p.pos) std::printf("%s: %s", f.c_str(), summarize(read_trace(f)).c_str());
    return 0;
  }
  if (cmd == "import") {
    const Parsed p = parse(argc, argv, {"hz", "input", "output"});
    if (!p.has("input") || !p.has("output") || !p.has("hz")) {
      throw BadArgs{"import needs --hz, --input and --output"};
    }
    const std::string in = p.get("input", "");
    write_trace(p.get("output", ""),
                from_loggopsim(read_text(in), in, num("--hz", p.get("hz", ""), 1, 1e12)));
    return 0;
  }
  if (cmd == "export") {
    const Parsed p = parse(argc, argv, {"input", "output"});
    if (!p.has("input") || !p.has("output")) throw BadArgs{"export needs --input and --output"};
    write_file_atomically(p.get("output", ""), to_loggopsim(read_trace(p.get("input", ""))));
    return 0;
  }
  if (cmd == "latency") return cmd_latency(argc, argv, parse(argc, argv, {"output"}));
  if (cmd == "simulate") {
    return cmd_simulate(
        parse(argc, argv, {"trace",       "tasks",       "quantum-us",  "phases",         "mode",
                           "high-us",     "low-us",      "coverage",    "tree",           "reps",
                           "seed",        "model",       "send-ns",     "recv-ns",        "wire-ns",
                           "shm-send-ns", "shm-recv-ns", "shm-wire-ns", "tasks-per-node", "latency",
                           "sync",        "bytes",       "byte-ns",     "cpu-byte-ns",    "csv",
                           "plot"}));
  }
  throw BadArgs{"unknown command '" + cmd +
                "' (valid: collect, summary, import, export, latency, simulate)"};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const BadArgs& e) {
    std::fprintf(stderr, "colltune-jitter: %s\n", e.why.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-jitter: %s\n", e.what());
  }
  return 2;
}

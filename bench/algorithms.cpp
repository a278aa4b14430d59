// Every registry algorithm of bcast, scatter and gather against native, measured in one run.
// Links the core directly (no preload) and calls each algorithm through the registry, so all
// candidates share the same process placement and noise: per size, repetitions rotate through
// the algorithms; each repetition is barrier-isolated and its time is the max over ranks of the
// local times (MPIBlib "max" timing); the reported time is the median over repetitions.
//   algorithms [--sizes 1,16,...] [--reps N] [--ops bcast,scatter,gather] [--roots 0,3]
//              [--rules FILE] [--csv FILE] [--label TEXT] [--timing max|window]
//              [--comm world|half|reversed] [--model TABLE] [--algorithms native,linear]
// --timing: how a repetition is timed (src/bench/timing.hpp; default max, barrier-isolated).
// --comm: measure on all ranks, on the first half of them, or on all in reversed order.
// --model: also a row "colltune" per case, the candidate the calibrated model TABLE picks for
// this communicator and root (as the preloaded library would), with that candidate's time; a
// built tree that is its stand-in on this communicator's processes (split without escalations,
// the node-aware trees where no host holds two of them) is not measured ("-") where it is no
// candidate of the table.
// --algorithms: time only these (default: all of the op's; with --model, the pick is timed too).
// Under SMPI, native is what SMPI_EXTRA_CFG selects (--cfg=smpi/bcast:NAME): bench/zoo.sh.
// --rules writes an admin configuration choosing, per op and size range, the measured winner
// (native unless another algorithm is faster by more than 5%); it uses the first root.
// --csv appends "label,np,op,bytes,root,algorithm,seconds" rows (rank 0).
// Under SMPI (-DCOLLTUNE_SMPI=ON) buffers use SMPI_SHARED_MALLOC: timings are exact, data is
// not meaningful (correctness is tested elsewhere).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "bench/timing.hpp"
#include "identity.hpp"
#include "model/platform_model.hpp"
#include "model/trees.hpp"
#include "table/atomic_file.hpp"
#include "table/model_table.hpp"

using namespace colltune;

namespace {

std::vector<long> parse_list(const char* s) {
  std::vector<long> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atol(item.c_str()));
  return out;
}

// A block of memory; shared between simulated ranks under SMPI (timing only).
struct Buffer {
  explicit Buffer(std::size_t n) {
#if defined(SMPI_SHARED_MALLOC)
    p = static_cast<char*>(SMPI_SHARED_MALLOC(n ? n : 1));
#else
    p = static_cast<char*>(std::calloc(n ? n : 1, 1));
#endif
  }
  ~Buffer() {
#if defined(SMPI_SHARED_MALLOC)
    SMPI_SHARED_FREE(p);
#else
    std::free(p);
#endif
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  char* data() { return p; }
  char* p;
};

constexpr double kInf = std::numeric_limits<double>::infinity();

void must(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  std::fprintf(stderr, "algorithms: %s failed (MPI error %d)\n", what, rc);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<std::string> parse_names(const char* s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

std::string human(long b) {
  if (b >= (1 << 20) && b % (1 << 20) == 0) return std::to_string(b >> 20) + "MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + "KiB";
  return std::to_string(b) + "B";
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::vector<long> sizes = {1, 16, 256, 4096, 65536, 262144, 1 << 20, 4 << 20};
  int reps = 30;
  std::vector<std::string> ops = {"bcast", "scatter", "gather"};
  const char* rules_path = nullptr;
  const char* csv_path = nullptr;
  std::string label = "run";
  std::vector<long> roots_arg = {0};
  std::string timing_name = "max", comm_kind = "world";
  const char* model_path = nullptr;
  std::vector<std::string> only;  // --algorithms
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    const char* val = argv[i + 1];
    if (opt == "--sizes") {
      sizes = parse_list(val);
    } else if (opt == "--reps") {
      reps = std::atoi(val);
    } else if (opt == "--rules") {
      rules_path = val;
    } else if (opt == "--csv") {
      csv_path = val;
    } else if (opt == "--label") {
      label = val;
    } else if (opt == "--timing") {
      timing_name = val;
    } else if (opt == "--comm") {
      comm_kind = val;
    } else if (opt == "--model") {
      model_path = val;
    } else if (opt == "--roots") {
      roots_arg = parse_list(val);
    } else if (opt == "--algorithms") {
      only = parse_names(val);
    } else if (opt == "--ops") {
      ops = parse_names(val);
    }
  }
  int rank, size;
  must(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  must(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  if (comm_kind != "world" && comm_kind != "half" && comm_kind != "reversed") {
    if (rank == 0)
      std::fprintf(stderr, "algorithms: --comm %s: valid: world, half, reversed\n",
                   comm_kind.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  auto timing = bench::make_timing(timing_name);
  if (!timing) {
    if (rank == 0)
      std::fprintf(stderr, "algorithms: --timing %s: valid: root, max, global, window\n",
                   timing_name.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm comm;
  const bool member = comm_kind != "half" || rank < size / 2;
  must(MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED,
                      comm_kind == "reversed" ? size - 1 - rank : rank, &comm),
       "MPI_Comm_split");
  if (!member) {
    MPI_Finalize();
    return 0;
  }
  must(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  must(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  MPI_Comm shadow;
  must(MPI_Comm_dup(comm, &shadow), "MPI_Comm_dup");
  // With --model: this communicator's members as identities of the table, as the runtime maps
  // them (src/runtime/first_launch.cpp).
  std::optional<ModelTable> table;
  model::LmoParams params;
  std::vector<int> members(size);
  if (model_path) {
    try {
      table = load_model_table(model_path);
    } catch (const std::exception& e) {
      if (rank == 0) std::fprintf(stderr, "algorithms: %s\n", e.what());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!table->platform_model) {
      if (rank == 0) std::fprintf(stderr, "algorithms: %s has no calibrated model\n", model_path);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    params = model::with_average(table->platform_model->params);
    // COLLTUNE_IDENTITY where emulated hosts share one machine (hetcluster), as the runtime.
    const char* env = std::getenv("COLLTUNE_IDENTITY");
    const std::optional<std::string> id =
        env && *env ? std::optional<std::string>(env) : std::nullopt;
    const int mine = model::match_identity(*table->platform_model, process_identity(id)).index;
    must(MPI_Allgather(&mine, 1, MPI_INT, members.data(), 1, MPI_INT, comm), "MPI_Allgather");
  }

  std::FILE* csv = rank == 0 && csv_path ? std::fopen(csv_path, "a") : nullptr;
  if (rank == 0 && csv_path && !csv) {
    std::fprintf(stderr, "algorithms: --csv %s: cannot open for appending\n", csv_path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  std::ostringstream rules;
  rules << "# Written by colltune's bench/algorithms at np " << size
        << ": the measured winner per op and size.\nversion: 1\nrules:\n";
  if (rank == 0) {
    std::printf("np=%d reps=%d time=median over reps of max over ranks (us)\n", size, reps);
    std::printf("%-8s %9s %4s", "op", "bytes", "root");
    for (std::string_view n : algorithm_names())
      std::printf(" %12.*s", static_cast<int>(n.size()), n.data());
    std::printf("  %-9s %s\n", "winner", "native/best");
  }
  for (const std::string& opname : ops) {
    const Op op = *op_from_name(opname);
    std::vector<const Algorithm*> cands = algorithms_of(op);
    // The table's candidates are always timed (one of them is the pick); of the others, a tree
    // that is its stand-in here is not, nor one left out by --algorithms.
    const std::vector<const Algorithm*> decided =
        table ? model::candidates(*table->platform_model, op) : std::vector<const Algorithm*>{};
    std::erase_if(cands, [&](const Algorithm* a) {
      if (a->native() || std::find(decided.begin(), decided.end(), a) != decided.end()) {
        return false;
      }
      return (table && model::builds_its_stand_in(*a, params, members)) ||
             (!only.empty() && std::find(only.begin(), only.end(), a->name) == only.end());
    });
    std::vector<std::string> winners;
    for (long bytes : sizes) {
      Buffer sbuf(bytes * size), rbuf(bytes * size);
      for (std::size_t ri = 0; ri < roots_arg.size(); ++ri) {
        const int root = static_cast<int>(roots_arg[ri] % size);
        std::vector<std::vector<double>> times(cands.size());
        std::vector<char> failed(cands.size(), 0);
        const CollArgs a = byte_args(op, comm, shadow, rank, size, root,
                                     static_cast<std::uint64_t>(bytes), sbuf.data(), rbuf.data());
        // Built trees from the table's model (else uniform costs), as the runtime builds them.
        std::vector<CollArgs> args(cands.size(), a);
        std::vector<std::shared_ptr<const BuiltTree>> trees(cands.size());
        for (std::size_t c = 0; c < cands.size(); ++c) {
          if (!cands[c]->build) continue;
          trees[c] = table ? model::build_tree(*cands[c], params, members, root, bytes)
                           : model::build_tree_uniform(*cands[c], size, root, bytes);
          args[c].tree = trees[c].get();
        }
        must(timing->prepare(comm, root), "timing prepare");
        for (int r = -2; r < reps; ++r) {  // two warm-up rounds
          for (std::size_t c = 0; c < cands.size(); ++c) {
            if (failed[c]) continue;
            double t = 0;
            // A failure on any rank fails the measurement on every rank: reported, not timed.
            if (timing->measure(
                    comm, root, true, [&] { return cands[c]->run(args[c]); }, &t) != MPI_SUCCESS) {
              failed[c] = true;
            } else if (r >= 0) {
              times[c].push_back(t);
            }
          }
        }
        std::vector<double> med;
        for (auto& v : times) med.push_back(median(v));
        for (std::size_t c = 0; c < cands.size(); ++c) {
          if (failed[c] && rank == 0) {
            std::fprintf(stderr, "algorithms: %s %s %s: failed on some rank; not timed\n",
                         opname.c_str(), std::string(cands[c]->name).c_str(), human(bytes).c_str());
          }
        }
        std::size_t best = 0;  // native (index 0) unless another is > 5% faster
        for (std::size_t c = 1; c < med.size(); ++c)
          if (!failed[c] && med[c] < med[best] * (best == 0 ? 0.95 : 1.0)) best = c;
        if (ri == 0) winners.push_back(std::string(cands[best]->name));
        if (rank != 0) continue;
        std::printf("%-8s %9s %4d", opname.c_str(), human(bytes).c_str(), root);
        for (std::string_view n : algorithm_names()) {
          double us = -1;  // "-": this op has no such algorithm
          for (std::size_t c = 0; c < cands.size(); ++c) {
            if (cands[c]->name == n) us = failed[c] ? -2 : med[c] * 1e6;
          }
          if (us >= 0)
            std::printf(" %12.2f", us);
          else
            std::printf(" %12s", us == -2 ? "failed" : "-");
        }
        std::printf("  %-9s %.2f\n", std::string(cands[best]->name).c_str(), med[0] / med[best]);
        if (csv) {
          for (std::size_t c = 0; c < cands.size(); ++c) {
            if (failed[c]) continue;
            std::fprintf(csv, "%s,%d,%s,%ld,%d,%s,%.12e\n", label.c_str(), size, opname.c_str(),
                         bytes, root, std::string(cands[c]->name).c_str(), med[c]);
          }
        }
        if (table) {  // the model's pick for this case and the time measured for it above
          const auto choices =
              model::decide(*table->platform_model, params, op, decided, members, root);
          for (const model::Choice& ch : choices) {
            if (!ch.bytes.contains(static_cast<std::uint64_t>(bytes))) continue;
            std::size_t c = 0;
            while (cands[c] != ch.algorithm) ++c;
            std::printf("  colltune picks %s (%.2f us measured; predicted at %.0f B:",
                        std::string(ch.algorithm->name).c_str(), med[c] * 1e6, ch.at);
            for (std::size_t k = 0; k < ch.predicted.size(); ++k) {
              std::printf(" %s %.2f us", std::string(decided[k]->name).c_str(),
                          ch.predicted[k] * 1e6);
            }
            std::printf(")\n");
            if (csv) {
              std::fprintf(csv, "%s,%d,%s,%ld,%d,colltune:%s,%.12e\n", label.c_str(), size,
                           opname.c_str(), bytes, root, std::string(ch.algorithm->name).c_str(),
                           med[c]);
            }
          }
        }
      }
    }
    // Size ranges: each measured size owns up to the midpoint to the next one.
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const long lo = i == 0 ? 0 : (sizes[i - 1] + sizes[i]) / 2 + 1;
      const std::string hi =
          i + 1 == sizes.size() ? "max" : std::to_string((sizes[i] + sizes[i + 1]) / 2);
      rules << "  - {op: " << opname << ", comm_size: " << size << ", bytes: [" << lo << ", " << hi
            << "], algorithm: " << winners[i] << "}\n";
    }
  }
  if (rank == 0 && rules_path) {
    try {
      write_file_atomically(rules_path, rules.str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "algorithms: %s\n", e.what());
    }
  }
  if (csv) std::fclose(csv);
  must(MPI_Comm_free(&shadow), "MPI_Comm_free");
  MPI_Finalize();
  return 0;
}

// colltune-info: what colltune sees on this host, without starting MPI.
//   colltune-info                 platform fingerprint and algorithms, as YAML
//   colltune-info --platform      the platform block of a model table, ready to paste
//   colltune-info --algorithms [OP]  the registry's algorithm names (of OP), one per line
//   colltune-info --env [--markdown] every COLLTUNE_* setting: values, default, agreement, help
//   colltune-info --predict TABLE OP ROOT BYTES[,BYTES...]
//                                 a calibrated table's predicted time of every algorithm of OP
//                                 on the communicator it calibrated (its ranks in order), with
//                                 the corrections the library uses, and the algorithm it picks:
//                                 CSV "op,bytes,root,algorithm,predicted_s,picked" on stdout
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "model/platform_model.hpp"
#include "model_table.hpp"
#include "platform.hpp"
#include "settings.hpp"

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "colltune-info: %s\nusage: colltune-info [--platform | --algorithms [OP] | --env "
               "[--markdown] | --predict TABLE OP ROOT BYTES[,BYTES...]]\n",
               why);
  return 2;
}

// Whole positive number, else -1.
long long whole(const std::string& s) {
  if (s.empty() || s.size() > 15 || s.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  return std::stoll(s);
}

int predict(char** argv) {
  using namespace colltune;
  const std::string file = argv[2];
  const std::optional<Op> op = op_from_name(argv[3]);
  if (!op) {
    return usage(
        ("unknown op '" + std::string(argv[3]) + "' (valid: bcast, scatter, gather)").c_str());
  }
  ModelTable t;
  try {
    t = load_model_table(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-info: %s\n", e.what());
    return 2;
  }
  if (!t.platform_model) {
    std::fprintf(stderr,
                 "colltune-info: %s: model: absent (a table colltune-calibrate wrote has "
                 "one)\n",
                 file.c_str());
    return 2;
  }
  const model::PlatformModel& pm = *t.platform_model;
  // Validated at load (parse_model_table): identity indexes of the calibrated ranks.
  const std::vector<int>& members = t.calibrated_ranks;
  if (members.size() < 2) {
    std::fprintf(stderr,
                 "colltune-info: %s: calibration.rank_identity: absent or not a list of "
                 "identity indexes\n",
                 file.c_str());
    return 2;
  }
  const long long root = whole(argv[4]);
  if (root < 0 || root >= static_cast<long long>(members.size())) {
    return usage(("ROOT '" + std::string(argv[4]) + "' (valid: 0 to " +
                  std::to_string(members.size() - 1) + ")")
                     .c_str());
  }
  std::vector<long long> sizes;
  const std::string list = argv[5];
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const long long b = whole(list.substr(at, end - at));
    if (b <= 0 || b > (1ll << 40)) {
      return usage(("BYTES '" + list + "' (valid: sizes from 1 to 2^40, comma-separated)").c_str());
    }
    sizes.push_back(b);
    at = end + 1;
  }
  const model::LmoParams p = model::with_average(pm.params);
  const std::vector<const Algorithm*> cands = algorithms_of(*op);
  const std::vector<model::Choice> choices =
      model::decide(pm, p, *op, cands, members, static_cast<int>(root));
  std::printf("op,bytes,root,algorithm,predicted_s,picked\n");
  for (const long long b : sizes) {
    const Algorithm* picked = nullptr;
    for (const model::Choice& c : choices) {
      if (c.bytes.contains(static_cast<std::uint64_t>(b))) picked = c.algorithm;
    }
    for (const Algorithm* a : cands) {
      const double s = model::predict_algorithm(pm, p, *a, members, static_cast<int>(root),
                                                static_cast<double>(b));
      std::printf("%s,%lld,%lld,%.*s,%.9g,%d\n", argv[3], b, root, int(a->name.size()),
                  a->name.data(), s, a == picked);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace colltune;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "--algorithms") {
    if (argc > 3) return usage("--algorithms takes at most one op");
    std::optional<Op> only;
    if (argc == 3 && !(only = op_from_name(argv[2]))) {
      return usage(
          ("unknown op '" + std::string(argv[2]) + "' (valid: bcast, scatter, gather)").c_str());
    }
    if (!only) {
      for (std::string_view n : algorithm_names()) std::printf("%.*s\n", int(n.size()), n.data());
    }
    for (const Algorithm& a : algorithms()) {  // an op has each name once
      if (only && a.op == *only) std::printf("%.*s\n", int(a.name.size()), a.name.data());
    }
    return 0;
  }
  if (mode == "--predict") {
    if (argc != 6) return usage("--predict takes TABLE OP ROOT BYTES[,BYTES...]");
    return predict(argv);
  }
  if (mode == "--env") {
    if (argc > 3 || (argc == 3 && std::strcmp(argv[2], "--markdown") != 0)) {
      return usage("--env takes only --markdown");
    }
    std::fputs((argc == 3 ? settings_markdown() : settings_text()).c_str(), stdout);
    return 0;
  }
  const bool platform_only = mode == "--platform";
  if (argc > 2 || (argc == 2 && !platform_only)) {
    return usage(("unknown option '" + mode + "'").c_str());
  }
  const HostFingerprint host = this_host();
  std::printf("platform:\n  mpi_library: \"%s\"\n  hosts:\n    - {name: %s, topology: \"%s\"}\n",
              mpi_library_version().c_str(), host.name.c_str(), host.topology.c_str());
  if (!platform_only) {
    std::printf("algorithms:\n");
    for (int op = 0; op < kNumOps; ++op) {
      const auto o = static_cast<Op>(op);
      std::printf("  %s: [%s]\n", std::string(op_name(o)).c_str(), algorithm_choices(o).c_str());
    }
  }
  return 0;
}

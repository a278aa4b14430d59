// colltune-info: what colltune sees on this host, without starting MPI.
//   colltune-info                 platform fingerprint and algorithms, as YAML
//   colltune-info --platform      the platform block of a model table, ready to paste
//   colltune-info --algorithms [OP]  the registry's algorithm names (of OP), one per line
//   colltune-info --env [--markdown] every COLLTUNE_* setting: values, default, agreement, help
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms.hpp"
#include "platform.hpp"
#include "settings.hpp"

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "colltune-info: %s\nusage: colltune-info [--platform | --algorithms [OP] | --env "
               "[--markdown]]\n",
               why);
  return 2;
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

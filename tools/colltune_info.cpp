// colltune-info: prints what colltune sees on this host, as YAML, without starting MPI:
// the platform fingerprint block of a model table (MPI library line, host name, hwloc summary)
// and the algorithms of each op. `colltune-info --platform` prints only the platform block,
// ready to paste into (or generate) a model table.
#include <cstdio>
#include <cstring>
#include <string>

#include "algorithms.hpp"
#include "platform.hpp"

int main(int argc, char** argv) {
  const bool platform_only = argc > 1 && std::strcmp(argv[1], "--platform") == 0;
  if (argc > 1 && !platform_only) {
    std::fprintf(stderr, "usage: colltune-info [--platform]\n");
    return 2;
  }
  const colltune::HostFingerprint host = colltune::this_host();
  std::printf("platform:\n  mpi_library: \"%s\"\n  hosts:\n    - {name: %s, topology: \"%s\"}\n",
              colltune::mpi_library_version().c_str(), host.name.c_str(), host.topology.c_str());
  if (!platform_only) {
    std::printf("algorithms:\n");
    for (int op = 0; op < colltune::kNumOps; ++op) {
      const auto o = static_cast<colltune::Op>(op);
      std::printf("  %s: [%s]\n", std::string(colltune::op_name(o)).c_str(),
                  colltune::algorithm_choices(o).c_str());
    }
  }
  return 0;
}

// The platform a table applies to (host names, hwloc topology summaries, MPI library) and this
// process's own fingerprint.
#pragma once

#include <string>
#include <vector>

namespace colltune {

struct HostFingerprint {
  std::string name;
  std::string topology;
  bool operator==(const HostFingerprint&) const = default;
};

struct PlatformFingerprint {
  std::string mpi_library;
  std::vector<HostFingerprint> hosts;
};

// "packages=P numa=N cores=C pus=U" of this host (hwloc); "unknown" if hwloc fails.
std::string hwloc_summary();
HostFingerprint this_host();
// First line of MPI_Get_library_version, whitespace collapsed ("MPICH Version: 4.0.2").
std::string mpi_library_version();

}  // namespace colltune

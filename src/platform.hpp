// Platform fingerprint of this process: host name, hwloc topology summary, MPI library.
#pragma once

#include <string>

#include "model_table.hpp"

namespace colltune {

// "packages=P numa=N cores=C pus=U" of this host (hwloc); "unknown" if hwloc fails.
std::string hwloc_summary();
HostFingerprint this_host();
// First line of MPI_Get_library_version, whitespace collapsed ("MPICH Version: 4.0.2").
std::string mpi_library_version();

}  // namespace colltune

// A process's identity in a model table (docs/calibration.md): the host (MPI processor name)
// and, when the process is bound inside one NUMA node or package, that node: "host/numaK" or
// "host/pkgK". COLLTUNE_IDENTITY replaces it (emulated hosts that share one host name).
#pragma once

#include <optional>
#include <string>

namespace colltune {

// Needs MPI initialized (PMPI_Get_processor_name).
std::string process_identity(const std::optional<std::string>& override_id);

}  // namespace colltune

// A process's identity in a model table (docs/calibration.md): the host (MPI processor name)
// and, when the process is bound inside one NUMA node or package, that node: "host/numaK" or
// "host/pkgK". COLLTUNE_IDENTITY replaces it (emulated hosts that share one host name).
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

namespace colltune {

// Needs MPI initialized (PMPI_Get_processor_name).
std::string process_identity(const std::optional<std::string>& override_id);

// Every process's identity (truncated to 127 characters), on every rank of comm. Collective.
int gather_identities(MPI_Comm comm, const std::optional<std::string>& override_id,
                      std::vector<std::string>* out);

}  // namespace colltune

// A process's identity in a model table (docs/calibration.md): the host (MPI processor name)
// and, when the process is bound inside one NUMA node or package, that node: "host/numaK" or
// "host/pkgK". COLLTUNE_IDENTITY replaces it (emulated hosts that share one host name).
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

namespace colltune {

// Identities are cut to this many bytes everywhere (gathered, matched, written in tables).
inline constexpr std::size_t kMaxIdentity = 127;

// Needs MPI initialized (PMPI_Get_processor_name). At most kMaxIdentity bytes.
std::string process_identity(const std::optional<std::string>& override_id);

// Every process's identity, on every rank of comm. Collective; a local failure (memory) is
// agreed: every rank then returns MPI_ERR_NO_MEM.
int gather_identities(MPI_Comm comm, const std::optional<std::string>& override_id,
                      std::vector<std::string>* out);

}  // namespace colltune

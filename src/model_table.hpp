// The model table (YAML): which algorithm to run per op, communicator size and bytes per
// process, for one platform. colltune-calibrate writes it; the library reads it.
//
//   colltune_model: 1                      # schema version
//   platform:                              # fingerprint: the table applies only here
//     mpi_library: "MPICH Version: 4.0.2"  # first line of MPI_Get_library_version
//     hosts:
//       - {name: node01, topology: "packages=1 numa=1 cores=16 pus=32"}   # hwloc summary
//   decisions:
//     bcast:                               # also scatter, gather
//       - comm_size: [2, 16]               # sorted, non-overlapping
//         bytes:                           # sorted, non-overlapping; gaps run native
//           - {range: [0, 8KiB], algorithm: binomial}
//           - {range: [8193, max], algorithm: linear}
//   model: {...}        # LMO parameters, written by calibration (kept as is)
//   validation: {...}   # calibration's report of model accuracy (kept as is)
#pragma once

#include <array>
#include <string>
#include <vector>

#include "algorithms.hpp"
#include "yaml_util.hpp"

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

struct ByteRule {
  Range bytes;
  const Algorithm* algorithm = nullptr;
};

struct SizeEntry {
  Range comm_size;
  std::vector<ByteRule> bytes;
};

struct ModelTable {
  std::string file;
  PlatformFingerprint platform;
  std::array<std::vector<SizeEntry>, kNumOps> decisions;
  YAML::Node model;       // opaque here; owned by calibration
  YAML::Node validation;  // opaque here; owned by calibration
};

inline constexpr int kModelSchemaVersion = 1;

// Throws InputError naming the file, line, field and valid choices.
ModelTable parse_model_table(const std::string& file, const YAML::Node& root);
ModelTable load_model_table(const std::string& file);

// Writes atomically: a temporary file next to `path`, then rename. Throws InputError.
void save_model_table(const ModelTable& table, const std::string& path);
std::string emit_model_table(const ModelTable& table);

// Empty when `here` (this process's host) is covered by the table, else why not.
std::string platform_mismatch(const ModelTable& table, const std::string& mpi_library,
                              const HostFingerprint& here);

}  // namespace colltune

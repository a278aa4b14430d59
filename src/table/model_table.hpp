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
//   model: {...}        # schema 2, 3: LMO parameters per identity (src/model/platform_model.hpp)
//   calibration: {...}  # sweeps, settings and rank identities of the calibration run
//   validation: {...}   # predicted against measured time on held-out sizes
#pragma once

#include <array>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "../algorithms/registry.hpp"
#include "../model/platform_model.hpp"
#include "../platform.hpp"
#include "model_yaml.hpp"
#include "yaml_util.hpp"

namespace colltune {

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
  YAML::Node model;  // schema 1: opaque, kept as written
  // Schema 2, 3: the calibrated model (section `model:`); decisions for every communicator come
  // from it, `decisions:` then only records the calibrated communicator's (root 0).
  std::optional<model::PlatformModel> platform_model;
  YAML::Node calibration;  // how it was made: sweeps, settings, rank identities (kept as is)
  // With a calibrated model: each calibrated rank's identity index (calibration.rank_identity;
  // empty when the table does not record it). What the table measured: docs/calibration.md.
  std::vector<int> calibrated_ranks;
  // When calibration finished (calibration.finished, seconds since the epoch; NaN when the
  // table does not record it): the age of every link it measured.
  double finished = std::numeric_limits<double>::quiet_NaN();
  YAML::Node validation;  // the held-out report (kept as is)
};

// Reads 1, 2 and 3. Schema 3: `model.native` may say `ompi`, and `mpich` for gather receives
// its children in order (schema 2's `mpich` gather, any order, reads as `binomial`).
inline constexpr int kModelSchemaVersion = 3;

// Throws InputError naming the file, line, field and valid choices.
ModelTable parse_model_table(const std::string& file, const YAML::Node& root);
ModelTable load_model_table(const std::string& file);

// Writes atomically: a temporary file next to `path`, then rename. Throws InputError.
void save_model_table(const ModelTable& table, const std::string& path);
std::string emit_model_table(const ModelTable& table);
// The same text written to `out` (no copy of the whole text is made).
void emit_model_table(const ModelTable& table, std::ostream& out);

// Empty when a job whose ranks have these identity indexes (-1: not in the table) stays within
// what the table measured: no identity with more processes than at calibration. Else why not.
std::string layout_mismatch(const ModelTable& table, const std::vector<int>& rank_identity);

// Empty when `here` (this process's host) is covered by the table, else why not.
std::string platform_mismatch(const ModelTable& table, const std::string& mpi_library,
                              const HostFingerprint& here);

}  // namespace colltune

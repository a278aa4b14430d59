// Admin configuration (YAML, colltune.yaml): ordered rules, first match wins.
//
//   version: 1
//   model: /var/lib/colltune/model.yaml   # optional model table (COLLTUNE_MODEL overrides)
//   rules:
//     - op: bcast              # bcast | scatter | gather            (required)
//       algorithm: binomial    # native | linear | binomial          (required)
//       comm_size: [2, 64]     # optional, inclusive; N or [lo, hi|max]
//       bytes: [0, 64KiB]      # optional, bytes per process (count * type size)
//       root: 0                # optional
//       nodes: [1, 4]          # optional, hosts spanned by the communicator
//       ppn: [1, max]          # optional, most processes of the communicator on one host
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../algorithms/registry.hpp"
#include "yaml_util.hpp"

namespace colltune {

struct Rule {
  Op op = Op::kBcast;
  const Algorithm* algorithm = nullptr;
  Range comm_size, bytes, nodes, ppn;
  std::optional<int> root;
  bool uses_topology = false;  // nodes or ppn given
  int line = 0;
};

struct AdminConfig {
  std::string file;
  std::optional<std::string> model_path;
  std::vector<Rule> rules;
  bool uses_topology() const;
};

// Throws InputError naming the file, line, field and valid choices.
AdminConfig parse_admin_config(const std::string& file, const YAML::Node& root);
AdminConfig load_admin_config(const std::string& file);

}  // namespace colltune

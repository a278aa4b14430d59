#include "config.hpp"

#include <climits>

namespace colltune {

bool AdminConfig::uses_topology() const {
  for (const Rule& r : rules) {
    if (r.uses_topology) return true;
  }
  return false;
}

namespace {

AdminConfig parse_admin_config_impl(const std::string& file, const YAML::Node& root) {
  YamlReader y(file);
  AdminConfig cfg;
  cfg.file = file;
  if (root.IsNull()) return cfg;  // an empty file: no rules
  y.require_map(root, "top level");
  y.check_keys(root, "top level", {"version", "model", "rules"});
  if (root["version"]) {
    if (y.number(root["version"], "version", false, kAbsurdCount) != 1) {
      y.fail(root["version"], "version", "unsupported (valid: 1)");
    }
  }
  if (root["model"]) cfg.model_path = y.scalar(root["model"], "model");
  const YAML::Node rules = root["rules"];
  if (!rules || rules.IsNull()) return cfg;
  y.require_seq(rules, "rules");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const YAML::Node n = rules[i];
    const std::string f = "rules[" + std::to_string(i) + "]";
    y.require_map(n, f);
    y.check_keys(n, f, {"op", "algorithm", "comm_size", "bytes", "root", "nodes", "ppn"});
    Rule r;
    r.line = n.Mark().is_null() ? 0 : n.Mark().line + 1;
    if (!n["op"]) y.fail(n, f + ".op", "missing (valid: bcast, scatter, gather)");
    const std::string op = y.scalar(n["op"], f + ".op");
    const auto parsed = op_from_name(op);
    if (!parsed)
      y.fail(n["op"], f + ".op", "unknown op '" + op + "' (valid: bcast, scatter, gather)");
    r.op = *parsed;
    if (!n["algorithm"]) {
      y.fail(n, f + ".algorithm", "missing (valid: " + algorithm_choices(r.op) + ")");
    }
    const std::string alg = y.scalar(n["algorithm"], f + ".algorithm");
    r.algorithm = find_algorithm(r.op, alg);
    if (!r.algorithm) {
      y.fail(n["algorithm"], f + ".algorithm",
             "unknown algorithm '" + alg + "' (valid: " + algorithm_choices(r.op) + ")");
    }
    if (n["comm_size"]) {
      r.comm_size = y.range(n["comm_size"], f + ".comm_size", false, kAbsurdCount);
      if (r.comm_size.lo < 1) y.fail(n["comm_size"], f + ".comm_size", "must be >= 1");
    }
    if (n["bytes"]) r.bytes = y.range(n["bytes"], f + ".bytes", true, kAbsurdBytes);
    if (n["nodes"]) {
      r.nodes = y.range(n["nodes"], f + ".nodes", false, kAbsurdCount);
      r.uses_topology = true;
    }
    if (n["ppn"]) {
      r.ppn = y.range(n["ppn"], f + ".ppn", false, kAbsurdCount);
      r.uses_topology = true;
    }
    if (n["root"]) {
      r.root = static_cast<int>(y.number(n["root"], f + ".root", false, INT_MAX));
    }
    cfg.rules.push_back(r);
  }
  return cfg;
}

}  // namespace

AdminConfig parse_admin_config(const std::string& file, const YAML::Node& root) {
  return rethrow_yaml_errors(file, [&] { return parse_admin_config_impl(file, root); });
}

AdminConfig load_admin_config(const std::string& file) {
  YamlReader y(file);
  return parse_admin_config(file, y.load());
}

}  // namespace colltune

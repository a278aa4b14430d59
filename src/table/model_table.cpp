#include "model_table.hpp"

#include <algorithm>
#include <sstream>

#include "atomic_file.hpp"

namespace colltune {

namespace {

std::vector<ByteRule> parse_byte_rules(const YamlReader& y, const YAML::Node& n, Op op,
                                       const std::string& f) {
  y.require_seq(n, f);
  std::vector<ByteRule> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string g = f + "[" + std::to_string(i) + "]";
    y.require_map(n[i], g);
    y.check_keys(n[i], g, {"range", "algorithm"});
    if (!n[i]["range"]) y.fail(n[i], g + ".range", "missing ([lo, hi] bytes per process)");
    if (!n[i]["algorithm"])
      y.fail(n[i], g + ".algorithm", "missing (valid: " + algorithm_choices(op) + ")");
    ByteRule r;
    r.bytes = y.range(n[i]["range"], g + ".range", true, kAbsurdBytes);
    const std::string alg = y.scalar(n[i]["algorithm"], g + ".algorithm");
    r.algorithm = find_algorithm(op, alg);
    if (!r.algorithm) {
      y.fail(n[i]["algorithm"], g + ".algorithm",
             "unknown algorithm '" + alg + "' (valid: " + algorithm_choices(op) + ")");
    }
    if (!out.empty() && r.bytes.lo <= out.back().bytes.hi) {
      y.fail(n[i]["range"], g + ".range",
             range_to_string(r.bytes) + " overlaps or precedes " +
                 range_to_string(out.back().bytes) + " (ranges must be sorted and disjoint)");
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace

namespace {

ModelTable parse_model_table_impl(const std::string& file, const YAML::Node& root) {
  YamlReader y(file);
  ModelTable t;
  t.file = file;
  y.require_map(root, "top level");
  y.check_keys(root, "top level",
               {"colltune_model", "generated_by", "platform", "decisions", "model", "calibration",
                "validation"});
  if (!root["colltune_model"]) {
    y.fail(root, "colltune_model",
           "missing: not a colltune model table (expected colltune_model: " +
               std::to_string(kModelSchemaVersion) + ")");
  }
  const std::uint64_t version =
      y.number(root["colltune_model"], "colltune_model", false, kAbsurdCount);
  if (version < 1 || version > static_cast<std::uint64_t>(kModelSchemaVersion)) {
    y.fail(root["colltune_model"], "colltune_model",
           "unsupported schema version (valid: 1 to " + std::to_string(kModelSchemaVersion) + ")");
  }
  const YAML::Node p = root["platform"];
  if (!p) y.fail(root, "platform", "missing (mpi_library and hosts)");
  y.require_map(p, "platform");
  y.check_keys(p, "platform", {"mpi_library", "hosts"});
  if (!p["mpi_library"]) y.fail(p, "platform.mpi_library", "missing");
  t.platform.mpi_library = y.scalar(p["mpi_library"], "platform.mpi_library");
  if (!p["hosts"]) y.fail(p, "platform.hosts", "missing");
  y.require_seq(p["hosts"], "platform.hosts");
  for (std::size_t i = 0; i < p["hosts"].size(); ++i) {
    const YAML::Node h = p["hosts"][i];
    const std::string f = "platform.hosts[" + std::to_string(i) + "]";
    y.require_map(h, f);
    y.check_keys(h, f, {"name", "topology"});
    if (!h["name"] || !h["topology"]) y.fail(h, f, "needs name and topology");
    t.platform.hosts.push_back(
        {y.scalar(h["name"], f + ".name"), y.scalar(h["topology"], f + ".topology")});
  }
  if (t.platform.hosts.empty()) y.fail(p["hosts"], "platform.hosts", "must list at least one host");

  const YAML::Node d = root["decisions"];
  if (d && !d.IsNull()) {
    y.require_map(d, "decisions");
    y.check_keys(d, "decisions", {"bcast", "scatter", "gather"});
    for (const auto& kv : d) {
      const Op op = *op_from_name(kv.first.Scalar());
      const std::string f = "decisions." + kv.first.Scalar();
      y.require_seq(kv.second, f);
      auto& entries = t.decisions[static_cast<int>(op)];
      for (std::size_t i = 0; i < kv.second.size(); ++i) {
        const YAML::Node e = kv.second[i];
        const std::string g = f + "[" + std::to_string(i) + "]";
        y.require_map(e, g);
        y.check_keys(e, g, {"comm_size", "bytes"});
        if (!e["comm_size"]) y.fail(e, g + ".comm_size", "missing ([lo, hi] processes)");
        if (!e["bytes"]) y.fail(e, g + ".bytes", "missing (a list of {range, algorithm})");
        SizeEntry s;
        s.comm_size = y.range(e["comm_size"], g + ".comm_size", false, kAbsurdCount);
        if (s.comm_size.lo < 1) y.fail(e["comm_size"], g + ".comm_size", "must be >= 1");
        if (!entries.empty() && s.comm_size.lo <= entries.back().comm_size.hi) {
          y.fail(e["comm_size"], g + ".comm_size",
                 range_to_string(s.comm_size) + " overlaps or precedes " +
                     range_to_string(entries.back().comm_size) +
                     " (ranges must be sorted and disjoint)");
        }
        s.bytes = parse_byte_rules(y, e["bytes"], op, g + ".bytes");
        entries.push_back(std::move(s));
      }
    }
  }
  // Copy only present nodes: assigning an absent (zombie) yaml-cpp node throws.
  if (version >= 2 && root["model"] && !root["model"].IsNull()) {
    t.platform_model = model::parse_platform_model(y, root["model"], static_cast<int>(version));
  } else if (root["model"]) {
    t.model = YAML::Clone(root["model"]);
  }
  // Copies, not views: a yaml-cpp node keeps its whole document's memory alive, and a table's
  // document is mostly model.inv_beta (n^2 pairs; docs/calibration.md, "Tables of many
  // identities").
  if (root["calibration"]) t.calibration = YAML::Clone(root["calibration"]);
  if (root["validation"]) t.validation = YAML::Clone(root["validation"]);
  if (t.calibration.IsMap() && t.calibration["finished"]) {
    const YAML::Node f = t.calibration["finished"];
    const auto when = parse_utc(y.scalar(f, "calibration.finished"));
    if (!when) {
      y.fail(f, "calibration.finished",
             "invalid value '" + f.Scalar() + "' (valid: a UTC time YYYY-MM-DDTHH:MM:SSZ)");
    }
    t.finished = *when;
  }
  if (t.platform_model && t.calibration.IsMap() && t.calibration["rank_identity"]) {
    const YAML::Node r = t.calibration["rank_identity"];
    const std::string f = "calibration.rank_identity";
    y.require_seq(r, f);
    const std::uint64_t k = t.platform_model->identities.size();
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::uint64_t v =
          y.number(r[i], f + "[" + std::to_string(i) + "]", false, kAbsurdCount);
      if (v >= k) {
        y.fail(r[i], f + "[" + std::to_string(i) + "]",
               "identity index " + std::to_string(v) + " (valid: 0 to " + std::to_string(k - 1) +
                   ", model.identities)");
      }
      t.calibrated_ranks.push_back(static_cast<int>(v));
    }
  }
  return t;
}

}  // namespace

ModelTable parse_model_table(const std::string& file, const YAML::Node& root) {
  return rethrow_yaml_errors(file, [&] { return parse_model_table_impl(file, root); });
}

ModelTable load_model_table(const std::string& file) {
  YamlReader y(file);
  return parse_model_table(file, y.load());
}

void emit_model_table(const ModelTable& t, std::ostream& out) {
  YAML::Emitter e(out);
  e << YAML::BeginMap;
  // Schema 1 when there is no calibrated model: the file reads back exactly as it was.
  e << YAML::Key << "colltune_model" << YAML::Value << (t.platform_model ? kModelSchemaVersion : 1);
  e << YAML::Key << "platform" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "mpi_library" << YAML::Value << YAML::DoubleQuoted << t.platform.mpi_library;
  e << YAML::Key << "hosts" << YAML::Value << YAML::BeginSeq;
  for (const auto& h : t.platform.hosts) {
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << h.name << YAML::Key
      << "topology" << YAML::Value << YAML::DoubleQuoted << h.topology << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
  e << YAML::Key << "decisions" << YAML::Value << YAML::BeginMap;
  for (int op = 0; op < kNumOps; ++op) {
    e << YAML::Key << std::string(op_name(static_cast<Op>(op))) << YAML::Value << YAML::BeginSeq;
    for (const auto& s : t.decisions[op]) {
      e << YAML::BeginMap << YAML::Key << "comm_size" << YAML::Value << YAML::Flow << YAML::BeginSeq
        << s.comm_size.lo;
      if (s.comm_size.hi == kMaxValue)
        e << "max";
      else
        e << s.comm_size.hi;
      e << YAML::EndSeq << YAML::Key << "bytes" << YAML::Value << YAML::BeginSeq;
      for (const auto& b : s.bytes) {
        e << YAML::Flow << YAML::BeginMap << YAML::Key << "range" << YAML::Value << YAML::Flow
          << YAML::BeginSeq << b.bytes.lo;
        if (b.bytes.hi == kMaxValue)
          e << "max";
        else
          e << b.bytes.hi;
        e << YAML::EndSeq << YAML::Key << "algorithm" << YAML::Value
          << std::string(b.algorithm->name) << YAML::EndMap;
      }
      e << YAML::EndSeq << YAML::EndMap;
    }
    e << YAML::EndSeq;
  }
  e << YAML::EndMap;
  if (t.platform_model) {
    e << YAML::Key << "model" << YAML::Value << model::to_yaml(*t.platform_model);
  } else if (t.model && !t.model.IsNull()) {
    e << YAML::Key << "model" << YAML::Value << t.model;
  }
  if (t.calibration && !t.calibration.IsNull()) {
    e << YAML::Key << "calibration" << YAML::Value << t.calibration;
  }
  if (t.validation && !t.validation.IsNull()) {
    e << YAML::Key << "validation" << YAML::Value << t.validation;
  }
  e << YAML::EndMap;
  out << "\n";
}

std::string emit_model_table(const ModelTable& t) {
  std::ostringstream out;
  emit_model_table(t, out);
  return out.str();
}

void save_model_table(const ModelTable& t, const std::string& path) {
  write_file_atomically(path, emit_model_table(t));
}

namespace {

// Processes per identity index (size k) of a rank -> identity list.
std::vector<int> processes_per_identity(const std::vector<int>& rank_identity, int k) {
  std::vector<int> n(static_cast<std::size_t>(std::max(k, 0)), 0);
  for (int i : rank_identity) {
    if (i >= 0 && i < k) ++n[static_cast<std::size_t>(i)];
  }
  return n;
}

}  // namespace

std::string layout_mismatch(const ModelTable& t, const std::vector<int>& rank_identity) {
  if (!t.platform_model || t.calibrated_ranks.empty()) return {};
  const int k = static_cast<int>(t.platform_model->identities.size());
  const std::vector<int> had = processes_per_identity(t.calibrated_ranks, k);
  const std::vector<int> now = processes_per_identity(rank_identity, k);
  for (int i = 0; i < k; ++i) {
    if (now[i] > had[i]) {
      return "it was calibrated with " + std::to_string(had[i]) + " process(es) on identity '" +
             t.platform_model->identities[i] + "', this job has " + std::to_string(now[i]) +
             " there (more processes sharing an identity share its links and memory)";
    }
  }
  return {};
}

std::string platform_mismatch(const ModelTable& t, const std::string& mpi_library,
                              const HostFingerprint& here) {
  if (t.platform.mpi_library != mpi_library) {
    return "table made for another platform: platform.mpi_library is '" + t.platform.mpi_library +
           "', this run uses '" + mpi_library + "'";
  }
  for (const auto& h : t.platform.hosts) {
    if (h.name != here.name) continue;
    if (h.topology == here.topology) return {};
    return "table made for another platform: host '" + here.name + "' has topology '" +
           here.topology + "', the table says '" + h.topology + "'";
  }
  return "table made for another platform: host '" + here.name + "' is not in platform.hosts";
}

}  // namespace colltune

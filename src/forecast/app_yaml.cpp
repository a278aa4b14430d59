#include "app_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <set>

#include "../table/yaml_util.hpp"

namespace colltune {
namespace {

using forecast::Block;
using forecast::Expr;

const std::vector<std::string> kKinds = {
    "compute",   "send",   "neighbours", "ring",    "exchange", "bcast", "scatter", "gather",
    "allreduce", "reduce", "alltoall",   "barrier", "read",     "write", "loop"};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

int line_of(const YAML::Node& n) { return n.Mark().is_null() ? 0 : n.Mark().line + 1; }

struct AppReader {
  const YamlReader& r;
  forecast::AppModel& m;
  std::vector<std::string> labels;

  // An expression whose every name is P, a group's label, a variable or a loop's counter.
  Expr expr(const YAML::Node& n, const std::string& field, const std::set<std::string>& scope) {
    const Expr e(r.scalar(n, field), line_of(n));
    std::vector<std::string> names;
    try {
      names = e.names();
    } catch (const std::invalid_argument& x) {
      r.fail(n, field, x.what());
    }
    for (const std::string& name : names) {
      if (!scope.count(name)) {
        std::vector<std::string> valid(scope.begin(), scope.end());
        r.fail(n, field, "unknown name '" + name + "' (valid: " + joined(valid) + ")");
      }
    }
    return e;
  }

  int group(const YAML::Node& n, const std::string& field) {
    const std::string label = r.scalar(n, field);
    for (std::size_t g = 0; g < labels.size(); ++g) {
      if (labels[g] == label) return static_cast<int>(g);
    }
    r.fail(n, field, "unknown group '" + label + "' (valid: " + joined(labels) + ")");
  }

  std::vector<Block> blocks(const YAML::Node& seq, const std::string& field,
                            std::set<std::string> scope) {
    r.require_seq(seq, field);
    std::vector<Block> out;
    for (std::size_t i = 0; i < seq.size(); ++i) {
      const YAML::Node b = seq[i];
      const std::string at = field + "[" + std::to_string(i) + "]";
      if (!b.IsMap() || b.size() != 1) {
        r.fail(b, at, "must be one block, a mapping of one kind (valid: " + joined(kKinds) + ")");
      }
      const std::string kind = b.begin()->first.as<std::string>();
      const YAML::Node f = b.begin()->second;
      const std::string where = at + "." + kind;
      Block x;
      x.line = line_of(b);
      const auto k = std::find(kKinds.begin(), kKinds.end(), kind);
      if (k == kKinds.end())
        r.fail(b, at, "unknown block '" + kind + "' (valid: " + joined(kKinds) + ")");
      x.kind = static_cast<Block::Kind>(k - kKinds.begin());
      if (f.IsNull() && x.kind == Block::kBarrier) {
        out.push_back(x);
        continue;
      }
      r.require_map(f, where);
      auto need = [&](const char* key) {
        if (!f[key]) r.fail(f, where + "." + key, "absent");
        return f[key];
      };
      auto groups = [&] {
        if (f["comm"]) {
          std::set<std::string> with = scope;
          with.insert("member");
          x.comm = expr(f["comm"], where + ".comm", with);
        }
        if (!f["groups"]) return;
        r.require_seq(f["groups"], where + ".groups");
        for (const YAML::Node& g : f["groups"]) x.groups.push_back(group(g, where + ".groups"));
      };
      switch (x.kind) {
        case Block::kCompute:
          r.check_keys(f, where, {"flops", "seconds", "threads", "working_set", "groups", "comm"});
          if (!!f["flops"] == !!f["seconds"]) {
            r.fail(f, where, "give flops or seconds, one of them");
          }
          if (f["flops"]) x.flops = expr(f["flops"], where + ".flops", scope);
          if (f["seconds"]) x.seconds = expr(f["seconds"], where + ".seconds", scope);
          if (f["threads"]) x.threads = expr(f["threads"], where + ".threads", scope);
          if (f["working_set"]) {
            if (!f["flops"]) r.fail(f["working_set"], where + ".working_set", "needs flops");
            x.working_set = expr(f["working_set"], where + ".working_set", scope);
          }
          groups();
          break;
        case Block::kSend:
          r.check_keys(f, where, {"from", "to", "bytes"});
          x.from = group(need("from"), where + ".from");
          x.to = group(need("to"), where + ".to");
          if (x.from == x.to)
            r.fail(f["to"], where + ".to", "the same group as from (use neighbours)");
          x.bytes = expr(need("bytes"), where + ".bytes", scope);
          break;
        case Block::kNeighbours:
          r.check_keys(f, where, {"offsets", "bytes", "groups", "comm"});
          r.require_seq(need("offsets"), where + ".offsets");
          for (const YAML::Node& o : f["offsets"])
            x.offsets.push_back(expr(o, where + ".offsets", scope));
          x.bytes = expr(need("bytes"), where + ".bytes", scope);
          groups();
          break;
        case Block::kRing:
          r.check_keys(f, where, {"bytes", "root", "split", "groups", "comm"});
          x.bytes = expr(need("bytes"), where + ".bytes", scope);
          if (f["root"]) x.root = expr(f["root"], where + ".root", scope);
          if (f["split"]) x.split = expr(f["split"], where + ".split", scope);
          groups();
          break;
        case Block::kExchange:
          r.check_keys(f, where, {"bytes", "root", "count", "groups", "comm"});
          x.bytes = expr(need("bytes"), where + ".bytes", scope);
          x.count = expr(need("count"), where + ".count", scope);
          if (f["root"]) x.root = expr(f["root"], where + ".root", scope);
          groups();
          break;
        case Block::kBcast:
        case Block::kScatter:
        case Block::kGather:
        case Block::kReduce:
          r.check_keys(f, where, {"bytes", "root", "groups", "comm"});
          x.bytes = expr(need("bytes"), where + ".bytes", scope);
          if (f["root"]) x.root = expr(f["root"], where + ".root", scope);
          groups();
          break;
        case Block::kAllreduce:
        case Block::kAlltoall:
        case Block::kRead:
        case Block::kWrite:
          r.check_keys(f, where, {"bytes", "groups", "comm"});
          x.bytes = expr(need("bytes"), where + ".bytes", scope);
          groups();
          break;
        case Block::kBarrier:
          r.check_keys(f, where, {"groups", "comm"});
          groups();
          break;
        case Block::kLoop: {
          r.check_keys(f, where, {"count", "var", "do"});
          x.count = expr(need("count"), where + ".count", scope);
          std::set<std::string> inner = scope;
          if (f["var"]) {
            x.var = r.scalar(f["var"], where + ".var");
            if (scope.count(x.var) || x.var == "member")
              r.fail(f["var"], where + ".var", "'" + x.var + "' is already a name");
            inner.insert(x.var);
          }
          x.body = blocks(need("do"), where + ".do", inner);
          break;
        }
      }
      out.push_back(std::move(x));
    }
    return out;
  }
};

// The top level: a mapping whose `key` says what the file is and its version (1), with no keys
// but `keys` beside it.
void check_top(const YamlReader& r, const YAML::Node& root, const char* key,
               const std::string& what, std::vector<std::string> keys) {
  r.require_map(root, "(top level)");
  if (!root[key] || r.scalar(root[key], key) != "1") {
    r.fail(root[key] ? root[key] : root, key,
           "not " + what + " of this version (valid: 1; docs/app-models.md)");
  }
  keys.insert(keys.begin(), key);
  r.check_keys(root, "(top level)", keys);
}

bool is_name(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (const char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

}  // namespace

forecast::AppModel parse_app_model(const std::string& text, const std::string& file) {
  const YamlReader r(file);
  const YAML::Node root = r.load_string(text);
  return rethrow_yaml_errors(file, [&] {
    forecast::AppModel m;
    check_top(r, root, "colltune_app", "an application model",
              {"name", "vars", "groups", "blocks"});
    if (root["name"]) m.name = r.scalar(root["name"], "name");
    std::set<std::string> scope = {"P"};
    if (root["vars"]) {
      r.require_map(root["vars"], "vars");
      for (const auto& kv : root["vars"]) {
        const std::string name = kv.first.as<std::string>();
        if (!is_name(name) || name == "P" || name == "member") {
          r.fail(kv.first, "vars",
                 "'" + name + "' is not a variable name (letters, digits, _; not P or member)");
        }
        const std::string v = r.scalar(kv.second, "vars." + name);
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end || !std::isfinite(x)) {
          r.fail(kv.second, "vars." + name, "'" + v + "' is not a number");
        }
        m.vars[name] = x;
        scope.insert(name);
      }
    }
    if (!root["groups"]) r.fail(root, "groups", "absent (a list of {label, count})");
    r.require_seq(root["groups"], "groups");
    AppReader a{r, m, {}};
    for (const YAML::Node& g : root["groups"]) {
      r.require_map(g, "groups");
      r.check_keys(g, "groups", {"label", "count", "on"});
      if (!g["label"]) r.fail(g, "groups.label", "absent");
      const std::string label = r.scalar(g["label"], "groups.label");
      if (!is_name(label) || scope.count(label) || label == "member") {
        r.fail(g["label"], "groups.label",
               "'" + label + "' is not a new name (letters, digits, _)");
      }
      if (!g["count"]) r.fail(g, "groups.count", "absent");
      // A group's count may use P, the variables and the groups before it.
      m.groups.push_back({label, a.expr(g["count"], "groups." + label + ".count", scope), {}});
      if (g["on"]) {
        r.require_seq(g["on"], "groups." + label + ".on");
        for (const YAML::Node& id : g["on"]) {
          m.groups.back().on.push_back(r.scalar(id, "groups." + label + ".on"));
        }
        if (m.groups.back().on.empty()) {
          r.fail(g["on"], "groups." + label + ".on", "empty (table identities, or no on)");
        }
      }
      a.labels.push_back(label);
      scope.insert(label);
    }
    if (m.groups.empty()) r.fail(root["groups"], "groups", "empty (at least one group)");
    if (!root["blocks"]) r.fail(root, "blocks", "absent (the code, a list of blocks)");
    m.blocks = a.blocks(root["blocks"], "blocks", scope);
    return m;
  });
}

forecast::AppModel read_app_model(const std::string& file) {
  const MappedString text = read_text_file(file);
  return parse_app_model(std::string(text.data(), text.size()), file);
}

forecast::NodeSpec parse_node_spec(const std::string& text, const std::string& file) {
  const YamlReader r(file);
  const YAML::Node root = r.load_string(text);
  return rethrow_yaml_errors(file, [&] {
    forecast::NodeSpec s;
    check_top(r, root, "colltune_node", "a node file", {"source", "merpsys", "power", "lambda"});
    s.source = file + (root["source"] ? ": " + r.scalar(root["source"], "source") : "");
    auto real = [&](const YAML::Node& n, const std::string& field, bool positive) {
      if (!n) r.fail(n, field, "absent");
      const std::string v = r.scalar(n, field);
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end || !std::isfinite(x) || (positive && x < 0)) {
        r.fail(n, field,
               "'" + v + "' is not a" + std::string(positive ? " non-negative" : "") + " number");
      }
      return x;
    };
    if (const YAML::Node mp = root["merpsys"]) {
      r.require_map(mp, "merpsys");
      const std::vector<std::string> lins = {"p2p",      "bcast",   "scatter", "gather",
                                             "alltoall", "barrier", "read",    "write"};
      std::vector<std::string> keys = {"P_low", "P_hi", "T_min", "T_low", "T_hi", "K_hi", "D_tu"};
      keys.insert(keys.end(), lins.begin(), lins.end());
      r.check_keys(mp, "merpsys", keys);
      forecast::Merpsys& c = s.merpsys;
      constexpr double us = 1e-6;  // the paper's Table 3 units: microseconds
      if (mp["T_min"]) {
        c.P_low = real(mp["P_low"], "merpsys.P_low", true);
        c.P_hi = real(mp["P_hi"], "merpsys.P_hi", true);
        c.T_min = real(mp["T_min"], "merpsys.T_min", true) * us;
        c.T_low = real(mp["T_low"], "merpsys.T_low", true) * us;
        c.T_hi = real(mp["T_hi"], "merpsys.T_hi", false) * us;
        c.K_hi = real(mp["K_hi"], "merpsys.K_hi", false) * us;
        c.compute_given = true;
      }
      c.D_tu = mp["D_tu"] ? real(mp["D_tu"], "merpsys.D_tu", true) : 1;
      forecast::Linear* dst[] = {&c.p2p,      &c.bcast,   &c.scatter, &c.gather,
                                 &c.alltoall, &c.barrier, &c.read,    &c.write};
      for (std::size_t k = 0; k < lins.size(); ++k) {
        const YAML::Node l = mp[lins[k]];
        if (!l) continue;
        const std::string f = "merpsys." + lins[k];
        r.require_map(l, f);
        r.check_keys(l, f, {"T", "K"});
        dst[k]->T = real(l["T"], f + ".T", false) * us;
        dst[k]->K = real(l["K"], f + ".K", false) * us;
      }
    }
    if (const YAML::Node pw = root["power"]) {
      r.require_map(pw, "power");
      r.check_keys(pw, "power", {"P_low", "P_hi", "PW_low", "KW_low", "PW_hi", "KW_hi", "PW_max"});
      forecast::Power& p = s.power;
      p.P_low = real(pw["P_low"], "power.P_low", true);
      p.P_hi = real(pw["P_hi"], "power.P_hi", true);
      p.PW_low = real(pw["PW_low"], "power.PW_low", true);
      p.KW_low = real(pw["KW_low"], "power.KW_low", true);
      p.PW_hi = real(pw["PW_hi"], "power.PW_hi", true);
      p.KW_hi = real(pw["KW_hi"], "power.KW_hi", true);
      p.PW_max = real(pw["PW_max"], "power.PW_max", true);
      if (p.P_hi < p.P_low) r.fail(pw["P_hi"], "power.P_hi", "below P_low");
      s.has_power = true;
    }
    if (root["lambda"]) s.lambda = real(root["lambda"], "lambda", true);
    return s;
  });
}

std::string emit_node_spec(const forecast::NodeSpec& s, const std::string& note) {
  YAML::Emitter out;
  out.SetDoublePrecision(9);
  if (!note.empty()) out << YAML::Comment(note);
  out << YAML::BeginMap;
  out << YAML::Key << "colltune_node" << YAML::Value << 1;
  const auto colon = s.source.find(": ");
  out << YAML::Key << "source" << YAML::Value
      << (colon == std::string::npos ? s.source : s.source.substr(colon + 2));
  const forecast::Merpsys& c = s.merpsys;
  constexpr double us = 1e6;
  out << YAML::Key << "merpsys" << YAML::Value << YAML::BeginMap;
  if (c.compute_given) {
    out << YAML::Key << "P_low" << YAML::Value << c.P_low << YAML::Key << "P_hi" << YAML::Value
        << c.P_hi << YAML::Key << "T_min" << YAML::Value << c.T_min * us << YAML::Key << "T_low"
        << YAML::Value << c.T_low * us << YAML::Key << "T_hi" << YAML::Value << c.T_hi * us
        << YAML::Key << "K_hi" << YAML::Value << c.K_hi * us;
  }
  out << YAML::Key << "D_tu" << YAML::Value << c.D_tu;
  const std::pair<const char*, const forecast::Linear*> lins[] = {
      {"p2p", &c.p2p},       {"bcast", &c.bcast},       {"scatter", &c.scatter},
      {"gather", &c.gather}, {"alltoall", &c.alltoall}, {"barrier", &c.barrier},
      {"read", &c.read},     {"write", &c.write}};
  for (const auto& [name, l] : lins) {
    if (!l->given()) continue;
    out << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "T"
        << YAML::Value << l->T * us << YAML::Key << "K" << YAML::Value << l->K * us << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (s.has_power) {
    const forecast::Power& p = s.power;
    out << YAML::Key << "power" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "P_low" << YAML::Value << p.P_low << YAML::Key << "P_hi" << YAML::Value
        << p.P_hi << YAML::Key << "PW_low" << YAML::Value << p.PW_low << YAML::Key << "KW_low"
        << YAML::Value << p.KW_low << YAML::Key << "PW_hi" << YAML::Value << p.PW_hi << YAML::Key
        << "KW_hi" << YAML::Value << p.KW_hi << YAML::Key << "PW_max" << YAML::Value << p.PW_max;
    out << YAML::EndMap;
  }
  if (s.lambda > 0) out << YAML::Key << "lambda" << YAML::Value << s.lambda;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

namespace {

void emit_blocks(YAML::Emitter& out, const forecast::AppModel& m, const std::vector<Block>& bs) {
  out << YAML::BeginSeq;
  for (const Block& b : bs) {
    out << YAML::BeginMap << YAML::Key << kKinds[b.kind] << YAML::Value;
    if (b.kind == Block::kLoop) {
      out << YAML::BeginMap << YAML::Key << "count" << YAML::Value << b.count.text();
      if (!b.var.empty()) out << YAML::Key << "var" << YAML::Value << b.var;
      out << YAML::Key << "do" << YAML::Value;
      emit_blocks(out, m, b.body);
      out << YAML::EndMap << YAML::EndMap;
      continue;
    }
    out << YAML::Flow << YAML::BeginMap;
    auto field = [&](const char* key, const Expr& e) {
      if (!e.empty()) out << YAML::Key << key << YAML::Value << e.text();
    };
    if (b.kind == Block::kSend) {
      out << YAML::Key << "from" << YAML::Value << m.groups[b.from].label << YAML::Key << "to"
          << YAML::Value << m.groups[b.to].label;
    }
    field("flops", b.flops);
    field("seconds", b.seconds);
    field("threads", b.threads);
    field("working_set", b.working_set);
    if (!b.offsets.empty()) {
      out << YAML::Key << "offsets" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const Expr& o : b.offsets) out << o.text();
      out << YAML::EndSeq;
    }
    field("bytes", b.bytes);
    field("root", b.root);
    field("split", b.split);
    field("count", b.count);  // exchange
    field("comm", b.comm);
    if (!b.groups.empty()) {
      out << YAML::Key << "groups" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const int g : b.groups) out << m.groups[g].label;
      out << YAML::EndSeq;
    }
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

}  // namespace

std::string emit_app_model(const forecast::AppModel& m, const std::string& note) {
  YAML::Emitter out;
  if (!note.empty()) out << YAML::Comment(note);
  out << YAML::BeginMap;
  out << YAML::Key << "colltune_app" << YAML::Value << 1;
  if (!m.name.empty()) out << YAML::Key << "name" << YAML::Value << m.name;
  if (!m.vars.empty()) {
    out << YAML::Key << "vars" << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : m.vars) out << YAML::Key << k << YAML::Value << v;
    out << YAML::EndMap;
  }
  out << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
  for (const forecast::Group& g : m.groups) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "label" << YAML::Value << g.label
        << YAML::Key << "count" << YAML::Value << g.count.text();
    if (!g.on.empty()) out << YAML::Key << "on" << YAML::Value << YAML::Flow << g.on;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "blocks" << YAML::Value;
  emit_blocks(out, m, m.blocks);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

forecast::NodeSpec read_node_spec(const std::string& file) {
  const MappedString text = read_text_file(file);
  return parse_node_spec(std::string(text.data(), text.size()), file);
}

}  // namespace colltune

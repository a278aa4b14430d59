#include "selection.hpp"

#include "settings.hpp"

namespace colltune {

Decisions::Decisions(std::vector<Segment> segments)
    : segments_(std::move(segments)),
      logged_(new std::atomic<bool>[segments_.size()]),
      verified_(new Verification[segments_.size()]) {
  for (std::size_t i = 0; i < segments_.size(); ++i) logged_[i] = false;
}

bool rule_matches_comm(const Rule& r, const CommFacts& f) {
  if (!r.comm_size.contains(static_cast<std::uint64_t>(f.size))) return false;
  if (r.uses_topology) {
    if (f.nodes <= 0 || f.ppn <= 0) return false;
    if (!r.nodes.contains(static_cast<std::uint64_t>(f.nodes))) return false;
    if (!r.ppn.contains(static_cast<std::uint64_t>(f.ppn))) return false;
  }
  return true;
}

Decisions resolve(Op op, const CommFacts& facts, const Algorithm* forced, const AdminConfig* config,
                  const ModelTable* table, const std::vector<Segment>* model) {
  std::vector<Segment> segs;
  const std::string env(algorithm_variable(op));
  if (forced) {
    segs.push_back(
        {Range{}, -1, forced, "forced by " + env + "=" + std::string(forced->name), nullptr});
    return Decisions(std::move(segs));
  }
  if (config) {
    int index = 0;
    for (const Rule& r : config->rules) {
      if (r.op == op && rule_matches_comm(r, facts)) {
        segs.push_back({r.bytes, r.root ? *r.root : -1, r.algorithm,
                        "admin rule rules[" + std::to_string(index) + "] at " + config->file + ":" +
                            std::to_string(r.line),
                        nullptr});
      }
      ++index;
    }
  }
  if (model) {
    segs.insert(segs.end(), model->begin(), model->end());
  } else if (table) {
    for (const SizeEntry& e : table->decisions[static_cast<int>(op)]) {
      if (!e.comm_size.contains(static_cast<std::uint64_t>(facts.size))) continue;
      for (const ByteRule& b : e.bytes) {
        segs.push_back({b.bytes, -1, b.algorithm,
                        "model table " + table->file + " (comm_size " +
                            range_to_string(e.comm_size) + ", bytes " + range_to_string(b.bytes) +
                            ")",
                        nullptr});
      }
      break;
    }
  }
  segs.push_back({Range{}, -1, &native_algorithm(op), "default (no rule or table entry)", nullptr});
  return Decisions(std::move(segs));
}

}  // namespace colltune

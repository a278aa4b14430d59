#include "trees.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace colltune::model {

LmoTreeCosts::LmoTreeCosts(const LmoParams& p, std::span<const int> members)
    : p_(p), members_(members) {
  for (const int i : members) {
    c_.push_back(p.C[i].value);
    t_.push_back(p.t[i].value);
    o_.push_back(p.busy(i));
    u_.push_back(p.u(i));
    u_in_.push_back(p.u_in(i));
    host_.push_back(p.rank_host(i, static_cast<int>(host_.size())));
  }
}

double LmoTreeCosts::occupy(int from, double m) const {
  return std::max(o_[from] + t_[from] * m, u_[from] * m);
}

double LmoTreeCosts::deliver(int from, int to, double m) const {
  // LmoParams::p2p(i, j, m) on the gathered per-rank costs (builds call this n log n times).
  const double ib = p_.ib(members_[from], members_[to]);
  return std::max(c_[from] + t_[from] * m + m * ib + c_[to] + t_[to] * m,
                  c_[from] + c_[to] + std::max(u_[from], u_in_[to]) * m);
}

int size_class(double bytes) {
  int c = 0;
  while (c + 1 < kSizeClasses && bytes >= static_cast<double>(class_start(c + 1))) ++c;
  return c;
}

std::uint64_t class_start(int size_class) {
  constexpr std::uint64_t kStart[kSizeClasses] = {0, 1024, 32768, 1048576};
  return kStart[std::clamp(size_class, 0, kSizeClasses - 1)];
}

double class_size(int size_class) {
  constexpr double kSize[kSizeClasses] = {128, 8192, 262144, 4194304};
  return kSize[std::clamp(size_class, 0, kSizeClasses - 1)];
}

std::shared_ptr<const BuiltTree> build_tree(const Algorithm& alg, const LmoParams& p,
                                            std::span<const int> members, int root, double m) {
  return build_tree(alg, LmoTreeCosts(p, members), root, m);
}

std::shared_ptr<const BuiltTree> build_tree(const Algorithm& alg, const LmoTreeCosts& costs,
                                            int root, double m) {
  return std::make_shared<const BuiltTree>(alg.build(costs, root, class_size(size_class(m))));
}

double predict_built(Op op, const BuiltTree& tree, const Layout& l, const LmoParams& p, double m) {
  const double s = static_cast<double>(tree.segment_for(static_cast<std::uint64_t>(std::ceil(m))));
  if (s == 0) return predict(op, l, p, m);
  return op == Op::kGather ? predict_paced(l, p, m, s) : predict_pipelined(l, p, m, s);
}

bool builds_its_stand_in(const Algorithm& alg, const LmoParams& p, std::span<const int> members) {
  const Algorithm* like = find_algorithm(alg.op, alg.like);
  if (!alg.build || !like || !like->shape || members.empty()) return false;
  std::vector<int> rank_of_pos(members.size());
  for (std::size_t r = 0; r < rank_of_pos.size(); ++r) rank_of_pos[r] = static_cast<int>(r);
  const BuiltTree ref = lay_out(*like->shape, rank_of_pos);
  const LmoTreeCosts costs(p, members);
  for (int c = 0; c < kSizeClasses; ++c) {
    const BuiltTree t = alg.build(costs, 0, class_size(c));
    if (t.segment != 0 || !t.segment_from.empty() || t.parent != ref.parent ||
        t.first != ref.first || t.kids != ref.kids || t.rank != ref.rank) {
      return false;
    }
  }
  return true;
}

namespace {

// n alike processes (5 us, 1 ns/B, 1 GB/s links), members 0..n-1: the costs of trees built
// without a model.
struct Alike {
  LmoParams p;
  std::vector<int> members;
  explicit Alike(int n) : p(LmoParams::uniform(n, 5e-6, 1e-9, 1e-9)), members(n) {
    for (int r = 0; r < n; ++r) members[r] = r;
  }
};

}  // namespace

bool stand_in_without_escalations(const Algorithm& alg, int n) {
  const Alike alike(n);
  return builds_its_stand_in(alg, alike.p, alike.members);
}

std::shared_ptr<const BuiltTree> build_tree_uniform(const Algorithm& alg, int n, int root, double m,
                                                    std::span<const int> hosts) {
  Alike alike(n);
  alike.p.M1 = kUniformEscalation;
  if (static_cast<int>(hosts.size()) == n) alike.p.host.assign(hosts.begin(), hosts.end());
  return build_tree(alg, alike.p, alike.members, root, m);
}

}  // namespace colltune::model

#include "lmo.hpp"

#include <algorithm>
#include <utility>

namespace colltune::model {

LmoParams LmoParams::uniform(int n, double c, double t, double inv_beta) {
  LmoParams p;
  p.C.assign(n, {c, 0});
  p.t.assign(n, {t, 0});
  p.inv_beta.assign(static_cast<std::size_t>(n) * n, {inv_beta, 0});
  return p;
}

double one_to_two_time(double s_i, double c_i, double rt_j, double rt_k) {
  const double a_j = rt_j - c_i, a_k = s_i + rt_k - c_i;
  return std::max(std::max(2 * s_i, std::min(a_j, a_k)) + c_i, std::max(a_j, a_k)) + c_i;
}

double LmoParams::one_to_two(int i, int j, int k, double m) const {
  return one_to_two_time(C[i].value + t[i].value * m, C[i].value, roundtrip(i, j, m),
                         roundtrip(i, k, m));
}

namespace {

struct Node {
  int vr;
  double ready;  // top-down: when its data has arrived
};

double predict_top_down(Op op, const Shape& s, const LmoParams& p, std::span<const int> members,
                        int root, double m) {
  const int n = static_cast<int>(members.size());
  auto id = [&](int vr) { return members[(vr + root) % n]; };
  double end = 0;
  std::vector<Node> stack = {{0, 0.0}};
  while (!stack.empty()) {
    const Node node = stack.back();
    stack.pop_back();
    const int from = id(node.vr);
    const double cf = p.C[from].value, tf = p.t[from].value;
    double sender = node.ready;  // when this process's sender side is free
    // Above S: every sender cost first, then the transfers one after another (docs/model.md).
    std::vector<std::pair<int, int>> kids;
    for_each_child(s, node.vr, n, [&](int c, int csub) { kids.emplace_back(c, csub); });
    for (const auto& [c, csub] : kids) {
      const double mc = op == Op::kScatter ? csub * m : m;
      sender += cf + tf * mc;
      if (mc > p.S) continue;
      const int to = id(c);
      const double arrive = sender + mc * p.ib(from, to) + p.C[to].value + p.t[to].value * mc;
      stack.push_back({c, arrive});
      end = std::max(end, arrive);
    }
    double link = sender;
    for (const auto& [c, csub] : kids) {
      const double mc = op == Op::kScatter ? csub * m : m;
      if (mc <= p.S) continue;
      const int to = id(c);
      link += mc * p.ib(from, to) + p.C[to].value + p.t[to].value * mc;
      stack.push_back({c, link});
      end = std::max(end, link);
    }
    end = std::max(end, sender);
  }
  return end;
}

// Bottom-up: when process vr has processed every child's message (its subtree is complete).
double predict_gather(const Shape& s, const LmoParams& p, std::span<const int> members, int root,
                      double m, int vr) {
  const int n = static_cast<int>(members.size());
  auto id = [&](int r) { return members[(r + root) % n]; };
  const int me = id(vr);
  std::vector<std::pair<double, int>> arrivals;  // (time on the wire's far end, child)
  for_each_child(s, vr, n, [&](int c, int csub) {
    const double child_done = predict_gather(s, p, members, root, m, c);
    const int from = id(c);
    const double mc = csub * m;
    const double sent = child_done + p.C[from].value + p.t[from].value * mc;
    arrivals.emplace_back(sent + mc * p.ib(from, me), c);
  });
  std::sort(arrivals.begin(), arrivals.end());
  double proc = 0, link = 0;
  for (const auto& [at, c] : arrivals) {
    const double mc = s.subtree(c, n) * m;
    double in = at;
    if (mc > p.M2) {  // large messages share this process's link one after another
      const double wire = mc * p.ib(id(c), me);
      link = std::max(link, at - wire) + wire;
      in = link;
    }
    proc = std::max(proc, in) + p.C[me].value + p.t[me].value * mc;
  }
  return proc;
}

}  // namespace

double predict(Op op, const Shape& shape, const LmoParams& p, std::span<const int> members,
               int root, double m) {
  if (members.size() <= 1 || m <= 0) return 0;
  if (op != Op::kGather) return predict_top_down(op, shape, p, members, root, m);
  const double done = predict_gather(shape, p, members, root, m, 0);
  const double kappa = m < p.M1 ? p.kappa1 : m > p.M2 ? p.kappa2 : 0;
  return done + kappa * m;
}

}  // namespace colltune::model

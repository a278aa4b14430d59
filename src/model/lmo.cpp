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

// members[(vr + root) % n] without a division (vr, root < n).
inline int member(std::span<const int> members, int root, int vr) {
  const int n = static_cast<int>(members.size());
  const int r = vr + root;
  return members[r < n ? r : r - n];
}

// O(n) per call, no allocation once the thread's scratch has grown (decisions at 1024 ranks
// build in well under 1 ms: bench/decision_build.cpp).
double predict_top_down(Op op, const Shape& s, const LmoParams& p, std::span<const int> members,
                        int root, double m) {
  const int n = static_cast<int>(members.size());
  thread_local std::vector<Node> stack;
  stack.clear();
  stack.push_back({0, 0.0});
  double end = 0;
  while (!stack.empty()) {
    const Node node = stack.back();
    stack.pop_back();
    const int from = member(members, root, node.vr);
    const double cf = p.C[from].value, tf = p.t[from].value;
    double sender = node.ready;  // when this process's sender side is free
    // Above S: every sender cost first, then the transfers one after another (docs/model.md).
    bool serialized = false;
    for_each_child(s, node.vr, n, [&](int c, int csub) {
      const double mc = op == Op::kScatter ? csub * m : m;
      sender += cf + tf * mc;
      if (mc > p.S) {
        serialized = true;
        return;
      }
      const int to = member(members, root, c);
      const double arrive = sender + mc * p.ib(from, to) + p.C[to].value + p.t[to].value * mc;
      stack.push_back({c, arrive});
      end = std::max(end, arrive);
    });
    if (serialized) {
      double link = sender;
      for_each_child(s, node.vr, n, [&](int c, int csub) {
        const double mc = op == Op::kScatter ? csub * m : m;
        if (mc <= p.S) return;
        const int to = member(members, root, c);
        link += mc * p.ib(from, to) + p.C[to].value + p.t[to].value * mc;
        stack.push_back({c, link});
        end = std::max(end, link);
      });
    }
    end = std::max(end, sender);
  }
  return end;
}

struct Arrival {
  double at;  // time on the wire's far end
  int child, subtree;
  bool operator<(const Arrival& o) const { return at < o.at || (at == o.at && child < o.child); }
};

// Bottom-up: when process vr has processed every child's message (its subtree is complete).
// `scratch` is a stack: each call uses the part above where it found the end, then pops it.
double predict_gather(const Shape& s, const LmoParams& p, std::span<const int> members, int root,
                      double m, int vr, std::vector<Arrival>& scratch) {
  const int n = static_cast<int>(members.size());
  const int me = member(members, root, vr);
  const std::size_t base = scratch.size();
  for_each_child(s, vr, n, [&](int c, int csub) {
    const double child_done = predict_gather(s, p, members, root, m, c, scratch);
    const int from = member(members, root, c);
    const double mc = csub * m;
    const double sent = child_done + p.C[from].value + p.t[from].value * mc;
    scratch.push_back({sent + mc * p.ib(from, me), c, csub});
  });
  std::sort(scratch.begin() + static_cast<std::ptrdiff_t>(base), scratch.end());
  double proc = 0, link = 0;
  for (std::size_t i = base; i < scratch.size(); ++i) {
    const Arrival& a = scratch[i];
    const double mc = a.subtree * m;
    double in = a.at;
    if (mc > p.M2) {  // large messages share this process's link one after another
      const double wire = mc * p.ib(member(members, root, a.child), me);
      link = std::max(link, a.at - wire) + wire;
      in = link;
    }
    proc = std::max(proc, in) + p.C[me].value + p.t[me].value * mc;
  }
  scratch.resize(base);
  return proc;
}

}  // namespace

double predict(Op op, const Shape& shape, const LmoParams& p, std::span<const int> members,
               int root, double m) {
  if (members.size() <= 1 || m <= 0) return 0;
  if (op != Op::kGather) return predict_top_down(op, shape, p, members, root, m);
  thread_local std::vector<Arrival> scratch;
  scratch.clear();
  const double done = predict_gather(shape, p, members, root, m, 0, scratch);
  const double kappa = m < p.M1 ? p.kappa1 : m > p.M2 ? p.kappa2 : 0;
  return done + kappa * m;
}

}  // namespace colltune::model

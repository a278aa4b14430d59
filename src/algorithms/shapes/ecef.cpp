// ecef (bcast): earliest completing edge first on the model's costs, in O(n log n). Receivers
// are taken fastest first (their own sending time plus their delivery from the root: the
// fastest-node-first order); each is served by whichever of the kLook earliest-free senders
// delivers it first. A sender is free again `occupy` after each send; a receiver becomes a
// sender when its message has arrived. A slow root thus sends once, to a fast relay.
#include <algorithm>
#include <queue>

#include "shapes.hpp"

namespace colltune {

namespace {
constexpr int kLook = 4;  // senders compared per receiver
}

BuiltTree kBuild_ecef(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  using Free = std::pair<double, int>;  // (when the sender can start its next send, rank)
  std::priority_queue<Free, std::vector<Free>, std::greater<>> senders;
  senders.push({0.0, root});
  std::vector<std::vector<int>> children(n);
  std::vector<Free> looked;
  for (const int j : fastest_first(c, root, m)) {
    looked.clear();
    for (int k = 0; k < kLook && !senders.empty(); ++k) {
      looked.push_back(senders.top());
      senders.pop();
    }
    std::size_t best = 0;
    double arrive = looked[0].first + c.deliver(looked[0].second, j, m);
    for (std::size_t k = 1; k < looked.size(); ++k) {
      const double a = looked[k].first + c.deliver(looked[k].second, j, m);
      if (a < arrive) arrive = a, best = k;
    }
    const int from = looked[best].second;
    children[from].push_back(j);
    looked[best].first += c.occupy(from, m);
    for (const Free& f : looked) senders.push(f);
    senders.push({arrive, j});
  }
  return lay_out(root, children);
}

}  // namespace colltune

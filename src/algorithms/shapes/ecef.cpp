// ecef (bcast): earliest completing edge first on the model's costs, in O(n log n). Receivers
// are taken fastest first (their own sending time plus their delivery from the root: the
// fastest-node-first order); each is served by whichever of the kLook earliest-free senders
// delivers it first. A sender is free again `occupy` after each send; a receiver becomes a
// sender when its message has arrived. A slow root thus sends once, to a fast relay.
#include <algorithm>
#include <array>
#include <vector>

#include "shapes.hpp"

namespace colltune {

namespace {
constexpr int kLook = 4;  // senders compared per receiver

using Free = std::pair<double, int>;  // (when the sender can start its next send, rank)

bool earlier(const Free& x, const Free& y) {
  return x.first < y.first || (x.first == y.first && x.second < y.second);
}

// Restores the min-heap below entry i after its time grew: the hole moves down to where it
// belongs, the smaller child taking its place at each level.
void sift_down(std::vector<Free>& heap, std::size_t i) {
  const std::size_t n = heap.size();
  const Free x = heap[i];
  for (std::size_t c = 2 * i + 1; c < n; c = 2 * i + 1) {
    if (c + 1 < n && earlier(heap[c + 1], heap[c])) ++c;
    if (!earlier(heap[c], x)) break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = x;
}

}  // namespace

BuiltTree kBuild_ecef(const TreeCosts& c, int root, double m) {
  const int n = c.size();
  // A binary min-heap of (when the sender can start its next send, rank). Its kLook earliest
  // entries are found by walking down from the top (at most kLook + 1 candidates at a time);
  // each receiver then costs one sift down (the chosen sender's later time) and one sift up
  // (the receiver, a sender once it has arrived).
  std::vector<Free> heap = {{0.0, root}};
  heap.reserve(n);
  std::vector<std::pair<int, int>> edges;  // (sender, receiver) in issue order
  edges.reserve(n);
  std::array<std::size_t, kLook> top{};
  std::array<std::size_t, kLook + 1> frontier{};
  for (const int j : fastest_first(c, root, m)) {
    std::size_t looked = 0, open = 1;
    frontier[0] = 0;
    for (; looked < kLook && open > 0; ++looked) {
      std::size_t b = 0;
      for (std::size_t k = 1; k < open; ++k) {
        if (earlier(heap[frontier[k]], heap[frontier[b]])) b = k;
      }
      const std::size_t i = frontier[b];
      frontier[b] = frontier[--open];
      top[looked] = i;
      for (std::size_t ch = 2 * i + 1; ch <= 2 * i + 2 && ch < heap.size(); ++ch) {
        frontier[open++] = ch;
      }
    }
    // The earliest-free senders in order; the first that delivers j earliest serves it.
    std::size_t best = top[0];
    double arrive = heap[best].first + c.deliver(heap[best].second, j, m);
    for (std::size_t k = 1; k < looked; ++k) {
      const double a = heap[top[k]].first + c.deliver(heap[top[k]].second, j, m);
      if (a < arrive) arrive = a, best = top[k];
    }
    const int from = heap[best].second;
    edges.push_back({from, j});
    heap[best].first += c.occupy(from, m);
    sift_down(heap, best);
    heap.push_back({arrive, j});
    std::push_heap(heap.begin(), heap.end(),
                   [](const Free& x, const Free& y) { return earlier(y, x); });
  }
  return lay_out(n, root, edges);
}

}  // namespace colltune

#include "to_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

namespace colltune::forecast {
namespace {

// What one rank does between two of its other items: a computation, a run of point-to-point
// actions, or a collective.
struct Item {
  enum Kind { kCompute, kExchange, kCollective } kind = kCompute;
  double seconds = 0;
  std::vector<std::pair<int, double>> sends, recvs;  // (peer - rank, bytes)
  TraceAction coll;
};

// The median computation of the run (those above 10 us): a computation shorter than 50% of
// it between two messages, or than 5% of it anywhere, is the MPI's own work (at least 10 us).
double median_of(const std::vector<std::vector<TraceAction>>& traces, double scale) {
  std::vector<double> v;
  for (const auto& tr : traces) {
    for (const TraceAction& a : tr) {
      if (a.kind == TraceAction::kCompute && a.flops / 1e9 * scale > 1e-5) {
        v.push_back(a.flops / 1e9 * scale);
      }
    }
  }
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

bool p2p(TraceAction::Kind k) {
  return k == TraceAction::kSend || k == TraceAction::kIsend || k == TraceAction::kRecv ||
         k == TraceAction::kIrecv || k == TraceAction::kWait;
}

std::vector<Item> items_of(const std::vector<TraceAction>& tr, int rank, double scale,
                           double kOverhead, double kInside) {
  std::vector<Item> out;
  for (std::size_t k = 0; k < tr.size(); ++k) {
    const TraceAction& a = tr[k];
    if (a.kind == TraceAction::kCompute) {
      const double s = a.flops / 1e9 * scale;
      // Short computations between two messages belong to the exchange.
      const bool inside = !out.empty() && out.back().kind == Item::kExchange && k + 1 < tr.size() &&
                          p2p(tr[k + 1].kind) && s < kInside;
      if (inside) continue;
      if (!out.empty() && out.back().kind == Item::kCompute) {
        out.back().seconds += s;
      } else {
        Item c;
        c.seconds = s;
        out.push_back(c);
      }
    } else if (p2p(a.kind)) {
      if (out.empty() || out.back().kind != Item::kExchange) {
        Item e;
        e.kind = Item::kExchange;
        out.push_back(e);
      }
      if (a.kind == TraceAction::kSend || a.kind == TraceAction::kIsend) {
        out.back().sends.push_back({a.peer - rank, a.bytes});
      } else if (a.kind == TraceAction::kRecv || a.kind == TraceAction::kIrecv) {
        out.back().recvs.push_back({a.peer - rank, a.bytes});
      }
    } else {
      if (a.members) {
        throw std::invalid_argument("rank " + std::to_string(rank) + ", its action " +
                                    std::to_string(k + 1) + ": a collective on " +
                                    std::to_string(a.members->size()) +
                                    " of the processes (a model's collectives span them all)");
      }
      Item c;
      c.kind = Item::kCollective;
      c.coll = a;
      out.push_back(c);
    }
  }
  // Computations too short to matter at either end go too.
  std::vector<Item> kept;
  for (const Item& i : out) {
    if (i.kind != Item::kCompute || i.seconds >= kOverhead) kept.push_back(i);
  }
  return kept;
}

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

[[noreturn]] void differ(int rank, std::size_t item, const std::string& what) {
  throw std::invalid_argument("rank " + std::to_string(rank) + ", its item " +
                              std::to_string(item + 1) + " (computations, message runs and " +
                              "collectives counted in order): " + what);
}

bool same(const Block& a, const Block& b);
bool same(const std::vector<Block>& a, const std::vector<Block>& b);
bool same(const std::vector<Block>& a, std::size_t i, std::size_t j, std::size_t p) {
  for (std::size_t k = 0; k < p; ++k) {
    if (!same(a[i + k], a[j + k])) return false;
  }
  return true;
}
bool same(const Block& a, const Block& b) {
  if (a.kind != b.kind || a.groups != b.groups || a.bytes.text() != b.bytes.text() ||
      a.root.text() != b.root.text() || a.count.text() != b.count.text() ||
      a.body.size() != b.body.size()) {
    return false;
  }
  if (a.offsets.size() != b.offsets.size()) return false;
  for (std::size_t k = 0; k < a.offsets.size(); ++k) {
    if (a.offsets[k].text() != b.offsets[k].text()) return false;
  }
  if (a.kind == Block::kCompute) {  // within 35%: the same computation, timed twice
    const double x = std::stod(a.seconds.text()), y = std::stod(b.seconds.text());
    return std::abs(x - y) <= 0.35 * std::max(x, y);
  }
  return a.body.empty() || same(a.body, b.body);
}

// Blocks i .. i + p - 1, k times: one loop whose computations are the copies' means.
Block fold_copies(const std::vector<Block>& v, std::size_t i, std::size_t p, std::size_t k);
void average_into(Block* into, const Block& b, double n) {
  if (into->kind == Block::kCompute) {
    into->seconds = Expr(num(std::stod(into->seconds.text()) + std::stod(b.seconds.text()) / n));
  }
  for (std::size_t q = 0; q < into->body.size(); ++q) average_into(&into->body[q], b.body[q], n);
}
void zero_compute(Block* b) {
  if (b->kind == Block::kCompute) b->seconds = Expr("0");
  for (Block& x : b->body) zero_compute(&x);
}
bool same(const std::vector<Block>& a, const std::vector<Block>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (!same(a[k], b[k])) return false;
  }
  return true;
}

Block fold_copies(const std::vector<Block>& v, std::size_t i, std::size_t p, std::size_t k) {
  Block loop;
  loop.kind = Block::kLoop;
  loop.count = Expr(std::to_string(k));
  loop.body.assign(v.begin() + i, v.begin() + i + p);
  for (Block& b : loop.body) zero_compute(&b);
  for (std::size_t c = 0; c < k; ++c) {
    for (std::size_t q = 0; q < p; ++q) average_into(&loop.body[q], v[i + c * p + q], k);
  }
  return loop;
}

// Folds tandem repeats into loops: one pass per period, the shortest first and left to right
// (so that every iteration's inner loop forms before the outer one is sought), again from the
// shortest after any pass that folded.
std::vector<Block> fold(std::vector<Block> v) {
  for (std::size_t p = 1; p <= std::min<std::size_t>(64, v.size() / 2);) {
    bool changed = false;
    for (std::size_t i = 0; i + 2 * p <= v.size(); ++i) {
      if (!same(v, i, i + p, p)) continue;
      std::size_t k = 2;
      while (i + (k + 1) * p <= v.size() && same(v, i, i + k * p, p)) ++k;
      const Block loop = fold_copies(v, i, p, k);
      v.erase(v.begin() + i, v.begin() + i + k * p);
      v.insert(v.begin() + i, loop);
      changed = true;
    }
    p = changed ? 1 : p + 1;
  }
  return v;
}

}  // namespace

AppModel model_of_trace(const std::vector<std::vector<TraceAction>>& traces, double compute_scale) {
  const int n = static_cast<int>(traces.size());
  if (n == 0) throw std::invalid_argument("no ranks");
  const double median = median_of(traces, compute_scale);
  const double kOverhead = std::max(1e-5, 0.05 * median), kInside = std::max(1e-5, 0.5 * median);
  std::vector<std::vector<Item>> items(n);
  for (int r = 0; r < n; ++r) items[r] = items_of(traces[r], r, compute_scale, kOverhead, kInside);
  // Every rank must have the same sequence of item kinds (computations may be absent where a
  // rank computes nothing: they are aligned between the other items).
  auto skeleton = [](const std::vector<Item>& v) {
    std::vector<Item> s;
    for (const Item& i : v) {
      if (i.kind != Item::kCompute) s.push_back(i);
    }
    return s;
  };
  std::vector<std::vector<Item>> sk(n);
  for (int r = 0; r < n; ++r) sk[r] = skeleton(items[r]);
  const std::vector<Item>& ref = sk[0];
  for (int r = 1; r < n; ++r) {
    const std::vector<Item>& s = sk[r];
    for (std::size_t k = 0; k < std::max(s.size(), ref.size()); ++k) {
      if (k >= s.size() || k >= ref.size() || s[k].kind != ref[k].kind) {
        differ(r, k, "not the same sequence of message runs and collectives as rank 0");
      }
      if (s[k].kind == Item::kCollective &&
          (s[k].coll.kind != ref[k].coll.kind || s[k].coll.bytes != ref[k].coll.bytes ||
           s[k].coll.root != ref[k].coll.root)) {
        differ(r, k, "a different collective from rank 0's");
      }
    }
  }
  // Computations per slot: slot k holds what each rank computes before skeleton item k (the
  // last slot: after the last item).
  const std::size_t slots = ref.size() + 1;
  std::vector<std::vector<double>> comp(slots, std::vector<double>(n, 0));
  for (int r = 0; r < n; ++r) {
    std::size_t k = 0;
    for (const Item& i : items[r]) {
      if (i.kind == Item::kCompute) {
        comp[k][r] += i.seconds;
      } else {
        ++k;
      }
    }
  }
  // Groups: runs of ranks that compute in the same slots and as much in all within 25%.
  std::vector<int> group_of(n, 0);
  std::vector<int> first{0};
  std::vector<double> total(n, 0);
  for (std::size_t k = 0; k < slots; ++k) {
    for (int r = 0; r < n; ++r) total[r] += comp[k][r];
  }
  for (int r = 1; r < n; ++r) {
    const int f = first.back();
    bool alike = std::abs(total[f] - total[r]) <= 0.25 * std::max(total[f], total[r]);
    for (std::size_t k = 0; k < slots && alike; ++k) {
      alike = (comp[k][f] >= kOverhead) == (comp[k][r] >= kOverhead);
    }
    if (!alike) first.push_back(r);
    group_of[r] = static_cast<int>(first.size()) - 1;
  }
  AppModel m;
  m.name = "recorded";
  const int groups = static_cast<int>(first.size());
  for (int g = 0; g < groups; ++g) {
    const int end = g + 1 < groups ? first[g + 1] : n;
    m.groups.push_back({"g" + std::to_string(g), Expr(std::to_string(end - first[g])), {}});
  }
  std::vector<Block> blocks;
  auto computations = [&](std::size_t k) {
    for (int g = 0; g < groups; ++g) {
      const int end = g + 1 < groups ? first[g + 1] : n;
      double s = 0;
      for (int r = first[g]; r < end; ++r) s += comp[k][r] / (end - first[g]);
      if (s < kOverhead) continue;
      Block b;
      b.kind = Block::kCompute;
      b.seconds = Expr(num(s));
      if (groups > 1) b.groups = {g};
      blocks.push_back(b);
    }
  };
  for (std::size_t k = 0; k < ref.size(); ++k) {
    computations(k);
    Block b;
    if (ref[k].kind == Item::kCollective) {
      const TraceAction& c = ref[k].coll;
      static const std::map<TraceAction::Kind, Block::Kind> kBlockOf = {
          {TraceAction::kBarrier, Block::kBarrier},     {TraceAction::kBcast, Block::kBcast},
          {TraceAction::kScatter, Block::kScatter},     {TraceAction::kGather, Block::kGather},
          {TraceAction::kAllreduce, Block::kAllreduce}, {TraceAction::kReduce, Block::kReduce},
          {TraceAction::kAlltoall, Block::kAlltoall}};
      b.kind = kBlockOf.at(c.kind);
      if (b.kind != Block::kBarrier) b.bytes = Expr(num(c.bytes));
      if ((b.kind == Block::kBcast || b.kind == Block::kScatter || b.kind == Block::kGather ||
           b.kind == Block::kReduce) &&
          c.root != 0) {
        b.root = Expr(std::to_string(c.root));
      }
    } else {
      // A neighbour exchange: every offset some rank sends at (in the order of the rank that
      // sends the most, then of the others), and then every rank r with r + o a rank must send
      // at o (the block sends from every rank at every offset) and receive only from r - o.
      int most = 0;
      for (int r = 0; r < n; ++r) {
        if (sk[r][k].sends.size() > sk[most][k].sends.size()) most = r;
      }
      std::vector<int> offsets;
      double bytes = 0;
      auto add = [&](int r) {
        for (const auto& [o, by] : sk[r][k].sends) {
          if (std::find(offsets.begin(), offsets.end(), o) == offsets.end()) offsets.push_back(o);
        }
      };
      add(most);
      for (int r = 0; r < n; ++r) add(r);
      for (int r = 0; r < n; ++r) {
        const Item& it = sk[r][k];
        for (const int o : offsets) {
          if (r + o < 0 || r + o >= n) continue;
          const bool sends = std::any_of(it.sends.begin(), it.sends.end(),
                                         [&](const auto& x) { return x.first == o; });
          if (!sends) {
            differ(r, k,
                   "does not send to rank " + std::to_string(r + o) +
                       " where other ranks send at offset " + std::to_string(o) +
                       " (valid: neighbour exchanges, every rank to rank + o)");
          }
        }
        for (const auto& [o, by] : it.sends) bytes = std::max(bytes, by);
        for (const auto& [o, by] : it.recvs) {
          if (std::find(offsets.begin(), offsets.end(), -o) == offsets.end()) {
            differ(r, k,
                   "receives from rank " + std::to_string(r + o) +
                       ", which sends to no offset of the exchange (valid: neighbour "
                       "exchanges, every rank from rank - o)");
          }
          bytes = std::max(bytes, by);
        }
      }
      b.kind = Block::kNeighbours;
      for (const int o : offsets) b.offsets.push_back(Expr(std::to_string(o)));
      b.bytes = Expr(num(bytes));
    }
    blocks.push_back(b);
  }
  computations(ref.size());
  m.blocks = fold(std::move(blocks));
  return m;
}

}  // namespace colltune::forecast

#include "comm.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

namespace colltune::forecast {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
std::size_t at(int n, int i, int j) { return static_cast<std::size_t>(i) * n + j; }
}  // namespace

int LinkGraph::find(const std::string& identity) const {
  const auto it = std::find(identities.begin(), identities.end(), identity);
  return it == identities.end() ? -1 : static_cast<int>(it - identities.begin());
}

const char* source_name(LinkSource s) {
  switch (s) {
    case LinkSource::kMeasured:
      return "measured";
    case LinkSource::kFilled:
      return "filled";
    case LinkSource::kCombined:
      return "combined";
    case LinkSource::kNone:
      break;
  }
  return "none";
}

LinkGraph graph_of(const model::PlatformModel& pm, std::span<const int> calibrated_ranks) {
  const model::LmoParams& p = pm.params;
  const int n = static_cast<int>(pm.identities.size());
  LinkGraph g;
  g.identities = pm.identities;
  g.fixed.assign(static_cast<std::size_t>(n) * n, 0);
  g.per_byte = g.fixed;
  g.measured.assign(g.fixed.size(), 1);
  g.known.assign(g.fixed.size(), 1);
  g.when.assign(g.fixed.size(), kNaN);
  std::vector<int> processes(n, 0);
  for (const int i : calibrated_ranks) {
    if (i >= 0 && i < n) ++processes[i];
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      g.fixed[at(n, i, j)] = p.C[i].value + p.C[j].value;
      g.per_byte[at(n, i, j)] =
          std::max({p.t[i].value + p.ib(i, j) + p.t[j].value, p.u(i), p.u_in(j)});
    }
    g.measured[at(n, i, i)] = processes[i] >= 2;
    g.send_fixed.push_back(p.busy(i));
    g.send_per_byte.push_back(p.t[i].value);
    g.port.push_back(p.u(i));
  }
  return g;
}

LinkGraph merge(std::span<const LinkGraph> graphs) {
  LinkGraph g;
  for (const LinkGraph& x : graphs) {
    for (const std::string& id : x.identities) {
      if (g.find(id) < 0) g.identities.push_back(id);
    }
  }
  const int n = g.size();
  g.fixed.assign(static_cast<std::size_t>(n) * n, 0);
  g.per_byte = g.fixed;
  g.measured.assign(g.fixed.size(), 0);
  g.known.assign(g.fixed.size(), 0);
  g.when.assign(g.fixed.size(), kNaN);
  g.send_fixed.assign(n, -1);
  g.send_per_byte.assign(n, 0);
  g.port.assign(n, 0);
  for (const LinkGraph& x : graphs) {
    std::vector<int> to(x.size());
    for (int i = 0; i < x.size(); ++i) to[i] = g.find(x.identities[i]);
    for (int i = 0; i < x.size(); ++i) {  // an identity's own costs: the first table's
      if (g.send_fixed[to[i]] >= 0 || x.send_fixed.empty()) continue;
      g.send_fixed[to[i]] = x.send_fixed[i];
      g.send_per_byte[to[i]] = x.send_per_byte[i];
      g.port[to[i]] = x.port[i];
    }
    for (int i = 0; i < x.size(); ++i) {
      for (int j = 0; j < x.size(); ++j) {
        const std::size_t a = at(n, to[i], to[j]), b = at(x.size(), i, j);
        const double xw = x.when.empty() ? kNaN : x.when[b];
        const bool newer = g.measured[a] && x.measured[b] && xw > g.when[a];  // NaN: never
        if (!x.known[b] || (g.measured[a] && !newer) || (g.known[a] && !x.measured[b])) continue;
        g.fixed[a] = x.fixed[b];
        g.per_byte[a] = x.per_byte[b];
        if (x.free_bytes(b) > 0) {
          g.free.resize(g.fixed.size(), 0);
          g.free[a] = x.free_bytes(b);
        } else if (!g.free.empty()) {
          g.free[a] = 0;
        }
        g.measured[a] = x.measured[b];
        g.known[a] = 1;
        g.when[a] = xw;
      }
    }
  }
  for (double& f : g.send_fixed) f = std::max(f, 0.0);
  return g;
}

namespace {

// Least fixed part from `from` to `to` over measured links of per-byte part at most w; the
// path (empty: none) and its largest per-byte part.
struct Path {
  double fixed = kInf, per_byte = 0;
  std::vector<int> hops;
};
Path least_fixed(const LinkGraph& g, int from, int to, double w) {
  const int n = g.size();
  std::vector<double> dist(n, kInf);
  std::vector<int> prev(n, -1);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  dist[from] = 0;
  q.push({0, from});
  while (!q.empty()) {
    const auto [d, u] = q.top();
    q.pop();
    if (d > dist[u]) continue;
    if (u == to) break;
    for (int v = 0; v < n; ++v) {
      const std::size_t e = at(n, u, v);
      if (v == u || !g.measured[e] || std::max(0.0, g.per_byte[e]) > w) continue;
      if (d + g.fixed[e] < dist[v]) {
        dist[v] = d + g.fixed[e];
        prev[v] = u;
        q.push({dist[v], v});
      }
    }
  }
  Path p;
  if (dist[to] == kInf) return p;
  p.fixed = dist[to];
  for (int v = to; v != -1; v = prev[v]) p.hops.push_back(v);
  std::reverse(p.hops.begin(), p.hops.end());
  for (std::size_t h = 1; h < p.hops.size(); ++h) {
    p.per_byte = std::max(p.per_byte, g.per_byte[at(n, p.hops[h - 1], p.hops[h])]);
  }
  return p;
}

}  // namespace

Link comm(const LinkGraph& g, int from, int to, double m) {
  const int n = g.size();
  Link l;
  if (from < 0 || to < 0 || from >= n || to >= n) return l;
  const std::size_t e = at(n, from, to);
  if (g.measured[e] || (from == to && g.known[e])) {
    l.fixed = g.fixed[e];
    l.per_byte = g.per_byte[e];
    l.free = g.free_bytes(e);
    l.source = g.measured[e] ? LinkSource::kMeasured : LinkSource::kFilled;
    l.path = {from, to};
    return l;
  }
  if (from == to) return l;
  // The distinct hop rates, increasing; the slowest rate that joins the two by bisection.
  std::vector<double> rates;
  for (std::size_t k = 0; k < g.measured.size(); ++k) {
    if (g.measured[k] && k / n != k % n) rates.push_back(std::max(0.0, g.per_byte[k]));
  }
  std::sort(rates.begin(), rates.end());
  rates.erase(std::unique(rates.begin(), rates.end()), rates.end());
  if (rates.empty() || least_fixed(g, from, to, rates.back()).hops.empty()) return l;
  std::size_t lo = 0, hi = rates.size() - 1;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (least_fixed(g, from, to, rates[mid]).hops.empty())
      lo = mid + 1;
    else
      hi = mid;
  }
  Path best;
  double best_time = kInf;
  // m = 0: the least fixed part over every measured link.
  for (std::size_t k = m > 0 ? lo : rates.size() - 1; k < rates.size(); ++k) {
    if (m * rates[k] >= best_time) break;  // the fixed part alone is at least 0
    Path p = least_fixed(g, from, to, rates[k]);
    const double time = p.fixed + m * p.per_byte;
    if (time < best_time) best_time = time, best = std::move(p);
  }
  l.fixed = best.fixed;
  l.per_byte = best.per_byte;
  l.free = kInf;  // the hop that frees the fewest bytes
  for (std::size_t h = 1; h < best.hops.size(); ++h) {
    l.free = std::min(l.free, g.free_bytes(at(n, best.hops[h - 1], best.hops[h])));
  }
  if (!(l.free < kInf)) l.free = 0;
  l.source = LinkSource::kCombined;
  l.path = std::move(best.hops);
  return l;
}

double send_eager(const LinkGraph& g, int from, int to, double m, double* clock, double* port,
                  Wire* wire, double* left) {
  const double leave = std::max(*clock, *port);
  if (left) *left = leave;
  *port = leave + g.port[from] * m;
  *clock += g.send_fixed[from] + g.send_per_byte[from] * m;
  const Link l = comm(g, from, to, m);
  wire->in = std::max(leave + l.at(m), wire->in + l.per_byte * m);
  return wire->in;
}

double take_in(const LinkGraph& g, int to, double m, double arrival, double* in_free) {
  *in_free = std::max(arrival, *in_free + g.send_per_byte[to] * std::max(0.0, m));
  return *in_free;
}

}  // namespace colltune::forecast

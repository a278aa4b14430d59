#include "links.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace colltune::forecast {

namespace {
std::size_t at(int n, int i, int j) { return static_cast<std::size_t>(i) * n + j; }
}  // namespace

void date_links(LinkGraph& g, double finished) {
  g.when.assign(g.fixed.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = 0; k < g.when.size(); ++k) {
    if (g.measured[k]) g.when[k] = finished;
  }
}

int apply(LinkGraph& g, std::span<const LinkMeasurement> links) {
  const int n = g.size();
  if (g.when.size() != g.fixed.size()) date_links(g, std::numeric_limits<double>::quiet_NaN());
  int applied = 0;
  for (const LinkMeasurement& l : links) {
    const int i = g.find(l.from), j = g.find(l.to);
    if (i < 0 || j < 0) continue;
    for (const std::size_t e : {at(n, i, j), at(n, j, i)}) {
      g.fixed[e] = l.fixed;
      g.per_byte[e] = l.per_byte;
      if (l.free_bytes > 0) g.free.resize(g.fixed.size(), 0);
      if (!g.free.empty()) g.free[e] = l.free_bytes;
      g.measured[e] = 1;
      g.known[e] = 1;
      g.when[e] = l.measured;
    }
    ++applied;
  }
  return applied;
}

int apply(model::PlatformModel& pm, std::span<const LinkMeasurement> links) {
  model::LmoParams& p = pm.params;
  const int n = p.size();
  int applied = 0;
  for (const LinkMeasurement& l : links) {
    const auto fi = std::find(pm.identities.begin(), pm.identities.end(), l.from);
    const auto fj = std::find(pm.identities.begin(), pm.identities.end(), l.to);
    if (fi == pm.identities.end() || fj == pm.identities.end()) continue;
    const int i = static_cast<int>(fi - pm.identities.begin());
    const int j = static_cast<int>(fj - pm.identities.begin());
    const double rate =
        l.bytes > 0 ? l.per_byte * std::max(0.0, l.bytes - l.free_bytes) / l.bytes : l.per_byte;
    // Negative where the hosts' own t_i + t_j exceed the link's rate, as calibration's fits
    // may leave it (docs/calibration.md); the message's per-byte time itself at least 0.
    const double ib = std::max(rate, 0.0) - p.t[i].value - p.t[j].value;
    p.inv_beta[at(n, i, j)].value = ib;
    p.inv_beta[at(n, j, i)].value = ib;
    ++applied;
  }
  return applied;
}

const model::PlatformModel& ModelAtSize::at(double m) {
  const int n = g_.size();
  if (g_.free.empty() || m <= 0 || n != static_cast<int>(pm_.identities.size())) return pm_;
  if (const auto it = sized_.find(m); it != sized_.end()) return it->second;
  if (sized_.size() >= 256) sized_.clear();  // a model each: bounded memory
  model::PlatformModel sized = pm_;
  model::LmoParams& p = sized.params;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const std::size_t k = static_cast<std::size_t>(i) * n + j;
      if (g_.free[k] <= 0) continue;
      const double rate = (g_.time(k, m) - g_.fixed[k]) / m;
      p.inv_beta[k].value = std::max(rate, 0.0) - p.t[i].value - p.t[j].value;
    }
  }
  return sized_.emplace(m, std::move(sized)).first->second;
}

double age(const LinkGraph& g, const Link& l, double now) {
  const int n = g.size();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (l.path.size() < 2 || g.when.empty()) return kInf;
  double oldest = kInf;
  for (std::size_t h = 1; h < l.path.size(); ++h) {
    const double w = g.when[at(n, l.path[h - 1], l.path[h])];
    if (std::isnan(w)) return kInf;
    oldest = std::min(oldest, w);
  }
  return std::max(0.0, now - oldest);
}

OldestLink oldest_link(const LinkGraph& g, std::span<const int> ranks, double now, double m) {
  std::vector<int> count(g.size(), 0);
  for (const int r : ranks) {
    if (r >= 0 && r < g.size()) ++count[r];
  }
  OldestLink out;
  for (int i = 0; i < g.size(); ++i) {
    for (int j = 0; j < g.size(); ++j) {
      if (count[i] == 0 || count[j] == 0 || (i == j && count[i] < 2)) continue;
      const double a = age(g, comm(g, i, j, m), now);
      if (out.from < 0 || a > out.age) out = {a, i, j};
    }
  }
  return out;
}

std::optional<double> parse_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double unit = 1;
  std::string num = text;
  switch (text.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 86400;
      break;
    default:
      num += ' ';  // no suffix: seconds
  }
  num.pop_back();
  if (num.empty()) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(num, &used);
  } catch (...) {
    return std::nullopt;
  }
  if (used != num.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v * unit;
}

}  // namespace colltune::forecast

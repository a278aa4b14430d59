#include "native.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace colltune::model {

namespace {

// Every relative rank r (rank - root, the positions of `cache`, a fixed shape laid out from
// the root) exchanges c bytes with partner(r) at once; the step ends when the slowest message
// has been received: max_r p2p(r, partner(r), c), from the envelope of the pairs' p2p as
// lines in c, kept per (step, parameters) in the layout's cache.
template <typename Partner>
double exchange_step(const LmoParams& p, const Layout& cache, std::size_t step, double c,
                     Partner partner) {
  if (cache.exchange_for != &p) {  // emptied, their memory kept
    for (auto& v : cache.exchange) v.clear();
    cache.exchange_for = &p;
  }
  if (cache.exchange.size() <= step) cache.exchange.resize(step + 1);
  std::vector<Affine>& envelope = cache.exchange[step];
  if (envelope.empty()) {
    thread_local std::vector<Affine> lines;
    lines.clear();
    const int n = static_cast<int>(cache.proc.size());
    for (int r = 0; r < n; ++r) {
      const int i = cache.proc[r], j = cache.proc[partner(r)];
      lines.push_back({p.C[i].value + p.C[j].value, p.t[i].value + p.ib(i, j) + p.t[j].value});
    }
    envelope = upper_envelope(lines);
  }
  return highest(envelope, c);
}

constexpr std::array<std::string_view, kNativeKinds.size()> kNames = {"mpich", "binomial", "linear",
                                                                      "relay", "ompi"};

}  // namespace

double bcast_scatter_allgather(const LmoParams& p, const Layout& binomial,
                               std::span<const int> members, double m) {
  const int n = static_cast<int>(members.size());
  const double c = std::ceil(m / n);
  double t = predict(Op::kScatter, binomial, p, c);
  const bool pof2 = (n & (n - 1)) == 0;
  // Cached steps: 0 the ring's, 1 + log2(mask) recursive doubling's.
  if (pof2 && m < kMpichBcastLong) {  // recursive doubling: log2 n steps of doubling blocks
    std::size_t step = 1;
    for (int mask = 1; mask < n; mask <<= 1, ++step) {
      t += exchange_step(p, binomial, step, c * mask, [&](int r) { return r ^ mask; });
    }
  } else {  // ring: n - 1 steps of one block to the right neighbour
    t += (n - 1) * exchange_step(p, binomial, 0, c, [&](int r) { return (r + 1) % n; });
  }
  return t;
}

std::string_view native_kind_name(NativeKind k) { return kNames[static_cast<int>(k)]; }

std::optional<NativeKind> parse_native_kind(std::string_view name) {
  for (NativeKind k : kNativeKinds) {
    if (native_kind_name(k) == name) return k;
  }
  return std::nullopt;
}

NativePlan native_plan(NativeKind k, Op op, int n, int root, double m) {
  switch (k) {
    case NativeKind::kMpich:
      if (op == Op::kBcast && m >= kMpichBcastShort && n >= kMpichBcastMinProcs) {
        return {nullptr, root, false};
      }
      return {&kShape_binomial, root, false,
              op == Op::kGather ? Receives::kInIssueOrder : Receives::kAsTheyArrive};
    case NativeKind::kOmpi:
      return {&kShape_binomial, root, false,
              op == Op::kGather ? Receives::kInReverseOrder : Receives::kAsTheyArrive};
    case NativeKind::kBinomial:
      return {&kShape_binomial, root, false};
    case NativeKind::kLinear:
      return {&kShape_linear, root, false};
    case NativeKind::kRelay:
      return {&kShape_binomial, 0, root != 0};
  }
  return {&kShape_binomial, root, false};
}

double relay_time(Op op, const LmoParams& p, std::span<const int> members, int root, double m) {
  if (root == 0) return 0;
  const double bytes = op == Op::kBcast ? m : m * static_cast<double>(members.size());
  return op == Op::kGather ? p.p2p(members[0], members[root], bytes)
                           : p.p2p(members[root], members[0], bytes);
}

double predict_native(NativeKind k, Op op, const LmoParams& p, std::span<const int> members,
                      int root, double m) {
  return predict_native(
      k, op, p, members, root, m,
      [&](const Shape& s, int tree_root, Receives r) {
        return predict(op, Layout(s, members, tree_root), p, m, r);
      },
      [&](const Shape& s, int tree_root) { return Layout(s, members, tree_root); });
}

NativeFit identify_native(Op op, const LmoParams& p, std::span<const int> members,
                          std::span<const NativeRow> rows) {
  NativeFit f;
  const int n = static_cast<int>(members.size());
  // Per row, the fixed binomial and linear algorithms' measured / predicted (1 where not swept).
  auto scale = [&](const NativeRow& r, const Shape& s, double fixed) {
    const double modelled = fixed > 0 ? predict(op, Layout(s, members, r.root), p, r.m) : 0;
    return modelled > 0 ? fixed / modelled : 1.0;
  };
  std::vector<std::array<double, 2>> scales;  // {binomial, linear}
  for (const NativeRow& r : rows) {
    scales.push_back({scale(r, kShape_binomial, r.binomial), scale(r, kShape_linear, r.linear)});
  }
  for (std::size_t k = 0; k < kNativeKinds.size(); ++k) {
    double sum = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const NativeRow& r = rows[i];
      const bool linear = native_plan(kNativeKinds[k], op, n, r.root, r.m).shape == &kShape_linear;
      const double pred =
          predict_native(kNativeKinds[k], op, p, members, r.root, r.m) * scales[i][linear ? 1 : 0];
      sum += pred > 0 && r.time > 0 ? std::abs(std::log(pred / r.time)) : 10;
    }
    f.fit[k] = rows.empty() ? HUGE_VAL : sum / static_cast<double>(rows.size());
    if (f.fit[k] < f.fit[static_cast<int>(f.best)]) f.best = kNativeKinds[k];
  }
  return f;
}

Telling telling_sizes(Op op, const LmoParams& p, std::span<const int> members, const NativeFit& f,
                      std::span<const int> roots, std::span<const double> sizes) {
  const double best = f.fit[static_cast<std::size_t>(f.best)];
  if (!std::isfinite(best)) return {};
  std::vector<NativeKind> tied;
  for (std::size_t k = 0; k < kNativeKinds.size(); ++k) {
    if (f.fit[k] <= best + kNativeTie) tied.push_back(kNativeKinds[k]);
  }
  const std::size_t n = tied.size();
  std::vector<char> parted(n * n, 0);  // [a * n + b], a < b
  std::size_t left = n * (n - 1) / 2;
  Telling out;
  std::vector<double> x(n);
  for (const double m : sizes) {
    if (left == 0) break;
    double seconds = 0;
    std::vector<std::size_t> now;
    for (const int root : roots) {
      for (std::size_t k = 0; k < n; ++k) x[k] = predict_native(tied[k], op, p, members, root, m);
      seconds += *std::max_element(x.begin(), x.end());
      for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t b = a + 1; b < n; ++b) {
          const double lo = std::min(x[a], x[b]), hi = std::max(x[a], x[b]);
          if (!parted[a * n + b] && lo > 0 && hi > kNativeApart * lo) now.push_back(a * n + b);
        }
      }
    }
    if (now.empty()) continue;
    for (const std::size_t ab : now) {
      if (!parted[ab]) parted[ab] = 1, --left;
    }
    out.sizes.push_back(m);
    out.seconds.push_back(seconds);
  }
  return out;
}

}  // namespace colltune::model

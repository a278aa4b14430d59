#include "platform_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <tuple>

#include "native.hpp"
#include "trees.hpp"

namespace colltune::model {

double Curve::at(double x) const {
  if (m.empty()) return 0;
  if (x <= m.front()) return y.front();
  if (x >= m.back()) return y.back();
  const auto it = std::upper_bound(m.begin(), m.end(), x);
  const std::size_t hi = static_cast<std::size_t>(it - m.begin()), lo = hi - 1;
  const double f = (std::log(x) - std::log(m[lo])) / (std::log(m[hi]) - std::log(m[lo]));
  return y[lo] + f * (y[hi] - y[lo]);
}

Curve Curve::smoothed() const {
  const std::size_t n = y.size();
  if (n < 3) return *this;
  auto med3 = [](double a, double b, double c) {
    return std::max(std::min(a, b), std::min(std::max(a, b), c));
  };
  Curve out = *this;
  for (std::size_t i = 1; i + 1 < n; ++i) out.y[i] = med3(y[i - 1], y[i], y[i + 1]);
  // Tukey's end-point rule: the end, its smoothed neighbour, and the line through the next two.
  out.y[0] = std::max(0.0, med3(y[0], out.y[1], 3 * out.y[1] - 2 * out.y[2]));
  out.y[n - 1] = std::max(0.0, med3(y[n - 1], out.y[n - 2], 3 * out.y[n - 2] - 2 * out.y[n - 3]));
  return out;
}

int PlatformModel::find_identity(const std::string& id) const {
  const auto it = std::find(identities.begin(), identities.end(), id);
  return it == identities.end() ? -1 : static_cast<int>(it - identities.begin());
}

IdentityMatch match_identity(const PlatformModel& pm, const std::string& id) {
  if (const int i = pm.find_identity(id); i >= 0) return {i, IdentityMatch::kExact};
  const std::string host = id.substr(0, id.find('/'));
  for (std::size_t i = 0; i < pm.identities.size(); ++i) {
    const std::string& o = pm.identities[i];
    if (o.substr(0, o.find('/')) == host) return {static_cast<int>(i), IdentityMatch::kHost};
  }
  return {static_cast<int>(pm.identities.size()), IdentityMatch::kAverage};
}

std::vector<int> host_groups(const std::vector<std::string>& identities) {
  std::vector<int> out(identities.size());
  std::vector<std::string> hosts;
  for (std::size_t i = 0; i < identities.size(); ++i) {
    const std::string h = identities[i].substr(0, identities[i].find('/'));
    const auto it = std::find(hosts.begin(), hosts.end(), h);
    out[i] = static_cast<int>(it - hosts.begin());
    if (it == hosts.end()) hosts.push_back(h);
  }
  return out;
}

LmoParams with_average(const LmoParams& p) {
  const int n = p.size();
  LmoParams q = p;
  q.host.resize(n);
  for (int i = 0; i < n; ++i) q.host[i] = p.host_of(i);
  q.host.push_back(-1);
  // Per-process vectors gain the average of their entries; empty ones (o, ports) stay empty.
  for (std::vector<Estimate>* v : {&q.C, &q.t, &q.o, &q.port, &q.port_in}) {
    if (v->empty()) continue;
    Estimate a{};
    for (int i = 0; i < n; ++i) a.value += (*v)[i].value / n;
    v->push_back(a);
  }
  Estimate link{};
  int links = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j || n == 1) {
        link.value += p.ib(i, j);
        ++links;
      }
    }
  }
  if (links > 0) link.value /= links;
  q.inv_beta.assign(static_cast<std::size_t>(n + 1) * (n + 1), link);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      q.inv_beta[static_cast<std::size_t>(i) * (n + 1) + j] =
          p.inv_beta[static_cast<std::size_t>(i) * n + j];
  }
  fill_host_links(&q);
  return q;
}

double predict_uncorrected(const PlatformModel& pm, const LmoParams& p, const Algorithm& alg,
                           std::span<const int> members, int root, double m) {
  if (alg.build) {
    if (members.size() <= 1 || m <= 0) return 0;
    const auto tree = build_tree(alg, p, members, root, m);
    return predict_built(alg.op, *tree, Layout(TreeView(*tree), members), p, m);
  }
  return alg.shape
             ? predict(alg.op, *alg.shape, p, members, root, m)
             : predict_native(pm.native[static_cast<int>(alg.op)], alg.op, p, members, root, m);
}

bool calibrated_itself(const PlatformModel& pm, const Algorithm& alg) {
  const auto& corr = pm.correction[static_cast<int>(alg.op)];
  const auto it = corr.find(std::string(alg.name));
  return it != corr.end() && !it->second.empty();
}

std::vector<const Algorithm*> candidates(const PlatformModel& pm, Op op) {
  std::vector<const Algorithm*> out = algorithms_of(op);
  std::erase_if(out, [&](const Algorithm* a) { return !a->decided && !calibrated_itself(pm, *a); });
  return out;
}

bool validated_at(const PlatformModel& pm, const Algorithm& alg, double m) {
  if (!calibrated_itself(pm, alg)) return false;
  const Curve& c = pm.correction[static_cast<int>(alg.op)].at(std::string(alg.name));
  return m <= 2 * c.m.back() && (alg.decided || 2 * m >= c.m.front());
}

std::string_view stand_in(const PlatformModel& pm, const Algorithm& alg, const BuiltTree* tree) {
  if (!alg.build || calibrated_itself(pm, alg)) return alg.name;
  if (tree && tree->size() > 2 && tree->segment == 0 && tree->segment_from.empty()) {
    const int n = tree->size(), root = tree->rank[0];
    for (const Algorithm* fixed : algorithms_of(alg.op)) {
      if (!fixed->shape || !calibrated_itself(pm, *fixed)) continue;
      const BuiltTree ref = lay_out(*fixed->shape, n, root);
      bool same = true;  // the same parent for every rank
      for (int r = 0; r < n && same; ++r) {
        const int a = tree->parent[tree->pos[r]], b = ref.parent[ref.pos[r]];
        same = (a < 0 ? -1 : tree->rank[a]) == (b < 0 ? -1 : ref.rank[b]);
      }
      if (same) return fixed->name;
    }
  }
  return alg.like;
}

namespace {
// The name calibration measured alg under: its own, or for a built tree it did not sweep its
// stand-in's (stand_in).
std::string calibrated_name(const PlatformModel& pm, const Algorithm& alg,
                            const BuiltTree* tree = nullptr) {
  return std::string(stand_in(pm, alg, tree));
}

// Which swept root `root` of `members` is: by identity where the two roots swept had different
// ones; else rank 0 alone (one identity: the second root's rank is not kept); older tables by
// position (every root but 0 is the other root's).
enum class SweptRoot { kFirst, kLast, kNeither };
SweptRoot swept_root(const PlatformModel& pm, std::span<const int> members, int root) {
  const auto [first, last] = pm.correction_roots;
  const int n = static_cast<int>(members.size());
  const int id = root >= 0 && root < n ? members[root] : -1;
  if (first < 0 || last < 0) return root == 0 ? SweptRoot::kFirst : SweptRoot::kLast;
  if (first != last) {
    return id == first ? SweptRoot::kFirst : id == last ? SweptRoot::kLast : SweptRoot::kNeither;
  }
  return id == first && root == 0 ? SweptRoot::kFirst : SweptRoot::kNeither;
}

double corrected(const PlatformModel& pm, const Algorithm& alg, std::span<const int> members,
                 int root, double raw, double m, const BuiltTree* tree = nullptr) {
  return raw * correction_at(pm, alg.op, calibrated_name(pm, alg, tree), members, root, m);
}
}  // namespace

int least_like_rank0(const LmoParams& p, std::span<const int> of_rank, double m) {
  const int n = static_cast<int>(of_rank.size());
  if (n < 2) return 0;
  const auto star = [&](int r) {
    double s = 0;
    for (int j = 0; j < n; ++j) {
      if (j != r) s += p.p2p(of_rank[r], of_rank[j], m) + p.p2p(of_rank[j], of_rank[r], m);
    }
    return s;
  };
  const double s0 = star(0);
  int best = n - 1;
  double far = std::fabs(std::log(star(n - 1) / s0));
  for (int r = n - 2; r >= 1; --r) {
    const double d = std::fabs(std::log(star(r) / s0));
    if (d > far + 0.01) best = r, far = d;
  }
  return best;
}

double correction_at(const PlatformModel& pm, Op op, const std::string& name,
                     std::span<const int> members, int root, double m) {
  const auto curve = [&](const auto& curves) -> const Curve* {
    const auto& per = curves[static_cast<int>(op)];
    const auto it = per.find(name);
    return it == per.end() || it->second.empty() ? nullptr : &it->second;
  };
  const Curve* first = curve(pm.correction);
  const Curve* last = curve(pm.correction_other_root);
  if (const Curve* third = curve(pm.correction_unlike_root);
      third && root > 0 && root < static_cast<int>(members.size()) && m <= 2 * third->m.back() &&
      pm.correction_roots[0] < 0) {
    // Its sizes are 32x apart: between them its ratio to root 0's curve, which has the shape.
    double here = third->at(m);
    if (first && m > third->m.front() && m < third->m.back()) {
      const std::size_t hi = static_cast<std::size_t>(
          std::upper_bound(third->m.begin(), third->m.end(), m) - third->m.begin());
      const double a = third->m[hi - 1], b = third->m[hi];
      const double ra = third->y[hi - 1] / first->at(a), rb = third->y[hi] / first->at(b);
      const double f = std::log(m / a) / std::log(b / a);
      here = first->at(m) * (ra + f * (rb - ra));
    }
    const int id = members[root];
    if (id == pm.unlike_roots[2]) return here;
    if (id != (last ? pm.unlike_roots[1] : pm.unlike_roots[0])) {
      // What every root swept agrees on: the curve nearest 1 where all lie on one side of 1.
      double lo = here, hi = lo;
      for (const Curve* c : {first, last}) {
        if (!c) continue;
        lo = std::min(lo, c->at(m));
        hi = std::max(hi, c->at(m));
      }
      return lo > 1 ? lo : hi < 1 ? hi : 1.0;
    }
  }
  if (!last) return first ? first->at(m) : 1.0;
  const SweptRoot at = swept_root(pm, members, root);
  if (at == SweptRoot::kFirst) return first ? first->at(m) : 1.0;
  if (!first) return last->at(m);
  const double a = first->at(m), b = last->at(m);
  if (at == SweptRoot::kLast) return b;
  if ((a - 1) * (b - 1) <= 0) return 1.0;  // one above 1, one below (or either 1)
  return a > 1 ? std::min(a, b) : std::max(a, b);
}

double predict_algorithm(const PlatformModel& pm, const LmoParams& p, const Algorithm& alg,
                         std::span<const int> members, int root, double m) {
  if (alg.build && members.size() > 1 && m > 0) {
    const auto tree = build_tree(alg, p, members, root, m);
    return corrected(pm, alg, members, root,
                     predict_built(alg.op, *tree, Layout(TreeView(*tree), members), p, m), m,
                     tree.get());
  }
  return corrected(pm, alg, members, root, predict_uncorrected(pm, p, alg, members, root, m), m);
}

namespace {

constexpr int kGridTop = 28;  // sizes 2^0 .. 2^28 bytes

}  // namespace

double validated_error(const PlatformModel& pm, Op op, const Algorithm& a, double m, int cls,
                       const BuiltTree* tree) {
  const auto& e = pm.error[static_cast<int>(op)];
  const auto it = e.find(calibrated_name(pm, a, tree));
  if (it == e.end() || it->second.empty()) return 0;
  const Curve* c = &it->second;
  // A built tree validated at a size of another class ran another tree: its own class's sizes
  // decide where it has any.
  Curve own;
  if (a.build && calibrated_itself(pm, a)) {
    if (cls < 0) cls = size_class(m);
    for (std::size_t i = 0; i < c->m.size(); ++i) {
      if (size_class(c->m[i]) != cls) continue;
      own.m.push_back(c->m[i]);
      own.y.push_back(c->y[i]);
    }
    if (!own.empty()) c = &own;
  }
  double err = c->at(m);
  for (std::size_t i = 0; i < c->m.size(); ++i) {
    if (c->m[i] >= m / 4 && c->m[i] <= m * 4) err = std::max(err, c->y[i]);
  }
  return err;
}

static_assert(kDecisionGroups == kSizeClasses);
int decision_group(std::uint64_t bytes) { return size_class(static_cast<double>(bytes)); }

namespace {

// A choice after out's last: the same range as it when the same algorithm and tree decide
// (0 bytes, nothing to move, stays a range of its own).
void append(std::vector<Choice>& out, Choice&& c) {
  if (!out.empty() && out.back().algorithm == c.algorithm && out.back().tree == c.tree &&
      c.bytes.lo > 1) {
    out.back().bytes.hi = c.bytes.hi;
    if (out.back().held_back.empty()) out.back().held_back = std::move(c.held_back);
  } else {
    out.push_back(std::move(c));
  }
}

std::vector<Choice> decide_group(const PlatformModel& pm, const LmoParams& p, Op op,
                                 std::span<const Algorithm* const> candidates,
                                 std::span<const int> members, int root, int group) {
  std::vector<Choice> out;
  const Algorithm* native = candidates.front();
  if (group == 0) out.push_back({Range{0, 0}, native, 0, {}, {}, nullptr});  // nothing to move
  // Each tree laid out once per root (native often follows a candidate's tree), and its time
  // at each size computed once. Built trees: one per candidate, of the group's size class, built
  // when first needed (src/model/trees.hpp). Layouts come from this thread's pool, their memory
  // kept from one decision to the next (freed and touched again, it cost page faults).
  thread_local std::deque<Layout> pool;
  std::size_t pooled = 0;
  std::vector<std::pair<std::pair<const void*, int>, const Layout*>> layouts;
  std::vector<std::pair<std::tuple<const void*, int, Receives>, double>> raw;  // this size
  std::vector<std::shared_ptr<const BuiltTree>> built(candidates.size());      // this group's class
  const LmoTreeCosts costs(p, members);  // shared by the builds (and their fastest-first order)
  const NativeKind nk = pm.native[static_cast<int>(op)];
  std::vector<Choice> per_size;  // the pick at each grid size
  // The pick at grid size 2^k before the neighbour rule, predicted at `at` bytes (0: 2^k), built
  // trees those of the group's class.
  auto pick_at = [&](int k, double at = 0) -> Choice {
    const double m = at > 0 ? at : std::ldexp(1.0, k);
    raw.clear();
    auto laid_out = [&](const void* id, int r, const TreeView& view) -> const Layout& {
      const std::pair key{id, r};
      for (const auto& [t, lay] : layouts) {
        if (t == key) return *lay;
      }
      if (pooled == pool.size()) pool.emplace_back();
      Layout& l = pool[pooled++];
      l.reset(view, members);
      l.many_sizes = true;
      return *layouts.emplace_back(key, &l).second;
    };
    auto layout = [&](const Shape& s, int r) -> const Layout& {
      return laid_out(&s, r, TreeView(s, static_cast<int>(members.size()), r));
    };
    auto time_of = [&](const void* id, int r, Receives how, const Layout& l) {
      const std::tuple key{id, r, how};
      for (const auto& [t, v] : raw) {
        if (t == key) return v;
      }
      return raw.emplace_back(key, predict(op, l, p, m, how)).second;
    };
    auto tree_time = [&](const Shape& s, int r, Receives how = Receives::kAsTheyArrive) {
      return time_of(&s, r, how, layout(s, r));
    };
    auto built_time = [&](std::size_t i) {
      auto& tree = built[i];
      if (!tree) tree = build_tree(*candidates[i], costs, root, class_size(group));
      const Layout& l = laid_out(tree.get(), -1, TreeView(*tree));
      if (tree->segment > 0) return predict_built(op, *tree, l, p, m);  // not cached per size
      return time_of(tree.get(), -1, Receives::kAsTheyArrive, l);
    };
    // The size m stands for [2^(k - 1/2), 2^(k + 1/2)), rounded up to whole bytes.
    const std::uint64_t hi = k == kGridTop ? kMaxValue : grid_lo(k + 1) - 1;
    Choice c{Range{grid_lo(k), hi}, native, m, {}, {}, nullptr};
    std::size_t best = 0;
    double raw_best = 0, raw_native = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const Algorithm& a = *candidates[i];
      if (!a.decided && !validated_at(pm, a, m)) {  // no validation there: never the pick
        c.predicted.push_back(kNever);
        continue;
      }
      const double r = a.build   ? built_time(i)
                       : a.shape ? tree_time(*a.shape, root)
                                 : predict_native(nk, op, p, members, root, m, tree_time, layout);
      c.predicted.push_back(
          corrected(pm, a, members, root, r, m, a.build ? built[i].get() : nullptr));
      if (i == 0) raw_native = r;
      if (c.predicted[i] < c.predicted[best]) best = i, raw_best = r;
    }
    if (best != 0) {
      const double eb = validated_error(pm, op, *candidates[best], m, group, built[best].get()),
                   en = validated_error(pm, op, *native, m, group);
      const double margin = std::max(pm.margin, eb + en);
      if (c.predicted[best] * (1 + margin) >= c.predicted[0]) {
        // within the validated error: native, as ever
      } else if (std::max(eb, en) > kUntrusted) {
        c.held_back = std::string(candidates[best]->name) + " at " +
                      std::to_string(std::lround(m)) + " B: validated error up to " +
                      std::to_string(std::lround(100 * std::max(eb, en))) + "%, not used to decide";
      } else if ((members.size() <= 2 && std::fabs(raw_best - raw_native) <= 0.01 * raw_native) ||
                 (candidates[best]->build && !calibrated_itself(pm, *candidates[best]) &&
                  raw_best * (1 + margin) >= raw_native)) {
        // A built tree borrows its stand-in's corrections: its gain must be the schedules' too.
        c.held_back = std::string(candidates[best]->name) + " at " +
                      std::to_string(std::lround(m)) +
                      " B: the schedules predict the same time, the gain is the corrections' alone";
      } else {
        c.algorithm = candidates[best];
        if (c.algorithm->build) c.tree = built[best];
      }
    }
    return c;
  };
  int first = -1;  // the group's first grid size
  // The group's sizes are its class's. A class starts at a grid size 2^k, which stands for
  // sizes from 2^(k - 1/2): its range is cut at the class's edge, each part decided at its own
  // geometric centre with its own class's trees (the sizes below the edge by this group, at
  // 2^(k - 1/4); those above by the next, at 2^(k + 1/4)).
  for (int k = 0; k <= kGridTop; ++k) {
    if (size_class(std::ldexp(1.0, k)) != group) continue;
    if (first < 0) first = k;
    per_size.push_back(group > 0 && k == first ? pick_at(k, std::ldexp(std::pow(2.0, 0.25), k))
                                               : pick_at(k));
  }
  if (group > 0) per_size.front().bytes.lo = class_start(group);
  if (group + 1 < kDecisionGroups) {
    const int edge = first + static_cast<int>(per_size.size());
    per_size.push_back(pick_at(edge, std::ldexp(std::pow(2.0, -0.25), edge)));
    per_size.back().bytes.hi = class_start(group + 1) - 1;
  }
  // A gain over native at one grid size alone (a factor of 2 in bytes) is no range: native
  // there, so that decisions do not alternate between neighbouring sizes where the gain is
  // about the noise. A neighbour's gain counts whichever algorithm has it (a built tree and a
  // fixed one may take turns where both beat native), and so does one across the group's edge
  // (the pick at the next size out, with this group's trees: no other class is built).
  std::vector<const Algorithm*> picked;
  for (const Choice& c : per_size) picked.push_back(c.algorithm);
  const int last = first + static_cast<int>(per_size.size()) - 1;
  auto beyond = [&](int k) { return k >= 0 && k <= kGridTop && pick_at(k).algorithm != native; };
  for (std::size_t k = 0; k < per_size.size(); ++k) {
    if (picked[k] == native) continue;
    const bool inside =
        (k > 0 && picked[k - 1] != native) || (k + 1 < picked.size() && picked[k + 1] != native);
    // Across the edge only when nothing inside confirms.
    if (!inside && !(k == 0 && beyond(first - 1)) &&
        !(k + 1 == picked.size() && beyond(last + 1))) {
      per_size[k].algorithm = native;
      per_size[k].tree = nullptr;
    }
  }
  for (Choice& c : per_size) append(out, std::move(c));
  return out;
}

}  // namespace

std::vector<Choice> decide(const PlatformModel& pm, const LmoParams& p, Op op,
                           std::span<const Algorithm* const> candidates,
                           std::span<const int> members, int root, int group) {
  return decide_group(pm, p, op, candidates, members, root,
                      std::clamp(group, 0, kDecisionGroups - 1));
}

std::vector<Choice> decide(const PlatformModel& pm, const LmoParams& p, Op op,
                           std::span<const Algorithm* const> candidates,
                           std::span<const int> members, int root) {
  std::vector<Choice> out;
  for (int g = 0; g < kDecisionGroups; ++g) {
    for (Choice& c : decide_group(pm, p, op, candidates, members, root, g)) {
      append(out, std::move(c));
    }
  }
  return out;
}

}  // namespace colltune::model

#include "simulate.hpp"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace colltune::jitter {

namespace {

// The first index from `from` on whose element is not `before` the target, in a sorted `v`
// whose elements before `from` all are: galloping (1, 2, 4, ... ahead, then a binary search),
// O(log d) for the d elements passed, and near `from` in memory.
template <class Before>
std::size_t gallop(const std::vector<double>& v, std::size_t from, Before before) {
  const std::size_t n = v.size();
  std::size_t lo = from, hi = from, step = 1;
  while (hi < n && before(v[hi])) {
    lo = hi + 1;
    hi = from + step;
    step *= 2;
  }
  hi = std::min(hi, n);
  return static_cast<std::size_t>(std::partition_point(v.begin() + lo, v.begin() + hi, before) -
                                  v.begin());
}

}  // namespace

Timeline::Timeline(const Trace& t) {
  double x = 0;
  std::vector<double> s, e;
  for (std::size_t k = 0; k < t.jitter.size(); ++k) {
    if (t.jitter[k] > 0) {
      s.push_back(x);
      e.push_back(x + static_cast<double>(t.jitter[k]));
    }
    x += static_cast<double>(t.jitter[k] + t.gap[k]);
  }
  length_ = x;
  for (int lap = 0; lap < 2; ++lap) {
    for (std::size_t k = 0; k < s.size(); ++k) {
      start_.push_back(s[k] + lap * length_);
      end_.push_back(e[k] + lap * length_);
    }
  }
  prefix();
}

void Timeline::prefix() {
  busy_.assign(1, 0);
  free_.clear();
  for (std::size_t k = 0; k < start_.size(); ++k) {
    free_.push_back(start_[k] - busy_[k]);
    busy_.push_back(busy_[k] + (end_[k] - start_[k]));
  }
}

Timeline Timeline::quiet(double length) {
  Timeline tl;
  tl.length_ = length;
  tl.prefix();
  return tl;
}

Timeline::Cursor Timeline::cursor(double from, double span) const {
  Cursor c;
  c.from = c.pos = from;
  c.span = std::clamp(span, 1.0, std::max(length_, 1.0));
  std::size_t k = 0;
  c.f_limit = free_at(c.from + c.span, &k);
  c.f_from = free_at(c.from, &c.k_from);
  seek(c);
  return c;
}

void Timeline::seek(Cursor& c) const {
  c.k = static_cast<std::size_t>(std::upper_bound(end_.begin(), end_.end(), c.pos) - end_.begin());
}

void Timeline::wrap(Cursor& c) const {
  // Measured from the end (from + span, the expression every caller compares with), so that
  // reaching it exactly goes back to `from` exactly: fmod(pos - from, span) can round to just
  // below span and leave the cursor an epsilon short of the end forever.
  c.pos = c.from + std::fmod(c.pos - (c.from + c.span), c.span);
  seek(c);
}

void Timeline::wait_until(Cursor& c, double t) const {
  if (t <= c.t) return;
  c.pos += t - c.t;
  c.t = t;
  if (c.pos >= c.from + c.span) {
    wrap(c);
    return;
  }
  // Past the events the wait covered: a few steps, else galloping from here.
  for (int step = 0; step < 4; ++step) {
    if (c.k >= end_.size() || end_[c.k] > c.pos) return;
    ++c.k;
  }
  c.k = gallop(end_, c.k, [&](double e) { return e <= c.pos; });
}

double Timeline::free_at(double x, std::size_t* k) const {
  *k = static_cast<std::size_t>(std::upper_bound(end_.begin(), end_.end(), x) - end_.begin());
  if (*k < start_.size() && start_[*k] <= x) return start_[*k] - busy_[*k];  // inside event k
  return x - busy_[*k];
}

double Timeline::position_of(double f, std::size_t from, std::size_t* k) const {
  *k = gallop(free_, from, [f](double y) { return y < f; });
  return f + busy_[*k];
}

void Timeline::work(Cursor& c, double w) const {
  // Free cycles as a function of the position (prefix sums): the work ends at the first place
  // where they have grown by w, found by binary search, however many events it crosses (an
  // event under way when the work starts is waited out, as every event on the way); the first
  // few events are walked, which is cheaper when they are all there is.
  if (w <= 0) return;
  const double limit = c.from + c.span;
  const auto land = [&](double start, double f, std::size_t k0) {  // where free cycles reach f
    const double x = position_of(f, k0, &c.k);
    c.t += x - start;
    c.pos = x;
    if (c.pos >= limit) {  // exactly the end of the span: back to its start
      c.pos = c.from;
      seek(c);
    }
  };
  // A phase mostly crosses an event or two: walk up to a few of them first.
  for (int step = 0; step < 8; ++step) {
    if (c.k < start_.size() && start_[c.k] <= c.pos) {  // inside event k (it ends after pos)
      const double e = std::min(end_[c.k], limit);
      c.t += e - c.pos;
      c.pos = e;
      ++c.k;
      if (c.pos >= limit) wrap(c);
      continue;
    }
    const double next = c.k < start_.size() ? std::min(start_[c.k], limit) : limit;
    const double free = next - c.pos;
    if (w <= free) {
      c.pos += w;
      c.t += w;
      if (c.pos >= limit) wrap(c);
      return;
    }
    w -= free;
    c.t += free;
    c.pos = next;
    if (c.pos >= limit) wrap(c);
  }
  // Free cycles before pos: c.k is the first event that ends after it.
  const double f0 = c.k < start_.size() && start_[c.k] <= c.pos ? free_[c.k] : c.pos - busy_[c.k];
  const double f_limit = c.f_limit, f_from = c.f_from;
  if (f0 + w <= f_limit) return land(c.pos, f0 + w, c.k);
  // To the end of the span, whole laps of it from `from`, then the last (partial or whole) one.
  c.t += limit - c.pos;
  w -= f_limit - f0;
  const double lap = f_limit - f_from;
  if (!(lap > 0)) throw std::invalid_argument("a task's span of the trace has no free cycle");
  const double laps = std::ceil(w / lap) - 1;
  c.t += laps * c.span;
  w -= laps * lap;
  land(c.from, f_from + w, c.k_from);
}

namespace {

// Where each depth starts in t->order (breadth first, so depths are contiguous).
void levels(Tree* t) {
  const int n = t->size();
  std::vector<int> depth(n, 0);
  t->level.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    const int v = t->order[i];
    if (const int p = t->parent[v]; p >= 0) depth[v] = depth[p] + 1;
    if (depth[v] == static_cast<int>(t->level.size())) t->level.push_back(i);
  }
  t->level.push_back(n);
  t->sub.assign(n, 1);
  for (int i = n - 1; i > 0; --i) {
    const int v = t->order[i];
    t->sub[t->parent[v]] += t->sub[v];
  }
}

// Children lists and breadth-first order from parent and per-node child lists.
void finish(Tree* t, const std::vector<std::vector<int>>& children) {
  const int n = t->size();
  t->first.assign(n, 0);
  t->count.assign(n, 0);
  for (int v = 0; v < n; ++v) {
    t->first[v] = static_cast<int>(t->kids.size());
    t->count[v] = static_cast<int>(children[v].size());
    t->kids.insert(t->kids.end(), children[v].begin(), children[v].end());
  }
  t->order.clear();
  if (n == 0) return;
  t->order.push_back(0);
  for (std::size_t i = 0; i < t->order.size(); ++i) {
    const int v = t->order[i];
    for (int k = 0; k < t->count[v]; ++k) t->order.push_back(t->kids[t->first[v] + k]);
  }
  levels(t);
}

}  // namespace

Tree kary_tree(int n, int k) {
  if (n < 1 || k < 1) throw std::invalid_argument("kary_tree: n and k must be at least 1");
  Tree t;
  t.parent.resize(n);
  t.first.resize(n);
  t.count.resize(n);
  t.order.resize(n);
  t.kids.reserve(n > 0 ? n - 1 : 0);
  for (int v = 0; v < n; ++v) {
    t.parent[v] = v == 0 ? -1 : (v - 1) / k;
    t.order[v] = v;  // heap order is breadth first
    t.first[v] = static_cast<int>(t.kids.size());
    const long long lo = static_cast<long long>(k) * v + 1;
    const long long hi = std::min<long long>(lo + k, n);
    for (long long c = lo; c < hi; ++c) t.kids.push_back(static_cast<int>(c));
    t.count[v] = static_cast<int>(t.kids.size()) - t.first[v];
  }
  levels(&t);
  return t;
}

Tree shape_tree(const Shape& s, int n) {
  Tree t;
  t.parent.assign(n, -1);
  std::vector<std::vector<int>> children(n);
  for (int v = 0; v < n; ++v) {
    for_each_child(s, v, n, [&](int c, int) {
      children[v].push_back(c);
      t.parent[c] = v;
    });
  }
  finish(&t, children);
  return t;
}

double simulate_from(const Timeline& tl, const Tree& tree, const SimOptions& opts,
                     std::span<const double> starts) {
  const int n = tree.size();
  const double span = opts.coverage * tl.length();
  std::vector<Timeline::Cursor> cur(n);
  for (int v = 0; v < n; ++v) cur[v] = tl.cursor(starts[v], span);
  std::vector<double> arrive(n, 0);
  const Latencies& lat = opts.latency;
  const int depths = static_cast<int>(tree.level.size()) - 1;
  constexpr int kParallelFrom = 4096;  // nodes in a depth worth the threads
  const Sync sync = opts.sync;
  const bool up = sync == Sync::kBarrier || sync == Sync::kGather || sync == Sync::kAllreduce;
  const bool down = sync != Sync::kGather;
  // Bytes of the message from v to its parent (up) and from v's parent to v (down).
  auto up_bytes = [&](int v) {
    return sync == Sync::kGather      ? tree.sub[v] * opts.bytes
           : sync == Sync::kAllreduce ? opts.bytes
                                      : 0.0;
  };
  auto down_bytes = [&](int v) {
    return sync == Sync::kScatter   ? tree.sub[v] * opts.bytes
           : sync == Sync::kBarrier ? 0.0
                                    : opts.bytes;
  };
  for (int phase = 0; phase < opts.phases; ++phase) {
    if (!up) {
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
      for (int v = 0; v < n; ++v) tl.work(cur[v], opts.quantum);
    }
    // Compute, then up (pre-barrier, reduce, gather), deepest first: each node takes its
    // children's messages in order, then sends to its parent.
    for (int d = depths - 1; d >= 0 && up; --d) {
      const int lo = tree.level[d], hi = tree.level[d + 1];
#pragma omp parallel for schedule(static) if (hi - lo >= kParallelFrom)
      for (int i = lo; i < hi; ++i) {
        const int v = tree.order[i];
        tl.work(cur[v], opts.quantum);
        for (int k = 0; k < tree.count[v]; ++k) {
          const int c = tree.kids[tree.first[v] + k];
          const MessageCost& m = lat.between(c, v);
          tl.wait_until(cur[v], arrive[c]);
          tl.work(cur[v], m.recv + up_bytes(c) * m.recv_per_byte);
        }
        if (const int p = tree.parent[v]; p >= 0) {
          const MessageCost& m = lat.between(v, p);
          const double b = up_bytes(v);
          tl.work(cur[v], m.send + b * m.send_per_byte);
          arrive[v] = cur[v].t + m.wire + b * m.wire_per_byte;
        }
      }
    }
    // Down (post-barrier, bcast, scatter): from the root to the leaves.
    for (int d = 0; d < depths && down; ++d) {
      const int lo = tree.level[d], hi = tree.level[d + 1];
#pragma omp parallel for schedule(static) if (hi - lo >= kParallelFrom)
      for (int i = lo; i < hi; ++i) {
        const int v = tree.order[i];
        if (const int p = tree.parent[v]; p >= 0) {
          const MessageCost& m = lat.between(p, v);
          tl.wait_until(cur[v], arrive[v]);
          tl.work(cur[v], m.recv + down_bytes(v) * m.recv_per_byte);
        }
        for (int k = 0; k < tree.count[v]; ++k) {
          const int c = tree.kids[tree.first[v] + k];
          const MessageCost& m = lat.between(v, c);
          const double b = down_bytes(c);
          tl.work(cur[v], m.send + b * m.send_per_byte);
          arrive[c] = cur[v].t + m.wire + b * m.wire_per_byte;
        }
      }
    }
  }
  double end = 0;
  for (const auto& c : cur) end = std::max(end, c.t);
  return end;
}

double simulate(const Timeline& tl, const Tree& tree, const SimOptions& opts,
                std::mt19937_64& rng) {
  const int n = tree.size();
  std::vector<double> starts(n);
  std::uniform_real_distribution<double> anywhere(0, tl.length());
  switch (opts.mode) {
    case StartMode::kUnsync:
      for (double& s : starts) s = anywhere(rng);
      break;
    case StartMode::kSync:
      std::fill(starts.begin(), starts.end(), anywhere(rng));
      break;
    case StartMode::kCosched: {
      if (opts.window_starts.empty()) {
        throw std::invalid_argument("cosched start: the timeline has no high-priority windows");
      }
      std::uniform_int_distribution<std::size_t> pick(0, opts.window_starts.size() - 1);
      for (double& s : starts) s = opts.window_starts[pick(rng)];
      break;
    }
  }
  return simulate_from(tl, tree, opts, starts);
}

Trace coschedule(const Trace& t, std::uint64_t high, std::uint64_t low,
                 std::vector<double>* starts) {
  if (high == 0) throw std::invalid_argument("coschedule: the high-priority window is empty");
  const std::uint64_t period = high + low;
  const std::uint64_t length = t.length();
  const std::uint64_t periods = std::max<std::uint64_t>(1, (length + period - 1) / period);
  // The jitter that starts in each period is deferred to that period's low window.
  std::vector<std::uint64_t> debt(periods, 0);
  std::uint64_t x = 0;
  for (std::size_t k = 0; k < t.jitter.size(); ++k) {
    debt[std::min(periods - 1, x / period)] += t.jitter[k];
    x += t.jitter[k] + t.gap[k];
  }
  // Row p: the low window before high window p (circular: the last period's precedes the
  // first), then the high window.
  Trace out;
  out.header = t.header;
  for (std::uint64_t p = 0; p < periods; ++p) {
    out.jitter.push_back(std::max(low, debt[(p + periods - 1) % periods]));
    out.gap.push_back(high);
  }
  starts->clear();
  double at = 0;
  for (std::size_t k = 0; k < out.jitter.size(); ++k) {
    at += static_cast<double>(out.jitter[k]);
    starts->push_back(at);
    at += static_cast<double>(out.gap[k]);
  }
  return out;
}

Point slowdown(const Timeline& tl, const std::function<Tree(int)>& make_tree, int tasks,
               const SimOptions& o, int reps, std::uint64_t seed) {
  const Tree tree = make_tree(tasks);
  std::mt19937_64 rng(seed);
  const double ideal = simulate(Timeline::quiet(tl.length()), tree, o, rng);
  Point p;
  p.tasks = tasks;
  p.reps = reps;
  p.phases = o.phases;
  std::vector<double> s(reps);
  const auto t0 = std::chrono::steady_clock::now();
  for (double& x : s) x = simulate(tl, tree, o, rng) / ideal;
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  p.mean = gsl_stats_mean(s.data(), 1, s.size());
  if (reps > 1) {  // Student's t over the repetitions
    p.ci95 = gsl_cdf_tdist_Pinv(0.975, reps - 1) * gsl_stats_sd(s.data(), 1, s.size()) /
             std::sqrt(static_cast<double>(reps));
  }
  return p;
}

}  // namespace colltune::jitter

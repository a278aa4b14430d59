#include "measure.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>

#include "../algorithms/waits.hpp"
#include "../bench/experiments.hpp"
#include "../bench/timing.hpp"
#include "../identity.hpp"
#include "../model/contention.hpp"
#include "../model/trees.hpp"
#include "../test_hooks.hpp"
#include "fit.hpp"

namespace colltune::calibrate {

namespace {

constexpr double kRetryRelError = 0.25;  // a sweep's series wider than this is measured again,
constexpr int kMaxRetries = 3;           // at most this often per phase of sweeps

bench::Adaptive sweep_reps(const Options& o) {
  bench::Adaptive a;
  a.min_reps = o.quick ? 5 : 10;
  a.max_reps = o.quick ? 20 : 100;
  a.rel_error = o.quick ? 0.03 : 0.01;
  a.median = true;  // a preempted repetition does not move a size (docs/calibration.md)
  return a;
}

// One series of sweep s's algorithm at its root, m bytes (rounded; on `tree` for a built one),
// appended to s as a row of size m (held: a held-out row). A series that stayed wide (a disturbance
// over most of it: a transient, not a loaded machine) is measured once more, a few times per phase
// of sweeps (c.retries); the tighter one is kept. The same on every rank (reduced times).
// *reps_run: the repetitions of both. On failure nothing is appended and c.why names the sweep and
// the size.
int measure_row(Context& c, Sweep& s, double m, bool held, bench::TimingMethod& timing,
                const bench::Adaptive& reps, long long* reps_run,
                std::shared_ptr<const BuiltTree> tree = nullptr) {
  // Test builds: this rank fails alone in the middle of the measurements (docs/faults.md).
  if (hooks::fail_here("calibrate.measure")) throw std::bad_alloc();
  bench::CollectiveCase cc;
  cc.op = s.op;
  cc.algorithm = s.alg;
  cc.bytes = static_cast<std::uint64_t>(m);
  cc.root = s.root;
  cc.tree = std::move(tree);
  bench::Series out;
  int rc = bench::measure_collective(c.comm, cc, timing, true, reps, &out);
  *reps_run = out.reps;
  if (rc == MPI_SUCCESS && !out.converged && out.stats.rel_error > kRetryRelError &&
      c.retries < kMaxRetries) {
    ++c.retries;
    bench::Series again;
    rc = bench::measure_collective(c.comm, cc, timing, true, reps, &again);
    *reps_run += again.reps;
    if (again.stats.rel_error < out.stats.rel_error) out = std::move(again);
  }
  if (rc != MPI_SUCCESS) {
    c.why = std::string(op_name(cc.op)) + " " + s.label() + " failed at " +
            std::to_string(static_cast<long long>(cc.bytes)) + " bytes";
    return rc;
  }
  s.m.push_back(m);
  s.time.push_back(out.stats.mean);
  s.ci.push_back(out.stats.half_width);
  s.held_out.push_back(held);
  return rc;
}

constexpr int kStepBisections = 3;  // a step between sizes 2x apart is placed within 9%

// Where every sweep steps between training rows lo and hi (a protocol switch: eager to
// rendezvous, another copy mechanism), up to kStepBisections training sizes halve the bracket,
// so that the correction curves hold the step instead of a slope across the interval. Decided on
// rank 0; `measure` as in sweeps().
template <typename Measure>
int refine_step(Context& c, double share, std::size_t lo, std::size_t hi, const Measure& measure,
                std::vector<Sweep>* out, long long* taken, bool* over) {
  for (int level = 0; level < kStepBisections; ++level) {
    const std::vector<double>& m = out->front().m;
    double mid = std::round((m[lo] + m[hi]) / 2);
    if (std::find(m.begin(), m.end(), mid) != m.end()) ++mid;  // never a held-out size
    double e = 0;
    if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
    int go = 0;
    if (c.rank == 0) {
      go = mid > m[lo] && mid < m[hi] && std::find(m.begin(), m.end(), mid) == m.end() &&
           steps_between(*out, lo, hi) && e < share;
    }
    if (const int rc = waits::bcast(&go, 1, MPI_INT, 0, c.comm); rc != MPI_SUCCESS) return rc;
    if (!go) return MPI_SUCCESS;
    if (level == 0) {
      c.say("  a step between " + std::to_string(static_cast<long long>(m[lo])) + " and " +
            std::to_string(static_cast<long long>(m[hi])) + " bytes: bisected");
    }
    if (const int rc = measure(mid, false, taken, over); rc != MPI_SUCCESS || *over) return rc;
    const std::size_t at = out->front().m.size() - 1;
    int left = 0;
    if (c.rank == 0) left = change_between(*out, lo, at) >= change_between(*out, at, hi);
    if (const int rc = waits::bcast(&left, 1, MPI_INT, 0, c.comm); rc != MPI_SUCCESS) return rc;
    (left ? hi : lo) = at;
  }
  return MPI_SUCCESS;
}

std::string host_of(const std::string& id) { return id.substr(0, id.find('/')); }

// The crowding of rank 0's host (measure.hpp, identities); `real`: every rank's real identity.
double rank0_crowding([[maybe_unused]] const std::vector<std::string>& real) {
#ifdef SMPI_SHARED_MALLOC  // simulated: rank 0's own work takes no simulated time
  return 1;
#else
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  double busy = static_cast<double>(std::count_if(real.begin(), real.end(), [&](const auto& id) {
    return host_of(id) == host_of(real.front());
  }));
  // What else runs there now: Linux's count of runnable tasks ("0.52 0.58 0.59 3/612 12345").
  if (std::FILE* f = std::fopen("/proc/loadavg", "re")) {
    double a[3];
    int running = 0;
    if (std::fscanf(f, "%lf %lf %lf %d/", &a[0], &a[1], &a[2], &running) == 4) {
      busy = std::max(busy, static_cast<double>(running));
    }
    std::fclose(f);
  }
  return cpus > 0 ? std::max(1.0, busy / static_cast<double>(cpus)) : 1.0;
#endif
}

}  // namespace

// Phase 1: each process's identity, on every rank, and the list of distinct identities.
// `hosts`: the distinct host names the processes run on (the table's platform fingerprint; with
// COLLTUNE_IDENTITY an identity names no host).
int identities(Context& c, std::vector<std::string>* ids, std::vector<int>* of_rank,
               std::vector<std::string>* hosts, double* crowding) {
  std::vector<std::string> all, real;
  int rc = gather_identities(c.comm, c.o.identity, &all);
  if (rc == MPI_SUCCESS) rc = gather_identities(c.comm, std::nullopt, &real);
  if (rc != MPI_SUCCESS) return rc;
  for (const std::string& id : real) {
    const std::string host = host_of(id);
    if (std::find(hosts->begin(), hosts->end(), host) == hosts->end()) hosts->push_back(host);
  }
  *crowding = c.rank == 0 ? rank0_crowding(real) : 1;
  if ((rc = waits::bcast(crowding, 1, MPI_DOUBLE, 0, c.comm)) != MPI_SUCCESS) return rc;
  for (const std::string& id : all) {
    auto it = std::find(ids->begin(), ids->end(), id);
    if (it == ids->end()) it = ids->insert(ids->end(), id);
    of_rank->push_back(static_cast<int>(it - ids->begin()));
  }
  return MPI_SUCCESS;
}

// Phase 2: every algorithm of every op at sizes 2^(k/2); odd k but the last are held out for
// validation. Ends by `share` (elapsed seconds, rank 0's clock): a size that would not fit at
// the minimum repetitions is not started, one that overruns is dropped. Repetitions, then the
// grid (every 2nd, quick: 4th step) thin first so that 4 KiB is reached; docs/calibration.md.
int sweeps(Context& c, double share, std::vector<Sweep>* out) {
  std::unique_ptr<bench::TimingMethod> timing = bench::make_timing(c.o.timing);
  if (!timing) {
    c.why = "unknown timing method '" + c.o.timing + "'";
    return MPI_ERR_ARG;
  }
  // Built trees are swept after the model is fitted (built_sweeps).
  for (const Algorithm& a : algorithms()) {
    if (!a.build) out->push_back({a.op, &a, 0, {}, {}, {}, {}});
  }
  for (const Algorithm& a : algorithms()) {
    if (a.native()) out->push_back({a.op, &a, c.size - 1, {}, {}, {}, {}});
  }
  const int top = c.o.quick ? 40 : 44;  // 1 MiB, 4 MiB
  constexpr int kFloorStep = 24;        // 4 KiB
  bench::Adaptive reps = sweep_reps(c.o);
  const int most_reps = reps.max_reps, least_reps = reps.min_reps;
  reps.max_reps = least_reps;  // the first size probes what a repetition costs: the minimum
  double before = 0, last_per_rep = 0;  // elapsed when the last size began
  if (const int rc = c.elapsed(&before); rc != MPI_SUCCESS) return rc;
  int stride = 1;  // in steps of k; 1, 2 or 4
  // 4^k leaves too few sizes for a break in the latency range (star hetero16: no 45-byte break
  // found, M stays 64 KiB, worst regret 1.476 instead of 1.024): quick calibrations only.
  const int widest = c.o.quick ? 4 : 2;
  // Measures every sweep at m (appended, held out or training); a size that overruns the share
  // is dropped whole (*over).
  const auto measure_size = [&](double m, bool held, long long* taken, bool* over) -> int {
    std::size_t done = 0;  // sweeps measured at this size
    *over = false;
    for (Sweep& s : *out) {
      long long reps_run = 0;
      if (const int rc = measure_row(c, s, m, held, *timing, reps, &reps_run); rc != MPI_SUCCESS) {
        return rc;
      }
      *taken += reps_run;
      ++done;
      double e = 0;
      if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
      if (e > share && done < out->size()) {
        *over = true;
        break;
      }
    }
    if (*over) {
      for (std::size_t i = 0; i < done; ++i) {
        Sweep& s = (*out)[i];
        s.m.pop_back(), s.time.pop_back(), s.ci.pop_back(), s.held_out.pop_back();
      }
      c.cut_short("sweeps stopped during " + std::to_string(static_cast<long long>(m)) +
                  " bytes, dropped (budget)");
    }
    return MPI_SUCCESS;
  };
  std::ptrdiff_t last_train = -1;  // row of the last training size
  for (int k = 0; k <= top; k += stride) {
    const double m = sweep_size(k);
    if (m * c.size > kMaxBytesTotal) break;
    if (k > 0 && sweep_size(k - 1) == m) continue;
    long long taken = 0;
    bool over = false;
    const bool held = (k / stride) % 2 == 1;
    if (const int rc = measure_size(m, held, &taken, &over); rc != MPI_SUCCESS) return rc;
    if (over) break;
    if (!held) {
      const std::size_t here = out->front().m.size() - 1;
      if (last_train >= 0) {
        const int rc = refine_step(c, share, static_cast<std::size_t>(last_train), here,
                                   measure_size, out, &taken, &over);
        if (rc != MPI_SUCCESS) return rc;
        if (over) break;
      }
      last_train = static_cast<std::ptrdiff_t>(here);
    }
    double e = 0;
    if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
    if (e > share) {
      c.cut_short("sweeps stopped after " + std::to_string(static_cast<long long>(m)) +
                  " bytes (budget)");
      break;
    }
    int plan[4] = {most_reps, stride, reps.min_reps, 0};  // cap, stride, minimum, stop
    if (c.rank == 0) {
      const double per_rep = (e - before) / static_cast<double>(std::max(taken, 1LL));
      // The cost of a repetition grows by g per size step (as from the last step to this one:
      // 1 while latency dominates, sqrt 2 once bandwidth does).
      const double g =
          last_per_rep > 0 ? std::clamp(per_rep / last_per_rep, 1.0, std::sqrt(2.0)) : 1.0;
      // Repetitions of every sweep at the sizes k + s, k + 2 s, ... up to `to`, in units of
      // this size's repetition.
      const auto weight = [&](int s, int to) {
        double w = 0;
        for (int j = k + s; j <= to; j += s) w += std::pow(g, j - k);
        return w;
      };
      const double unit = per_rep * static_cast<double>(out->size());
      const double left = share - e;
      if (k < kFloorStep) {  // first fewer repetitions, then fewer sizes
        const auto over = [&] { return weight(plan[1], kFloorStep) * unit * plan[2] > left; };
        if (over()) plan[2] = std::max(3, least_reps / 2);
        while (plan[1] < widest && over()) plan[1] *= 2;
      }
      const int s = plan[1];
      const double room = left / (std::max(weight(s, k < 32 ? 32 : top), 1.0) * unit);
      plan[0] = static_cast<int>(
          std::clamp(room, static_cast<double>(plan[2]), static_cast<double>(most_reps)));
      // A size that does not fit at the minimum is not started.
      plan[3] = unit * std::pow(g, s) * plan[2] > left;
      last_per_rep = per_rep;
    }
    if (const int rc = waits::bcast(plan, 4, MPI_INT, 0, c.comm); rc != MPI_SUCCESS) return rc;
    if (plan[3]) {
      c.cut_short("sweeps stopped after " + std::to_string(static_cast<long long>(m)) +
                  " bytes (budget: the next size would not fit)");
      break;
    }
    reps.max_reps = plan[0];
    reps.min_reps = plan[2];
    if (plan[1] != stride) {
      c.say("  slow sizes: after " + std::to_string(static_cast<long long>(m)) +
            " bytes, sizes 2^(k/2) for k a multiple of " + std::to_string(plan[1]) + ", at least " +
            std::to_string(plan[2]) + " repetitions (budget)");
      stride = plan[1];
      k -= k % stride;  // the next size is the next multiple of the new stride
    }
    before = e;
  }
  for (Sweep& s : *out) sort_by_size(&s);  // refinements were appended after their bracket
  // Held-out sizes are interior: the largest size measured trains (a correction curve is
  // constant beyond its ends, so validating there would test an extrapolation).
  for (Sweep& s : *out) {
    if (!s.held_out.empty()) s.held_out.back() = false;
  }
  return MPI_SUCCESS;
}

int unlike_sweeps(Context& c, double until, const model::LmoParams& p, std::span<const int> members,
                  std::vector<Sweep>* out) {
  constexpr double kLargest = 1024;  // where a root's own costs still show beside the bytes'
  std::unique_ptr<bench::TimingMethod> timing = bench::make_timing(c.o.timing);
  if (!timing || out->empty() || c.size < 3) return MPI_SUCCESS;
  int root = c.size - 1;
  if (c.rank == 0) root = model::least_like_rank0(p, members, kLargest);
  if (const int rc = waits::bcast(&root, 1, MPI_INT, 0, c.comm); rc != MPI_SUCCESS) return rc;
  if (members[root] == members[0]) return MPI_SUCCESS;
  double top = 0;  // the largest size the root-0 sweeps trained on
  const Sweep& grid = out->front();
  for (std::size_t i = 0; i < grid.m.size(); ++i) {
    if (!grid.held_out[i]) top = std::max(top, grid.m[i]);
  }
  std::vector<Sweep> sw;
  for (const Algorithm& a : algorithms()) {
    if (a.build || (a.native() && members[root] == members[c.size - 1])) continue;
    sw.push_back({a.op, &a, root, {}, {}, {}, {}, true});
  }
  bench::Adaptive reps = sweep_reps(c.o);
  reps.min_reps = reps.max_reps = std::max(3, reps.min_reps / 2);
  double last = 0;  // what the last size took
  c.phase("4/5 sweeps at root " + std::to_string(root) +
          ", the rank least like rank 0 (sizes 1, 32, 1024)");
  for (double m = 1; m <= std::min(kLargest, top); m *= 32) {
    double e = 0;
    if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
    if (e >= until || (last > 0 && e + 2 * last > until)) {
      c.cut_short("sweeps at root " + std::to_string(root) + " stopped before " +
                  std::to_string(static_cast<long long>(m)) + " bytes (budget)");
      break;
    }
    for (Sweep& s : sw) {
      long long reps_run = 0;
      if (const int rc = measure_row(c, s, m, false, *timing, reps, &reps_run); rc != MPI_SUCCESS) {
        return rc;
      }
    }
    double after = 0;
    if (const int rc = c.elapsed(&after); rc != MPI_SUCCESS) return rc;
    last = after - e;
  }
  for (Sweep& s : sw) {
    if (!s.m.empty()) out->push_back(std::move(s));
  }
  return MPI_SUCCESS;
}

int native_told(Context& c, double until, const ToldSizes& at, std::vector<Sweep>* told) {
  std::unique_ptr<bench::TimingMethod> timing = bench::make_timing(c.o.timing);
  if (!timing) return MPI_SUCCESS;
  bench::Adaptive reps = sweep_reps(c.o);
  reps.min_reps = reps.max_reps = kToldReps;
  for (int op = 0; op < kNumOps; ++op) {
    const Algorithm* native = &native_algorithm(static_cast<Op>(op));
    for (const double m : at[op]) {
      if (m <= 0) break;
      const std::string what = std::string("native ") + std::string(op_name(static_cast<Op>(op))) +
                               " at " + std::to_string(static_cast<long long>(m)) + " bytes";
      double e = 0;
      if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
      if (e >= until) {
        c.cut_short(what + " (where its models part) not measured (budget)");
        continue;
      }
      c.phase("4/5 " + what + ", root 0 and " + std::to_string(c.size - 1) +
              ": where the models that fit its sweeps equally part");
      for (const int root : {0, c.size - 1}) {
        Sweep s{static_cast<Op>(op), native, root, {}, {}, {}, {}};
        long long reps_run = 0;
        if (const int rc = measure_row(c, s, m, false, *timing, reps, &reps_run);
            rc != MPI_SUCCESS) {
          return rc;
        }
        told->push_back(std::move(s));
      }
    }
  }
  return MPI_SUCCESS;
}

void merge_told(std::vector<Sweep> told, std::vector<Sweep>* sw) {
  for (Sweep& t : told) {
    const auto it = std::find_if(sw->begin(), sw->end(), [&](const Sweep& s) {
      return s.op == t.op && s.alg == t.alg && s.root == t.root && !s.unlike;
    });
    if (it == sw->end()) {
      sw->push_back(std::move(t));
      continue;
    }
    it->m.insert(it->m.end(), t.m.begin(), t.m.end());
    it->time.insert(it->time.end(), t.time.begin(), t.time.end());
    it->ci.insert(it->ci.end(), t.ci.begin(), t.ci.end());
    it->held_out.insert(it->held_out.end(), t.held_out.begin(), t.held_out.end());
    sort_by_size(&*it);
  }
}

// Peers of a fan-out experiment: enough that a shared port shows before the peers' own links
// (a port 1/7 as fast as theirs); O(n) experiments.
constexpr int kFanOutPeers = 7;
constexpr int kPortBytes = 65536;  // fan-outs and fan-ins

namespace {

// Pairs whose parallel M-byte roundtrip was slow for a star (model::contended_pairs), measured
// again one at a time, in a twentieth of the budget at most (none past `last_round`), the rest
// estimated (model::settle_contended). A process's fastest pair measured alone can make more
// pairs suspect: up to three rounds. The same on every rank.
constexpr double kAloneShare = 0.05;
constexpr int kAloneRounds = 3;
int contended(Context& c, double m, const bench::Adaptive& a, double last_round,
              model::LmoMeasurements* x) {
  x->contention = {};
  if (hooks::value(hooks::Hook::kKeepParallel)) return MPI_SUCCESS;  // test builds: as before
  double e = 0;
  int rc = c.elapsed(&e);
  if (rc != MPI_SUCCESS) return rc;
  bench::Adaptive alone = a;
  alone.min_reps = 3;
  alone.max_reps = c.o.quick ? 5 : 10;
  alone.last_round = c.t0 + std::min(last_round, e + kAloneShare * c.o.budget);
  alone.deadline = std::min(a.deadline, alone.last_round);
  model::LmoMeasurements y = *x;  // with every alone measurement so far
  std::vector<std::pair<int, int>> suspects;
  std::vector<model::AloneRoundtrip> got;
  const auto at = [n = static_cast<std::size_t>(x->n)](std::pair<int, int> p) {
    return static_cast<std::size_t>(p.first) * n + static_cast<std::size_t>(p.second);
  };
  std::vector<char> asked(static_cast<std::size_t>(x->n) * x->n, 0);
  for (int round = 0; round < kAloneRounds; ++round) {
    auto fresh = model::contended_pairs(y);
    std::erase_if(fresh, [&](auto p) { return asked[at(p)] != 0; });
    if (fresh.empty()) break;
    for (const auto& p : fresh) asked[at(p)] = 1;
    suspects.insert(suspects.end(), fresh.begin(), fresh.end());
    std::vector<bench::PairResult> res;
    if ((rc = bench::roundtrips_alone(c.comm, static_cast<int>(m), 0, fresh, alone, &res)) !=
        MPI_SUCCESS) {
      return rc;
    }
    for (const auto& p : res) {
      got.push_back({p.i, p.j, {p.stats.mean, p.stats.half_width}});
      y.full(p.i, p.j) = y.full(p.j, p.i) = got.back().time;
    }
    if (res.size() < fresh.size()) break;  // the share is spent
  }
  if (suspects.empty()) return MPI_SUCCESS;
  model::settle_contended(x, suspects, got);
  const auto& k = x->contention;
  c.say("  pairs slow beside others: " + std::to_string(k.suspects) + ", measured alone " +
        std::to_string(k.alone) + ", estimated " + std::to_string(k.estimated) +
        (k.alone > 0 ? " (alone / beside others " + fmt(k.alone_over_parallel, 3) + ")" : ""));
  return MPI_SUCCESS;
}

}  // namespace

// Phase 3: LMO experiments with M bytes (and empty roundtrips unless x has them); results on
// every rank.
// *before_fans: the agreed elapsed time when the roundtrips and one-to-two experiments ended.
// `until`: the elapsed time past which each series ends after 2 repetitions (budget).
int lmo(Context& c, double m, int per_root, double until, double last_round,
        model::LmoMeasurements* x, double* before_fans, bool* complete) {
  *complete = false;
  // Every rank holds every result: the same count, the same verdict.
  const auto short_of = [&](std::size_t got, std::size_t want, const char* what) {
    if (got >= want) return false;
    c.why = "the LMO experiments did not fit in " + fmt(last_round, 3) +
            " s: " + std::to_string(got) + " of " + std::to_string(want) + " " + what;
    return true;
  };
  const std::size_t all_pairs = static_cast<std::size_t>(c.size) * (c.size - 1) / 2;
  bench::Adaptive a;
  a.deadline = c.t0 + until;
  a.last_round = c.t0 + last_round;
  a.min_reps = c.o.quick ? 3 : 6;
  a.max_reps = c.o.quick ? 10 : 40;
  a.rel_error = c.o.quick ? 0.05 : 0.01;
  a.median = true;  // as the sweeps: a preempted repetition does not move C_i, t_i or beta_ij
  const int n = c.size;
  x->m = m;
  x->m_rt.assign(static_cast<std::size_t>(n) * n, {});
  std::vector<bench::PairResult> pairs;
  int rc = MPI_SUCCESS;
  if (x->n != n) {
    x->n = n;
    x->empty_rt.assign(static_cast<std::size_t>(n) * n, {});
    if ((rc = bench::roundtrips(c.comm, 0, 0, true, a, &pairs)) != MPI_SUCCESS) return rc;
    if (short_of(pairs.size(), all_pairs, "empty roundtrips")) return MPI_SUCCESS;
    for (const auto& p : pairs) {
      x->empty(p.i, p.j) = x->empty(p.j, p.i) = {p.stats.mean, p.stats.half_width};
    }
    c.say("  empty roundtrips: " + std::to_string(pairs.size()) + " pairs");
    pairs.clear();
  }
  if ((rc = bench::roundtrips(c.comm, static_cast<int>(m), 0, true, a, &pairs)) != MPI_SUCCESS) {
    return rc;
  }
  if (short_of(pairs.size(), all_pairs, "M-byte roundtrips")) return MPI_SUCCESS;
  for (const auto& p : pairs) {
    x->full(p.i, p.j) = x->full(p.j, p.i) = {p.stats.mean, p.stats.half_width};
  }
  c.say("  " + std::to_string(static_cast<long long>(m)) +
        "-byte roundtrips: " + std::to_string(pairs.size()) + " pairs");
  if ((rc = contended(c, m, a, last_round, x)) != MPI_SUCCESS) return rc;
  auto triplets = model::lmo_triplets(n, per_root);
  model::faster_first(*x, &triplets);
  if (!triplets.empty()) {
    std::vector<bench::TripletResult> res;
    rc = bench::one_to_two(c.comm, static_cast<int>(m), triplets, a, &res);
    if (rc != MPI_SUCCESS) return rc;
    if (short_of(res.size(), triplets.size(), "one-to-two experiments")) return MPI_SUCCESS;
    for (const auto& t : res) {
      x->one_to_two.push_back({t.i, t.j, t.k, {t.stats.mean, t.stats.half_width}});
    }
    c.say("  one-to-two: " + std::to_string(res.size()) + " triplets");
  }
  if ((rc = c.elapsed(before_fans)) != MPI_SUCCESS) return rc;
  // Fan-outs to the fastest peers (once per calibration): empty ones for how much of C_i the
  // sends serialize, kPortBytes ones for whether a process's concurrent sends share a port
  // (large, whatever M: at 1 KiB a slow host's port is lost in its latencies).
  if (const auto groups = model::fan_out_groups(*x, kFanOutPeers); !groups.empty()) {
    for (const double bytes : {0.0, static_cast<double>(kPortBytes)}) {
      if (std::ranges::any_of(x->fan_out, [&](const auto& f) { return f.bytes == bytes; })) {
        continue;
      }
      std::vector<bench::FanOutResult> res;
      rc = bench::fan_out(c.comm, static_cast<int>(bytes), groups, a, &res);
      if (rc != MPI_SUCCESS) return rc;
      if (short_of(res.size(), groups.size(), "fan-outs")) return MPI_SUCCESS;
      for (auto& f : res) {
        x->fan_out.push_back({f.i,
                              std::move(f.peers),
                              bytes,
                              {f.stats.mean, f.stats.half_width},
                              {f.issued.mean, f.issued.half_width}});
      }
      c.say("  " + std::to_string(static_cast<long long>(bytes)) +
            "-byte fan-outs: " + std::to_string(res.size()) + " processes, " +
            std::to_string(groups.front().size() - 1) + " peers each");
    }
    // Fan-ins from the same peers (once, of kPortBytes): whether a process's incoming
    // transfers share a port. Large, whatever M: at 1 KiB a port is lost in the latencies.
    if (x->fan_in.empty()) {
      std::vector<bench::FanOutResult> res;
      if ((rc = bench::fan_in(c.comm, kPortBytes, groups, a, &res)) != MPI_SUCCESS) return rc;
      if (short_of(res.size(), groups.size(), "fan-ins")) return MPI_SUCCESS;
      for (auto& f : res) {
        x->fan_in.push_back(
            {f.i, std::move(f.peers), kPortBytes, {f.stats.mean, f.stats.half_width}});
      }
      c.say("  " + std::to_string(kPortBytes) + "-byte fan-ins: " + std::to_string(res.size()) +
            " processes");
    }
  }
  *complete = true;
  return MPI_SUCCESS;
}

int segments_wait(Context& c, double* eager) {
  *eager = model::kNever;
  if (c.size < 2) return MPI_SUCCESS;
  constexpr int kReps = 3;
  constexpr std::array<int, 2> kSizes = {4096, 32768};
  std::vector<char> buf(kSizes.back());
  std::array<double, 2> waited{}, one_way{};  // rank 0: medians over the repetitions
  int rc = MPI_SUCCESS;
  for (std::size_t s = 0; s < kSizes.size() && rc == MPI_SUCCESS; ++s) {
    const int m = kSizes[s];
    std::array<double, kReps> dt{}, half_rtt{};
    for (int r = 0; r < kReps && rc == MPI_SUCCESS; ++r) {
      rc = waits::barrier(c.comm);
      if (rc != MPI_SUCCESS) break;
      if (c.rank == 0) {
        MPI_Request req;
        rc = PMPI_Isend(buf.data(), m, MPI_BYTE, 1, 1, c.comm, &req);
        if (rc == MPI_SUCCESS) rc = waits::send(nullptr, 0, MPI_BYTE, 1, 2, c.comm);
        if (rc == MPI_SUCCESS) rc = waits::wait(&req, MPI_STATUS_IGNORE);
        const double t = PMPI_Wtime();
        if (rc == MPI_SUCCESS) rc = waits::send(buf.data(), m, MPI_BYTE, 1, 3, c.comm);
        if (rc == MPI_SUCCESS)
          rc = waits::recv(buf.data(), m, MPI_BYTE, 1, 3, c.comm, MPI_STATUS_IGNORE);
        half_rtt[r] = (PMPI_Wtime() - t) / 2;
        if (rc == MPI_SUCCESS)
          rc = waits::recv(&dt[r], 1, MPI_DOUBLE, 1, 4, c.comm, MPI_STATUS_IGNORE);
      } else if (c.rank == 1) {
        rc = waits::recv(nullptr, 0, MPI_BYTE, 0, 2, c.comm, MPI_STATUS_IGNORE);
        const double t = PMPI_Wtime();
        if (rc == MPI_SUCCESS)
          rc = waits::recv(buf.data(), m, MPI_BYTE, 0, 1, c.comm, MPI_STATUS_IGNORE);
        double d = PMPI_Wtime() - t;
        if (rc == MPI_SUCCESS)
          rc = waits::recv(buf.data(), m, MPI_BYTE, 0, 3, c.comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = waits::send(buf.data(), m, MPI_BYTE, 0, 3, c.comm);
        if (rc == MPI_SUCCESS) rc = waits::send(&d, 1, MPI_DOUBLE, 0, 4, c.comm);
      }
    }
    std::sort(dt.begin(), dt.end());
    std::sort(half_rtt.begin(), half_rtt.end());
    waited[s] = dt[kReps / 2], one_way[s] = half_rtt[kReps / 2];
  }
  double e = model::kNever;
  if (c.rank == 0 && rc == MPI_SUCCESS) {
    // Under SMPI a waiting segment's receive takes 0.54-0.63 of a one-way transfer (the
    // roundtrip's halves carry both ends' overheads); an eager one, a copy of what is in.
    const bool small = waited[0] > 0.25 * one_way[0], large = waited[1] > 0.25 * one_way[1];
    e = small ? 0 : large ? kSizes[0] : model::kNever;
    c.say("  segments of " + std::to_string(kSizes[0]) + " and " + std::to_string(kSizes[1]) +
          " bytes " + (small ? "wait" : "do not wait") + " and " +
          (large ? "wait" : "do not wait") +
          " for their receive (received after an empty message sent behind them: " +
          fmt(waited[0] * 1e6) + " and " + fmt(waited[1] * 1e6) + " us, a one-way transfer " +
          fmt(one_way[0] * 1e6) + " and " + fmt(one_way[1] * 1e6) + " us)");
  }
  if (rc != MPI_SUCCESS) return rc;
  rc = waits::bcast(&e, 1, MPI_DOUBLE, 0, c.comm);
  *eager = e;
  return rc;
}

int share_params(Context& c, const model::LmoParams* on_root, model::LmoParams* p, bool* ok) {
  // Each vector: its length, then its values; then S, M1, M2, kappa1, kappa2. Empty: none.
  std::vector<double> flat;
  if (c.rank == 0 && on_root) {
    *p = *on_root;
    for (const auto* v : {&p->C, &p->t, &p->inv_beta, &p->port, &p->port_in, &p->o}) {
      flat.push_back(static_cast<double>(v->size()));
      for (const model::Estimate& e : *v) flat.push_back(e.value);
    }
    flat.insert(flat.end(), {p->S, p->M1, p->M2, p->kappa1, p->kappa2});
  }
  long long count = static_cast<long long>(flat.size());
  int rc = waits::bcast(&count, 1, MPI_LONG_LONG, 0, c.comm);
  if (rc == MPI_SUCCESS && count > 0 && c.rank != 0) flat.resize(static_cast<std::size_t>(count));
  if (rc == MPI_SUCCESS && count > 0) {
    rc = waits::bcast(flat.data(), static_cast<int>(count), MPI_DOUBLE, 0, c.comm);
  }
  *ok = rc == MPI_SUCCESS && count > 0;
  if (!*ok || c.rank == 0) return rc;
  std::size_t at = 0;
  for (auto* v : {&p->C, &p->t, &p->inv_beta, &p->port, &p->port_in, &p->o}) {
    v->assign(static_cast<std::size_t>(flat[at++]), {});
    for (model::Estimate& e : *v) e.value = flat[at++];
  }
  p->S = flat[at], p->M1 = flat[at + 1], p->M2 = flat[at + 2];
  p->kappa1 = flat[at + 3], p->kappa2 = flat[at + 4];
  return MPI_SUCCESS;
}

// The tree of a built algorithm for m bytes at root 0, rebuilt when m leaves *cls, the size
// class *tree was built for. The same parameters on every rank: every rank fails alike.
int tree_for(Context& c, const Algorithm& a, const model::LmoParams& p,
             std::span<const int> members, double m, int* cls,
             std::shared_ptr<const BuiltTree>* tree) {
  if (model::size_class(m) == *cls) return MPI_SUCCESS;
  *cls = model::size_class(m);
  try {
    *tree = model::build_tree(a, p, members, 0, m);
  } catch (const std::exception& ex) {
    c.why = std::string(a.name) + " could not be built: " + ex.what();
    return MPI_ERR_OTHER;
  }
  return MPI_SUCCESS;
}

// A built tree swept on past the grid's largest size (s, complete to there): sizes 2x apart,
// held out and training in turn, the largest training, each while it fits at the minimum
// repetitions (projected from the last row's time, linear in bytes) before `until` less `later`
// and within kPastGridShare of the budget, so that its reach is its own rather than the fixed
// sweeps' (docs/calibration.md, phase 5). One not `decided` (a candidate only where swept) right
// after its grid sweep, whose repetitions leave kPastGridShare of the budget for it, and again
// once every tree's grid sweep is done; the others then. Its sizes, long messages, take
// kPastGridReps repetitions at least.
constexpr double kPastGridShare = 0.05;
constexpr int kPastGridReps = 3;
int past_the_grid(Context& c, double until, bench::TimingMethod& timing, bench::Adaptive reps,
                  int most_reps, double later, const model::LmoParams& p,
                  std::span<const int> members, Sweep* s) {
  if (s->m.empty()) return MPI_SUCCESS;
  reps.min_reps = std::min(reps.min_reps, kPastGridReps);
  double start = 0;
  if (const int rc = c.elapsed(&start); rc != MPI_SUCCESS) return rc;
  const double by = std::min(start + kPastGridShare * c.o.budget, until - later);
  const double top = sweep_size(c.o.quick ? 40 : 44);
  std::shared_ptr<const BuiltTree> tree;
  int tree_class = -1;
  bool held = true, any = false;
  for (double m = 2 * s->m.back(); m <= top && m * c.size <= kMaxBytesTotal; m *= 2, held = !held) {
    double e = 0;
    if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
    int plan = 0;  // repetitions at most; 0: stop (rank 0's, from its times)
    if (c.rank == 0) {
      const double per_rep = s->time.back() * m / s->m.back();
      if (e + per_rep * reps.min_reps <= by) {
        plan = static_cast<int>(std::clamp((by - e) / std::max(per_rep, 1e-12),
                                           static_cast<double>(reps.min_reps),
                                           static_cast<double>(most_reps)));
      }
    }
    if (const int rc = waits::bcast(&plan, 1, MPI_INT, 0, c.comm); rc != MPI_SUCCESS) return rc;
    if (plan == 0) break;
    reps.max_reps = plan;
    if (const int rc = tree_for(c, *s->alg, p, members, m, &tree_class, &tree); rc != MPI_SUCCESS) {
      return rc;
    }
    long long reps_run = 0;
    if (const int rc = measure_row(c, *s, m, held, timing, reps, &reps_run, tree);
        rc != MPI_SUCCESS) {
      return rc;
    }
    any = true;
  }
  if (any) {
    s->held_out.back() = false;  // the largest size trains (curves are flat past their ends)
    c.say("  " + std::string(op_name(s->op)) + " " + s->label() + " swept on to " +
          std::to_string(static_cast<long long>(s->m.back())) + " bytes");
  }
  return MPI_SUCCESS;
}

int built_sweeps(Context& c, double until, const model::LmoParams& p, std::span<const int> members,
                 std::vector<Sweep>* out) {
  std::unique_ptr<bench::TimingMethod> timing = bench::make_timing(c.o.timing);
  if (!timing) {
    c.why = "unknown timing method '" + c.o.timing + "'";
    return MPI_ERR_ARG;
  }
  if (out->empty()) return MPI_SUCCESS;
  const std::size_t fixed = out->size();
  const Sweep grid = out->front();  // rows, sizes and held-out flags as the fixed sweeps had
  const std::size_t rows = grid.m.size();
  // Those not `decided` first (without a sweep of their own they are no candidates at all),
  // then the others in the registry's order.
  // Those that differ from their stand-ins only with escalations (split) last, and not at all
  // where they are their stand-in's schedule on these parameters (no candidate: the stand-in's
  // sweep is its own).
  std::vector<const Algorithm*> order;
  for (int group = 0; group < 3; ++group) {
    for (const Algorithm& a : algorithms()) {
      if (!a.build) continue;
      const bool late = !a.decided && model::stand_in_without_escalations(a, c.size);
      const bool its_group = late ? group == 2 : group == (a.decided ? 1 : 0);
      // Late ones, and decided ones (node-aware trees where every process has a host of its
      // own, or all one host), that are their stand-in here: its sweep is theirs.
      if (its_group && (late || a.decided) && model::builds_its_stand_in(a, p, members)) {
        c.as_stand_in.push_back(std::string(a.name) + " (" + std::string(a.like) + ")");
      } else if (its_group) {
        order.push_back(&a);
      }
    }
  }
  // A repetition's cost per tree and row, before measuring: the slowest fixed algorithm of its
  // op at root 0 there.
  std::vector<std::vector<double>> cost(order.size(), std::vector<double>(rows, 0));
  for (std::size_t b = 0; b < order.size(); ++b) {
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < fixed; ++j) {
        const Sweep& s = (*out)[j];
        if (s.op == order[b]->op && s.root == 0 && i < s.time.size() &&
            grid.m[i] >= order[b]->swept_from) {
          cost[b][i] = std::max(cost[b][i], s.time[i]);
        }
      }
    }
  }
  bench::Adaptive reps = sweep_reps(c.o);
  const int most_reps = reps.max_reps;
  // What the trees after b that fit by `until` from `e` cost at the minimum repetitions, every
  // row (those that fit in turn: a tree that does not fit is not swept at all).
  const auto later_cost = [&](std::size_t b, double e) {
    double sum = 0;
    for (std::size_t k = b + 1; k < order.size(); ++k) {
      double one = 0;
      for (double x : cost[k]) one += x * reps.min_reps;
      if (e + sum + one > until) break;
      sum += one;
    }
    return sum;
  };
  c.retries = 0;  // the fixed sweeps' retries are theirs
  for (std::size_t b = 0; b < order.size(); ++b) {
    const Algorithm& a = *order[b];
    Sweep s{a.op, &a, 0, {}, {}, {}, {}};
    std::shared_ptr<const BuiltTree> tree;  // of the size class being measured
    int tree_class = -1;
    bool complete = true;
    // Left for past_the_grid by the repetitions' plan (never a row less).
    const double kept_back = a.decided ? 0 : kPastGridShare * c.o.budget;
    for (std::size_t i = 0; i < rows && complete; ++i) {
      const double m = grid.m[i];
      if (m < a.swept_from) continue;
      double e = 0;
      if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
      int plan[2] = {0, 0};  // repetitions at most, stop (rank 0's, from its times)
      if (c.rank == 0) {
        double rest = 0;  // what this tree's rows from here and the later trees cost, per rep
        for (std::size_t j = i; j < rows; ++j) rest += cost[b][j];
        for (std::size_t k = b + 1; k < order.size(); ++k) {
          for (double x : cost[k]) rest += x;
        }
        const double left = until - e;
        plan[0] = static_cast<int>(std::clamp((left - kept_back) / std::max(rest, 1e-12),
                                              static_cast<double>(reps.min_reps),
                                              static_cast<double>(most_reps)));
        double mine = 0;  // this tree's rows from here at the minimum
        for (std::size_t j = i; j < rows; ++j) mine += cost[b][j] * reps.min_reps;
        plan[1] = mine > left;
      }
      if (const int rc = waits::bcast(plan, 2, MPI_INT, 0, c.comm); rc != MPI_SUCCESS) return rc;
      if (plan[1]) {
        complete = false;
        break;
      }
      reps.max_reps = plan[0];
      if (const int rc = tree_for(c, a, p, members, m, &tree_class, &tree); rc != MPI_SUCCESS) {
        return rc;
      }
      long long reps_run = 0;
      if (const int rc = measure_row(c, s, m, grid.held_out[i], *timing, reps, &reps_run, tree);
          rc != MPI_SUCCESS) {
        return rc;
      }
      if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
      if (e > until && i + 1 < rows) complete = false;
    }
    if (complete && !a.decided) {
      double e = 0;
      if (const int rc = c.elapsed(&e); rc != MPI_SUCCESS) return rc;
      if (const int rc =
              past_the_grid(c, until, *timing, reps, most_reps, later_cost(b, e), p, members, &s);
          rc != MPI_SUCCESS) {
        return rc;
      }
    }
    if (complete && s.m.size() < 2) {  // no curve: the grid ended below its sizes, not the budget
      c.say("  " + std::string(op_name(a.op)) + " " + std::string(a.name) +
            " not swept: the fixed sweeps ended below its sizes");
      continue;
    }
    if (!complete) {  // this tree and the later ones keep their stand-ins' corrections
      std::string names;
      for (std::size_t k = b; k < order.size(); ++k)
        names += (k > b ? ", " : "") + std::string(order[k]->name);
      c.cut_short("built trees not swept to the end, so not kept: " + names + " (budget)");
      break;
    }
    out->push_back(std::move(s));
  }
  // In what every tree's grid sweep left: the others past the grid a second time (on from
  // where the first turn stopped: a candidate only to twice their largest size), then the
  // `decided` ones.
  for (const bool decided : {false, true}) {
    for (std::size_t i = fixed; i < out->size(); ++i) {
      Sweep& s = (*out)[i];
      if (s.alg->decided != decided) continue;
      if (const int rc = past_the_grid(c, until, *timing, reps, most_reps, 0, p, members, &s);
          rc != MPI_SUCCESS) {
        return rc;
      }
    }
  }
  return MPI_SUCCESS;
}

}  // namespace colltune::calibrate

// The run (calibration.hpp): phases, the budget's shares, agreement on what rank 0 decides.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "../algorithms/registry.hpp"
#include "../algorithms/waits.hpp"
#include "../bench/experiments.hpp"
#include "../model/estimate.hpp"
#include "../model/platform_model.hpp"
#include "../model/trees.hpp"
#include "../table/yaml_util.hpp"
#include "../test_hooks.hpp"
#include "calibration.hpp"
#include "fit.hpp"
#include "measure.hpp"
#include "report.hpp"

namespace colltune::calibrate {

namespace {

constexpr double kMeasureShare = 0.9;    // measurements end by this fraction of the budget
constexpr double kFirstPassShare = 0.3;  // the first LMO experiments' series, shortened past it
constexpr double kFirstPassLast = 0.7;   // and the last of their rounds that may start
// At least this is left for the model and the table (rank 0's fit, the text and every rank's
// parse of it: 80-100 ms at np 2 on a 2-core VM, docs/calibration.md), times rank 0's crowding.
constexpr double kBuildSeconds = 0.15;

int run_impl(MPI_Comm comm, const Options& o, Result* out, std::string* why) {
  Context c{comm, 0, 1, o, PMPI_Wtime(), {}, {}};
  int rc = bench::rank_size(comm, &c.rank, &c.size);
  if (rc != MPI_SUCCESS) return rc;
  if (c.size < 2) {
    *why = "calibration needs at least 2 processes";
    return MPI_ERR_COMM;
  }
  if (!find_algorithm(Op::kScatter, "linear") || !find_algorithm(Op::kGather, "linear")) {
    *why = "the registry lacks linear scatter or gather";
    return MPI_ERR_OTHER;
  }
  // Align rank 0's clock start with everyone's.
  if ((rc = waits::barrier(comm)) != MPI_SUCCESS) return rc;
  c.t0 = PMPI_Wtime();

  std::vector<std::string> ids;
  std::vector<int> of_rank;
  std::vector<std::string> hosts;
  double crowding = 1;
  c.phase("1/5 identities");
  if ((rc = identities(c, &ids, &of_rank, &hosts, &crowding)) != MPI_SUCCESS) return rc;
  c.say("  " + std::to_string(c.size) + " processes, " + std::to_string(ids.size()) +
        " identities" +
        (crowding > 1 ? "; " + fmt(crowding, 3) + " per CPU on rank 0's host" : std::string()));

  // M: the largest power of two from 1 KiB to 64 KiB at most S / 2 (S found with the model the
  // experiments give); up to three passes, of which the model that fits the sweeps best is
  // kept. The first pass runs before the sweeps (docs/calibration.md, phases 2 and 4).
  // Triplets per root (lmo_triplets caps them at C(n - 1, 2)): 6, or 2 when quick.
  const int per_root = o.quick ? 2 : 6;
  std::vector<Sweep> sw;
  model::LmoMeasurements x;
  std::vector<int> ranks(c.size);
  std::iota(ranks.begin(), ranks.end(), 0);
  constexpr double kLargestM = 65536;
  double m = kLargestM;
  model::LmoMeasurements best;  // rank 0: the pass whose model fits the sweeps best
  double best_error = std::numeric_limits<double>::infinity();
  constexpr double kSmallestM = 1024;
  // Below this a break is a latency-bound effect (a shaper's burst, eager buffers), not a
  // regime for per-byte parameters to be measured under.
  constexpr double kSmallestBreak = 4096;
  double first_break = model::kNever;  // rank 0: the scatter sweep's break by the first pass
  bool best_clear = false;
  std::string errors;  // rank 0: each pass's fit
  int passes = 0;
  // The budget's shares (docs/calibration.md): measurements end by 90% of it (at least
  // kBuildSeconds x crowding left, at most 40%), the first LMO pass's series shortened past 30%
  // and its rounds stopped past 70%; the model, corrections and validation use the rest.
  const double measured_by =
      o.budget -
      std::min(std::max((1 - kMeasureShare) * o.budget, kBuildSeconds * crowding), 0.4 * o.budget);
  double repeat_cost = 0;  // what a further pass repeats: the first's roundtrips and one-to-two
  // Built trees are swept after the last pass, on the final parameters (not when quick: a first
  // launch's budget; then they borrow their stand-in's corrections, Algorithm::like), in the
  // time the fixed sweeps and the LMO passes left; kept only when complete.
  const bool sweep_built = !o.quick;
  for (int pass = 0; pass < 3; ++pass) {
    double e0 = 0, e1 = 0;
    if ((rc = c.elapsed(&e0)) != MPI_SUCCESS) return rc;
    if (pass > 0 && e0 + repeat_cost > measured_by) {
      c.cut_short("LMO experiments at M = " + std::to_string(static_cast<long long>(m)) +
                  " bytes not started (budget)");
      break;
    }
    c.phase(std::string(pass ? "3/5" : "2/5") +
            " LMO experiments (M = " + std::to_string(static_cast<long long>(m)) + " bytes)");
    const double until = pass == 0 ? kFirstPassShare * o.budget : measured_by;
    const double last_round = pass == 0 ? kFirstPassLast * o.budget : measured_by;
    bool complete = false;
    if ((rc = lmo(c, m, per_root, until, last_round, &x, &e1, &complete)) != MPI_SUCCESS) {
      *why = "LMO experiments failed";
      return rc;
    }
    if (!complete && pass == 0) {  // nothing to fit a model on
      *why = c.why + " (budget " + fmt(o.budget, 3) + " s)";
      return MPI_ERR_OTHER;
    }
    if (!complete) {  // a later pass: the earlier ones stand
      c.cut_short(c.why + "; the earlier M kept");
      break;
    }
    ++passes;
    if (pass == 0) {
      repeat_cost = e1 - e0;
      double e2 = 0;
      if ((rc = c.elapsed(&e2)) != MPI_SUCCESS) return rc;
      if (e2 > until) c.cut_short("first LMO experiments ended early (budget)");
      c.phase("3/5 sweeps of every algorithm (sizes 2^(k/2); odd k but the last held out)");
      // A second pass repeats what the first ran before its fan-outs at a smaller M: half of it
      // is kept back.
      // The built trees not `decided` (no candidates without a sweep of their own) are kept a
      // share as one more sweep each, but those that are their stand-in on alike processes
      // without escalations (split: swept only where the sweeps find escalations); the other
      // built trees sweep in what is left at the end.
      const double fixed_sweeps =
          static_cast<double>(std::count_if(algorithms().begin(), algorithms().end(),
                                            [](const Algorithm& a) { return !a.build; }) +
                              kNumOps);
      const double undecided = sweep_built
                                   ? static_cast<double>(std::count_if(
                                         algorithms().begin(), algorithms().end(),
                                         [&](const Algorithm& a) {
                                           return a.build && !a.decided &&
                                                  !model::stand_in_without_escalations(a, c.size);
                                         }))
                                   : 0.0;
      const double for_sweeps = measured_by - 0.5 * repeat_cost - e2;
      if ((rc = sweeps(c, e2 + for_sweeps * fixed_sweeps / (fixed_sweeps + undecided), &sw)) !=
          MPI_SUCCESS) {
        *why = c.why;
        return rc;
      }
      const long long trained =
          std::count(sw.front().held_out.begin(), sw.front().held_out.end(), false);
      if (trained < 3) {
        *why = "the budget (" + fmt(o.budget, 3) + " s) left room for " + std::to_string(trained) +
               " training sizes of the sweeps (3 needed)";
        return MPI_ERR_OTHER;
      }
    }
    double next = m;
    std::string fit_failed;  // rank 0: why this pass's fit threw (agreed through `next` < 0)
    if (c.rank == 0) try {
        if (hooks::value(hooks::Hook::kFitThrow)) {  // test builds: a fit that throws on rank 0
          throw std::runtime_error("test hook: the fit throws");
        }
        // The model with what the fan-outs found (o, ports) and LMO as published: the one that
        // fits the sweeps better is this pass's.
        model::LmoParams p = model::estimate_lmo(x);
        ScatterBreak sb = scatter_threshold(sw, p, ranks);
        p.S = sb.S.value;
        double err = fit_error(sw, p, ranks);
        model::LmoMeasurements y = x;
        if (!x.fan_out.empty()) {
          y.fan_out.clear();
          model::LmoParams q = model::estimate_lmo(y);
          const ScatterBreak qb = scatter_threshold(sw, q, ranks);
          q.S = qb.S.value;
          if (const double e = fit_error(sw, q, ranks); e <= err) {
            err = e;
            sb = qb;
            c.say("  fan-outs left out: LMO as published fits the sweeps as well");
          } else {
            y = x;
          }
        }
        // A pass whose M is above its own first break is kept only if no pass is below its
        // break; a first break below kSmallestBreak leaves the choice to the fit (docs).
        if (pass == 0) first_break = sb.first.value;
        const bool clear = m <= sb.first.value && first_break >= kSmallestBreak;
        errors += std::string(pass ? ", " : " ") +
                  "M = " + std::to_string(static_cast<long long>(m)) + ": " + fmt(err, 3) +
                  (clear ? "" : " (above its break)");
        // Of equal fits (within 1%): clear of their break the larger M wins, above it the
        // smaller (docs/calibration.md, phase 4).
        const bool tie_wins = clear ? m > best.m : m < best.m;
        const bool better = clear != best_clear
                                ? clear
                                : err < 0.99 * best_error || (err <= 1.01 * best_error && tie_wins);
        if (better) {
          best_error = err, best_clear = clear, best = std::move(y);
        }
        if (pass < 2) {
          next = kLargestM;
          while (next > kSmallestM && 2 * next > sb.first.value) next /= 2;
          if (next != m) {
            c.say("  scatter sweep breaks at ~" + fmt(sb.first.value) + " bytes: M = " + fmt(next));
          }
        }
      } catch (const std::exception& ex) {
        next = -1;
        fit_failed = ex.what();
      }
    if ((rc = waits::bcast(&next, 1, MPI_DOUBLE, 0, comm)) != MPI_SUCCESS) return rc;
    if (next < 0) {
      *why = c.rank == 0 ? "the model fit failed: " + fit_failed : "rank 0's model fit failed";
      return MPI_ERR_OTHER;
    }
    if (next == m) break;
    m = next;
    x.m_rt.clear();  // the empty roundtrips stay
    x.one_to_two.clear();
  }
  if (c.rank == 0) {  // only rank 0 builds the table
    if (passes > 1) {
      c.say("  model error on the sweeps (mean |ln(predicted / measured)|):" + errors +
            "; M = " + std::to_string(static_cast<long long>(best.m)) + " kept");
    }
    x = std::move(best);
  }

  c.phase("4/5 model, corrections and validation");
  MappedString text;
  std::string report;
  std::optional<Fitted> fitted;
  if (c.rank == 0) {
    try {
      fitted = fit_platform(c, ids, of_rank, sw, x);
    } catch (const std::exception& ex) {
      *why = ex.what();
    }
  }
  std::vector<Sweep> told;  // native where its models part (native_told)
  {  // on the parameters the table will hold: the third root's, then the trees the library builds
    model::LmoParams p;
    bool ok = false;
    if ((rc = share_params(c, fitted ? &fitted->pm.params : nullptr, &p, &ok)) != MPI_SUCCESS) {
      return rc;
    }
    if (ok) {
      // A tenth of the budget at most, half of what is left (when quick, what the sweeps left:
      // kept back for them, it cost the 16-host stars their sizes above 256 B at 3 s).
      double e = 0;
      if ((rc = c.elapsed(&e)) != MPI_SUCCESS) return rc;
      const double until =
          o.quick ? measured_by : e + std::min(0.1 * o.budget, 0.5 * (measured_by - e));
      if ((rc = unlike_sweeps(c, until, p, of_rank, &sw)) != MPI_SUCCESS) {
        *why = c.why;
        return rc;
      }
      // Where the sweeps ended before native's models part (mpich and binomial bcast below
      // 12288 bytes), native once more where they do: a twentieth of the budget at most.
      if ((rc = c.elapsed(&e)) != MPI_SUCCESS) return rc;
      const double by = e + std::min(0.05 * o.budget, 0.5 * (measured_by - e));
      ToldSizes tell{};
      if (fitted) tell = native_telling_sizes(sw, of_rank, fitted->pm, kToldReps, by - e);
      if ((rc = waits::bcast(tell.data(), kNumOps * kMaxTold, MPI_DOUBLE, 0, comm)) !=
          MPI_SUCCESS) {
        return rc;
      }
      if ((rc = native_told(c, by, tell, &told)) != MPI_SUCCESS) {
        *why = c.why;
        return rc;
      }
    }
    if (ok && sweep_built) {
      c.phase("4/5 sweeps of the built trees (root 0, on the trees this table builds)");
      // What a pipelined tree's segments do (chain's builder and model read it): measured
      // before the trees are built for their sweeps, kept in the table.
      if ((rc = segments_wait(c, &p.eager)) != MPI_SUCCESS) {
        *why = "the segment experiment failed";
        return rc;
      }
      if (fitted) fitted->pm.params.eager = p.eager;
      if ((rc = built_sweeps(c, measured_by, model::with_average(p), of_rank, &sw)) !=
          MPI_SUCCESS) {
        *why = c.why;
        return rc;
      }
    }
  }
  const bool was_told = !told.empty();
  merge_told(std::move(told), &sw);
  if (fitted) {
    try {
      if (was_told) fitted->natives = identify_native(sw, of_rank, &fitted->pm);
      text = build_table(c, std::move(*fitted), ids, of_rank, hosts, sw, x, &report);
    } catch (const std::exception& ex) {
      *why = ex.what();
      text.clear();
    }
  }
  long long len = static_cast<long long>(text.size());
  if ((rc = waits::bcast(&len, 1, MPI_LONG_LONG, 0, comm)) != MPI_SUCCESS) return rc;
  if (len == 0) {
    if (why->empty()) *why = "rank 0 could not build the table";
    return MPI_ERR_OTHER;
  }
  text.resize(static_cast<std::size_t>(len));
  if ((rc = waits::bcast(text.data(), static_cast<int>(len), MPI_CHAR, 0, comm)) != MPI_SUCCESS) {
    return rc;
  }
  out->text = std::move(text);
  try {
    YamlReader y("(calibration)");
    out->table = parse_model_table("(calibration)", y.load_string(out->text));
  } catch (const std::exception& ex) {
    *why = std::string("the new table does not parse: ") + ex.what();
    return MPI_ERR_OTHER;
  }
  out->report = report;
  out->seconds = PMPI_Wtime() - c.t0;
  c.say("5/5 done in " + fmt(out->seconds, 3) + " s");
  return MPI_SUCCESS;
}

}  // namespace

int run(MPI_Comm comm, const Options& o, Result* out, std::string* why) {
  const double t0 = PMPI_Wtime();
  try {
    const int rc = run_impl(comm, o, out, why);
    out->seconds = PMPI_Wtime() - t0;
    return rc;
  } catch (...) {  // a local failure: peers may be waiting for this rank (see the header)
    if (waits::Guard* g = waits::current()) g->abandon();
    try {
      throw;
    } catch (const std::bad_alloc&) {
      *why = "out of memory";
    } catch (const std::exception& ex) {
      try {
        *why = ex.what();
      } catch (...) {
      }
    } catch (...) {
    }
  }
  out->seconds = PMPI_Wtime() - t0;
  return MPI_ERR_INTERN;
}

}  // namespace colltune::calibrate

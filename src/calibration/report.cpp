// The table and the report (rank 0): everything measured and fitted -> the table's text, the
// validation report, the decisions of the calibrated communicator, the plot script.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <sstream>

#include "../platform.hpp"
#include "fit.hpp"
#include "measure.hpp"

namespace colltune::calibrate {

using model::Estimate;
using model::PlatformModel;

namespace {

YAML::Node sweeps_node(const std::vector<Sweep>& sw) {
  YAML::Node n(YAML::NodeType::Map);
  for (const Sweep& s : sw) {
    YAML::Node rows(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < s.m.size(); ++i) {
      YAML::Node row(YAML::NodeType::Sequence);
      row.SetStyle(YAML::EmitterStyle::Flow);
      row.push_back(s.m[i]);
      row.push_back(s.time[i]);
      row.push_back(s.ci[i]);
      row.push_back(s.held_out[i] ? 1 : 0);
      rows.push_back(row);
    }
    n[std::string(op_name(s.op))][s.label()] = rows;
  }
  return n;
}

// The decisions for the calibrated communicator at root 0, as table rows, with the reasons.
void world_decisions(const PlatformModel& pm, const model::LmoParams& p,
                     std::span<const int> members, ModelTable* t, std::string* text) {
  const int n = static_cast<int>(members.size());
  for (int op = 0; op < kNumOps; ++op) {
    const std::vector<const Algorithm*> cands = model::candidates(pm, static_cast<Op>(op));
    const auto choices = model::decide(pm, p, static_cast<Op>(op), cands, members, 0);
    SizeEntry e{Range{static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n)}, {}};
    for (const auto& ch : choices) {
      e.bytes.push_back({ch.bytes, ch.algorithm});
      if (ch.predicted.empty()) continue;
      *text += "  " + std::string(op_name(static_cast<Op>(op))) + " " + range_to_string(ch.bytes) +
               ": " + std::string(ch.algorithm->name) + " (at " +
               std::to_string(static_cast<long long>(ch.at)) + " B:";
      for (std::size_t i = 0; i < cands.size(); ++i) {
        *text += " " + std::string(cands[i]->name) + " " +
                 (std::isfinite(ch.predicted[i]) ? fmt(ch.predicted[i] * 1e6) + " us"
                                                 : std::string("not validated here"));
      }
      *text += ")\n";
    }
    t->decisions[op].push_back(std::move(e));
  }
}

}  // namespace

Fitted fit_platform(Context& c, const std::vector<std::string>& ids,
                    const std::vector<int>& of_rank, const std::vector<Sweep>& sw,
                    const model::LmoMeasurements& x) {
  Fitted f;
  PlatformModel& pm = f.pm;
  pm.identities = ids;
  pm.params = by_identity(model::estimate_lmo(x), of_rank, static_cast<int>(ids.size()));
  pm.params.host = model::host_groups(ids);
  model::fill_host_links(&pm.params);
  pm.message_m = x.m;
  const std::vector<int>& members = of_rank;

  // Thresholds: breaks in the ratio measured / predicted (no thresholds yet).
  f.sb = scatter_threshold(sw, pm.params, members);
  pm.S = f.sb.S;
  pm.params.S = pm.S.value;
  f.gt = gather_thresholds(sw, pm.params, members);
  pm.M1 = f.gt.M1;
  pm.M2 = f.gt.M2;
  pm.kappa1 = f.gt.kappa1;
  pm.kappa2 = f.gt.kappa2;
  f.gt.apply(&pm.params);

  c.phase("  thresholds");
  // Which model of native fits native's sweeps (both roots) best.
  f.natives = identify_native(sw, members, &pm);
  c.phase("  native identified");
  return f;
}

// Rank 0: everything measured -> the table text.
MappedString build_table(Context& c, Fitted f, const std::vector<std::string>& ids,
                         const std::vector<int>& of_rank, const std::vector<std::string>& hosts,
                         const std::vector<Sweep>& sw, const model::LmoMeasurements& x,
                         std::string* report) {
  const int k = static_cast<int>(ids.size());
  PlatformModel& pm = f.pm;
  const ScatterBreak& sb = f.sb;
  const GatherThresholds& gt = f.gt;
  const std::string& natives = f.natives;
  const std::vector<int>& members = of_rank;

  // Corrections: measured / predicted on the training sizes, at root 0, (native) at the last
  // rank and (small sizes) at the rank least like rank 0. Calibration records no correction_roots
  // (docs/model-trees.md, "Corrections at roots never swept").
  for (const Sweep& s : sw) {
    model::Curve cv;
    for (std::size_t i = 0; i < s.m.size(); ++i) {
      if (s.held_out[i]) continue;
      const double pred =
          model::predict_uncorrected(pm, pm.params, *s.alg, members, s.root, s.m[i]);
      if (pred > 0 && s.time[i] > 0) {
        cv.m.push_back(s.m[i]);
        cv.y.push_back(s.time[i] / pred);
      }
    }
    // One disturbed size (a load spike on a busy node) must not become a prediction.
    auto& curves = s.unlike      ? pm.correction_unlike_root
                   : s.root == 0 ? pm.correction
                                 : pm.correction_other_root;
    // The third root's three sizes, 32x apart, are not smoothed: a running median there takes
    // a step between two of them for an outlier (homo16 linear bcast: 0.93 at 1 KiB became 0.35).
    curves[static_cast<int>(s.op)][std::string(s.alg->name)] = s.unlike ? cv : cv.smoothed();
  }
  if (const auto u = std::find_if(sw.begin(), sw.end(), [](const Sweep& s) { return s.unlike; });
      u != sw.end()) {
    pm.unlike_roots = {members[0], members[c.size - 1], members[u->root]};
  }
  c.phase("  corrections");
  const Validation v = validate(pm, pm.params, sw, members, c.size);
  pm.error = v.error;
  c.phase("  validation");

  ModelTable t;
  t.platform.mpi_library = mpi_library_version();
  for (const std::string& host : hosts) t.platform.hosts.push_back({host, hwloc_summary()});
  std::string decisions;
  world_decisions(pm, pm.params, members, &t, &decisions);
  c.phase("  decisions");
  t.platform_model = pm;
  t.validation = v.node;
  YAML::Node cal(YAML::NodeType::Map);
  YAML::Node ranks(YAML::NodeType::Sequence);
  ranks.SetStyle(YAML::EmitterStyle::Flow);
  for (int r : of_rank) ranks.push_back(r);
  cal["processes"] = c.size;
  cal["finished"] = format_utc(static_cast<double>(std::time(nullptr)));  // rank 0's clock
  cal["rank_identity"] = ranks;
  cal["quick"] = c.o.quick;
  cal["budget_seconds"] = c.o.budget;
  cal["timing"] = c.o.timing;
  cal["one_to_two_experiments"] = static_cast<int>(x.one_to_two.size());
  cal["fan_out_experiments"] = static_cast<int>(x.fan_out.size());
  cal["fan_in_experiments"] = static_cast<int>(x.fan_in.size());
  if (const auto& k = x.contention; k.suspects > 0) {  // model/contention.hpp
    YAML::Node slow(YAML::NodeType::Map);
    slow["suspects"] = k.suspects;
    slow["measured_alone"] = k.alone;
    slow["estimated"] = k.estimated;
    if (k.alone > 0) {
      slow["alone_over_parallel"] = k.alone_over_parallel;
      slow["alone_over_star"] = k.alone_over_star;
      slow["alone_over_star_p90"] = k.alone_over_star_p90;
    }
    cal["pairs_slow_beside_others"] = slow;
  }
  // The scatter sweep's first break, whether or not S (serialization) explains it.
  cal["scatter_break"] = sb.first.value;
  cal["gather_break"] = gt.first.value;
  YAML::Node cut(YAML::NodeType::Sequence);
  for (const std::string& w : c.cut) cut.push_back(w);
  cal["cut_by_budget"] = cut;
  cal["sweeps"] = sweeps_node(sw);
  t.calibration = cal;
  std::ostringstream rep;
  rep << "LMO parameters (" << k << " identities, M = " << x.m << " bytes)\n";
  for (int i = 0; i < k; ++i) {
    rep << "  " << ids[i] << ": C = " << fmt(pm.params.C[i].value * 1e6) << " +- "
        << fmt(pm.params.C[i].ci * 1e6, 2) << " us";
    if (!pm.params.o.empty() && pm.params.o[i].value < pm.params.C[i].value) {
      rep << " (o = " << fmt(pm.params.o[i].value * 1e6) << " +- "
          << fmt(pm.params.o[i].ci * 1e6, 2) << " us)";
    }
    rep << ", t = " << fmt(pm.params.t[i].value * 1e9) << " +- " << fmt(pm.params.t[i].ci * 1e9, 2)
        << " ns/B";
    if (!pm.params.port.empty() && pm.params.port[i].value > 1e-12) {
      rep << ", port = " << fmt(pm.params.port[i].value * 1e9) << " +- "
          << fmt(pm.params.port[i].ci * 1e9, 2) << " ns/B";
    }
    if (!pm.params.port_in.empty() && pm.params.port_in[i].value > 1e-12) {  // 0.001 ns/B
      rep << ", in = " << fmt(pm.params.port_in[i].value * 1e9) << " +- "
          << fmt(pm.params.port_in[i].ci * 1e9, 2) << " ns/B";
    }
    rep << "\n";
  }
  if (const auto& k = x.contention; k.suspects > 0) {
    rep << "pairs slow beside others (parallel roundtrips): " << k.suspects << ", measured alone "
        << k.alone << ", estimated " << k.estimated;
    if (k.alone > 0) {
      rep << " (alone / beside others: median " << fmt(k.alone_over_parallel, 3)
          << "; alone / a star's: median " << fmt(k.alone_over_star, 3) << ", p90 "
          << fmt(k.alone_over_star_p90, 3) << ")";
    }
    rep << "\n";
  }
  rep << "thresholds: S = " << fmt(pm.S.value) << ", M1 = " << fmt(pm.M1.value)
      << ", M2 = " << fmt(pm.M2.value) << " bytes; kappa1 = " << fmt(pm.kappa1.value * 1e9)
      << ", kappa2 = " << fmt(pm.kappa2.value * 1e9) << " ns/B\n";
  if (std::isfinite(gt.first.value) && !std::isfinite(pm.M2.value)) {
    rep << "  (the linear gather breaks at ~" << fmt(gt.first.value)
        << " bytes, but serializing large messages above it fits the gather sweeps worse)\n";
  }
  if (!c.as_stand_in.empty()) {
    rep << "not swept, their stand-ins' schedules on this table (no candidates):";
    for (const std::string& s : c.as_stand_in) rep << " " << s;
    rep << "\n";
  }
  rep << "budget " << fmt(c.o.budget, 3) << " s; cut by it: ";
  if (c.cut.empty()) rep << "nothing\n";
  for (std::size_t i = 0; i < c.cut.size(); ++i) rep << (i ? "; " : "") << c.cut[i];
  if (!c.cut.empty()) rep << "\n";
  rep << natives << v.report;
  rep << "decisions for this communicator (root 0), predicted times:\n" << decisions;
  *report = rep.str();
  MappedOStream out;
  emit_model_table(t, out);
  return std::move(out).str();
}

std::string plot_script(const ModelTable& t, const std::string& png) {
  std::ostringstream g;
  g << "set terminal pngcairo size 1000,700\nset output '" << png << "'\n"
    << "set logscale xy\nset xlabel 'measured time (s)'\nset ylabel 'predicted time (s)'\n"
    << "set key left top\nset title 'colltune calibration: held-out sizes'\n";
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  const YAML::Node cases = t.validation ? t.validation["cases"] : YAML::Node();
  if (cases && cases.IsSequence()) {
    for (const auto& r : cases) {
      series[r[0].as<std::string>() + " " + r[1].as<std::string>()].push_back(
          {r[4].as<double>(), r[3].as<double>()});
    }
  }
  g << "plot x title 'exact' with lines lc rgb 'gray'";
  for (const auto& [name, pts] : series) g << ", '-' title '" << name << "' with points";
  g << "\n";
  for (const auto& [name, pts] : series) {
    for (const auto& [meas, pred] : pts) g << meas << " " << pred << "\n";
    g << "e\n";
  }
  return g.str();
}

}  // namespace colltune::calibrate

// Time to build one communicator's decisions (model::decide for one op and root: every candidate
// predicted at every grid size, the library's lazy path on a communicator's first call) on a
// model of N heterogeneous identities with correction and error curves like calibration writes.
// Ranks map onto K identities (--identities, default N: every rank its own, the worst case;
// 16 ranks per identity is a cluster of 16-core nodes). Communicators: all N ranks in order,
// reversed, and every second one (half). Reports the median of --reps builds per
// (communicator, op, root, size group) in ms (what a first call pays: the library decides one
// size group at a time), the worst group against the 1 ms target, and every group's at once.
// --table: the parameters, corrections and errors of a calibrated model table instead (its K
// identities, rank r on identity r mod K). "cold": the first build of each case (the lazy path
// of a communicator's first call with that root), beside the median of the later ones.
//   bench_decision_build [--n 1024] [--identities K] [--reps 15] [--table TABLE]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "model/platform_model.hpp"
#include "table/model_table.hpp"

using namespace colltune;

namespace {

model::PlatformModel make_model(int n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> c(2e-6, 40e-6), t(1e-11, 5e-10), ib(5e-11, 2e-9);
  model::PlatformModel pm;
  pm.params = model::LmoParams::uniform(n, 0, 0, 0);
  for (int i = 0; i < n; ++i) {
    pm.identities.push_back("node" + std::to_string(i));
    pm.params.C[i].value = c(rng);
    pm.params.t[i].value = t(rng);
    for (int j = i + 1; j < n; ++j) {
      pm.params.inv_beta[static_cast<std::size_t>(i) * n + j].value =
          pm.params.inv_beta[static_cast<std::size_t>(j) * n + i].value = ib(rng);
    }
  }
  pm.params.S = pm.S.value = 32768;
  pm.params.M2 = pm.M2.value = 4096;
  pm.params.kappa2 = pm.kappa2.value = 1e-10;
  // Curves over the sweep grid 2^(k/2), as calibration writes them.
  for (const Algorithm& a : algorithms()) {
    model::Curve corr, err;
    for (int k = 0; k <= 44; k += 2) {
      corr.m.push_back(std::pow(2.0, k / 2.0));
      corr.y.push_back(1 + 0.05 * std::sin(k));
      err.m.push_back(std::pow(2.0, k / 2.0));
      err.y.push_back(0.03);
    }
    pm.correction[static_cast<int>(a.op)][std::string(a.name)] = corr;
    pm.error[static_cast<int>(a.op)][std::string(a.name)] = err;
  }
  return pm;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 1024, reps = 15, k = 0;
  std::string table_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--n") n = std::atoi(argv[i + 1]);
    if (a == "--reps") reps = std::atoi(argv[i + 1]);
    if (a == "--identities") k = std::atoi(argv[i + 1]);
    if (a == "--table") table_path = argv[i + 1];
  }
  std::optional<ModelTable> table;
  if (!table_path.empty()) {
    try {
      table = load_model_table(table_path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_decision_build: %s\n", e.what());
      return 2;
    }
    if (!table->platform_model) {
      std::fprintf(stderr, "bench_decision_build: %s has no calibrated model\n",
                   table_path.c_str());
      return 2;
    }
    k = static_cast<int>(table->platform_model->identities.size());
  }
  if (k == 0) k = n;
  if (n < 2 || n > 65536 || reps < 1 || k < 1 || (!table && k > n)) {
    std::fprintf(stderr,
                 "bench_decision_build: need --n 2..65536, --identities 1..n, --reps >= 1\n");
    return 2;
  }
  const model::PlatformModel pm = table ? *table->platform_model : make_model(k);
  const model::LmoParams p = model::with_average(pm.params);
  std::vector<int> world(n), reversed(n), half;
  for (int r = 0; r < n; ++r) {
    world[r] = table ? r % k : r / (n / k + (n % k != 0));  // a table: its identities in turn
  }
  std::reverse_copy(world.begin(), world.end(), reversed.begin());
  for (int i = 0; i < n; i += 2) half.push_back(world[i]);
  const struct {
    const char* name;
    const std::vector<int>& members;
  } comms[] = {{"world", world}, {"reversed", reversed}, {"half", half}};
  std::printf(
      "# decision build: %d ranks on %d identities%s%s, median of %d builds (target <= 1 ms)\n"
      "# group: the first call's cost, the worst of the %d size groups (model::decision_group);"
      " all: every group's\n",
      n, k, table ? " of " : "", table ? table_path.c_str() : "", reps, model::kDecisionGroups);
  std::printf("%-9s %-8s %5s %6s %9s %8s %8s %8s %7s\n", "comm", "op", "root", "ranges", "group ms",
              "cold ms", "all ms", "cold ms", "target");
  double worst = 0, worst_cold = 0, worst_all = 0;
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  auto time_ms = [](auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  for (const auto& c : comms) {
    for (Op op : {Op::kBcast, Op::kScatter, Op::kGather}) {
      const std::vector<const Algorithm*> cands = model::candidates(pm, op);
      for (int root : {0, static_cast<int>(c.members.size()) / 3}) {
        std::vector<double> all;
        std::vector<std::vector<double>> group(model::kDecisionGroups);
        std::size_t ranges = 0;
        for (int r = 0; r < reps; ++r) {
          for (int g = 0; g < model::kDecisionGroups; ++g) {
            group[g].push_back(
                time_ms([&] { model::decide(pm, p, op, cands, c.members, root, g); }));
          }
          all.push_back(
              time_ms([&] { ranges = model::decide(pm, p, op, cands, c.members, root).size(); }));
        }
        double med = 0, cold = 0;
        for (const auto& g : group) {
          med = std::max(med, median(g));
          cold = std::max(cold, g.front());
        }
        worst = std::max(worst, med);
        worst_cold = std::max(worst_cold, cold);
        worst_all = std::max(worst_all, median(all));
        std::printf("%-9s %-8s %5d %6zu %9.3f %8.3f %8.3f %8.3f %7s\n", c.name,
                    std::string(op_name(op)).c_str(), root, ranges, med, cold, median(all),
                    all.front(), med <= 1 ? "met" : "MISSED");
      }
    }
  }
  std::printf(
      "# worst median: %.3f ms per (communicator, op, root, size group), cold %.3f ms; every "
      "group at once: %.3f ms\n",
      worst, worst_cold, worst_all);
  return 0;
}

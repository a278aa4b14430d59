#include "app.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>
#include <thread>

#include "forecast/app.hpp"
#include "forecast/app_yaml.hpp"
#include "forecast/comm.hpp"
#include "forecast/merpsys_fit.hpp"
#include "jitter/trace.hpp"
#include "table/atomic_file.hpp"
#include "table/yaml_util.hpp"

namespace cli = colltune::cli;
namespace fc = colltune::forecast;

namespace {

// --best-n: N[,N...], or A:B for A, the powers of two between, and B; each a whole number from
// 1 to 2^24. False when s is not that (out may be null: a check only).
bool counts_of(const std::string& s, std::vector<int>* out) {
  const auto colon = s.find(':');
  const std::vector<std::string> parts =
      colon == std::string::npos
          ? cli::split(s)
          : std::vector<std::string>{s.substr(0, colon), s.substr(colon + 1)};
  std::vector<int> v;
  for (const std::string& x : parts) {
    double d = 0;
    if (!cli::to_number(x, &d) || d < 1 || d > (1 << 24) || d != std::floor(d)) return false;
    v.push_back(static_cast<int>(d));
  }
  if (v.empty()) return false;
  if (!out) return true;
  out->clear();
  if (colon == std::string::npos) {
    *out = v;
    return true;
  }
  const int a = v[0], b = v[1];
  int p = 1;
  while (p < a) p *= 2;
  if (p > a) out->push_back(a);
  for (; p <= b; p *= 2) out->push_back(p);
  if (out->empty() || out->back() != b) out->push_back(b);
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
  return true;
}

}  // namespace

CLI::App* add_app_command(cli::Parser* p, AppQuery* q) {
  CLI::App* c = p->app.add_subcommand("app");
  c->add_option("model", q->model)->required()->type_name("MODEL.yaml");
  c->add_option("--table", q->table)->type_name("TABLE");
  c->add_option("--links", q->links)->type_name("FILE");
  c->add_option("--node", q->node)->type_name("FILE");
  c->add_option("-n", q->n)->type_name("N")->check(cli::integer(1, 1 << 24, "N"));
  c->add_option("--best-n", q->best_n)
      ->type_name("N[,N...]|A:B")
      ->check(cli::valid("N[,N...] or A:B (powers of two from A to B), each from 1 to 16777216",
                         [](const std::string& s) { return counts_of(s, nullptr); }));
  c->add_option("--per-node", q->per_node)->type_name("K")->check(cli::integer(1, 1 << 20, "K"));
  c->add_option("--var", q->vars)
      ->type_name("NAME=VALUE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  c->add_option("--costs", q->costs)
      ->type_name("C")
      ->check(cli::one_of({"lmo", "merpsys", "both"}));
  c->add_flag("--mpich", q->mpich);
  c->add_option("--eager", q->eager)
      ->type_name("BYTES|inf")
      ->check(cli::valid("bytes from 0, or inf", [](const std::string& s) {
        double x = 0;
        return s == "inf" || (cli::to_number(s, &x) && x >= 0);
      }));
  c->add_option("--flops-rate", q->flops_rate)
      ->type_name("F|F@W,...")
      ->check(cli::valid("F or F@W[,F@W...]: flops per second above 0, at a working set of W bytes",
                         [](const std::string& s) {
                           try {
                             fc::parse_rate(s, "--flops-rate");
                             return true;
                           } catch (const std::invalid_argument&) {
                             return false;
                           }
                         }));
  c->add_option("--cores", q->cores)->type_name("C")->check(cli::integer(1, 1 << 20, "C"));
  c->add_option("--noise", q->noise)->type_name("TRACE");
  c->add_flag("--idle-wait", q->idle_wait);
  c->add_option("--checkpoint", q->checkpoint)
      ->type_name("C[,TAU]")
      ->check(cli::each(cli::number(0, 1e12, "seconds")));
  c->add_option("--objective", q->objective)
      ->type_name("O")
      ->check(cli::one_of({"time", "expected", "energy"}));
  c->add_option("--energy-cap", q->energy_cap)->type_name("J")->check(cli::number(0, 1e30, "J"));
  return c;
}

namespace {

int fail(const std::string& file, const std::string& what) {
  std::fprintf(stderr, "colltune-predict: %s: %s\n", file.c_str(), what.c_str());
  return cli::kBadArgs;
}

}  // namespace

int cmd_app(const cli::Parser& p, const AppQuery& q, fc::Format format, const TableLoader& load) {
  using namespace colltune;
  if (q.n.empty() == q.best_n.empty()) return p.fail("app: give -n N or --best-n, one of them");
  fc::AppModel model;
  fc::NodeSpec node;
  try {
    model = read_app_model(q.model);
    if (!q.node.empty()) node = read_node_spec(q.node);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-predict: %s\n", e.what());
    return cli::kBadArgs;
  }
  const bool lmo = q.costs != "merpsys", merpsys = q.costs != "lmo";
  if (lmo && q.table.empty()) return p.fail("app: --costs " + q.costs + " needs --table TABLE");
  if (merpsys && q.node.empty()) {
    return p.fail("app: --costs " + q.costs + " needs --node FILE (MERPSYS coefficients)");
  }
  ModelTable t;
  std::vector<fc::LinkMeasurement> fresh;
  fc::LinkGraph g;
  std::unique_ptr<fc::AppPlatform> plat;
  if (lmo) {
    if (!load(q.table, q.links, &t, &fresh)) return cli::kBadArgs;
    g = fc::graph_of(*t.platform_model, t.calibrated_ranks);
    fc::apply(g, fresh);
    plat = std::make_unique<fc::AppPlatform>(*t.platform_model, g);
  }
  fc::AppOptions o;
  for (const std::string& kv : q.vars) {
    const auto eq = kv.find('=');
    double x = 0;
    const std::string name = eq == std::string::npos ? kv : kv.substr(0, eq);
    if (eq == std::string::npos || !cli::to_number(kv.substr(eq + 1), &x)) {
      return p.fail("--var: invalid value '" + kv + "' (valid: NAME=NUMBER)");
    }
    if (!model.vars.count(name)) {
      std::string valid;
      for (const auto& [k, v] : model.vars) valid += (valid.empty() ? "" : ", ") + k;
      return p.fail("--var: unknown variable '" + name +
                    "' (valid: " + (valid.empty() ? "none, the model has no vars" : valid) + ")");
    }
    o.vars[name] = x;
  }
  o.eager = q.eager == "inf" ? std::numeric_limits<double>::infinity() : std::stod(q.eager);
  if (!q.flops_rate.empty()) o.flops_rate = fc::parse_rate(q.flops_rate, "--flops-rate");
  o.cores = q.cores.empty() ? 0 : std::stoi(q.cores);
  o.busy_wait = !q.idle_wait;
  std::unique_ptr<jitter::Timeline> noise;
  if (!q.noise.empty()) {
    try {
      const jitter::Trace tr = jitter::read_trace(q.noise);
      noise = std::make_unique<jitter::Timeline>(tr);
      o.hz = tr.header.hz > 0 ? tr.header.hz : 1e9;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-predict: %s\n", e.what());
      return cli::kBadArgs;
    }
    o.noise = noise.get();
  }
  double C = 0, tau = 0;
  if (!q.checkpoint.empty()) {
    const std::vector<std::string> c = cli::split(q.checkpoint);
    C = std::stod(c[0]);
    if (c.size() > 1) tau = std::stod(c[1]);
  }
  std::vector<int> ns{q.n.empty() ? 0 : std::stoi(q.n)};
  if (!q.best_n.empty()) counts_of(q.best_n, &ns);
  const int identities = lmo ? static_cast<int>(t.platform_model->identities.size()) : 1;
  struct Row {
    int n;
    std::string costs, colls;
    fc::AppResult r;
    double expected, wall;
  };
  std::vector<Row> rows;
  for (const int n : ns) {
    o.processes = n;
    o.per_node =
        q.per_node.empty() ? std::max(1, (n + identities - 1) / identities) : std::stoi(q.per_node);
    std::vector<std::pair<std::string, std::string>> variants;
    if (lmo) {
      variants.push_back({"lmo", "mpich"});
      if (!q.mpich) variants.push_back({"lmo", "colltune"});
    }
    if (merpsys) variants.push_back({"merpsys", "formulas"});
    if (!q.best_n.empty() && lmo && !q.mpich && variants.size() > 1) {
      variants.erase(variants.begin());  // --best-n: what colltune would run
    }
    for (const auto& [costs, colls] : variants) {
      o.merpsys = costs == "merpsys";
      o.native = colls == "mpich";
      const auto t0 = std::chrono::steady_clock::now();
      fc::AppResult r;
      try {
        r = fc::simulate_app(model, plat.get(), node, o);
      } catch (const std::exception& e) {
        return fail(q.model, std::string("-n ") + std::to_string(n) + ": " + e.what());
      }
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      double expected = std::nan("");
      if (node.lambda > 0) {
        expected = q.checkpoint.empty()
                       ? fc::expected_from_scratch(r.seconds, node.lambda, r.nodes)
                       : fc::expected_with_checkpoints(r.seconds, node.lambda, r.nodes, C, tau);
      }
      rows.push_back({n, costs, colls, r, expected, wall});
    }
  }
  // --best-n: the best row by the objective, among those under the energy cap.
  int best = -1;
  if (!q.best_n.empty()) {
    const double cap =
        q.energy_cap.empty() ? std::numeric_limits<double>::infinity() : std::stod(q.energy_cap);
    if ((q.objective == "energy" || !q.energy_cap.empty()) && !node.has_power) {
      return p.fail("app: --objective energy and --energy-cap need --node FILE with power");
    }
    if (q.objective == "expected" && !(node.lambda > 0)) {
      return p.fail("app: --objective expected needs --node FILE with lambda");
    }
    for (int k = 0; k < static_cast<int>(rows.size()); ++k) {
      const Row& x = rows[k];
      if (x.r.energy > cap) continue;
      auto key = [&](const Row& y) {
        return q.objective == "energy"     ? y.r.energy
               : q.objective == "expected" ? y.expected
                                           : y.r.seconds;
      };
      if (best < 0 || key(x) < key(rows[best])) best = k;
    }
    if (best < 0) {
      return fail(q.model, "no process count of " + q.best_n + " keeps the energy under " +
                               q.energy_cap + " J");
    }
  }
  std::vector<std::vector<fc::Cell>> cells;
  for (int k = 0; k < static_cast<int>(rows.size()); ++k) {
    const Row& x = rows[k];
    std::string groups;
    for (const fc::GroupResult& gr : x.r.groups) {
      char b[160];
      std::snprintf(b, sizeof b, "%s%s:%d end %.6g compute %.6g", groups.empty() ? "" : "; ",
                    gr.label.c_str(), gr.count, gr.end, gr.compute);
      groups += b;
    }
    std::vector<fc::Cell> row = {fc::number(x.n),
                                 fc::number(x.r.nodes),
                                 fc::text(x.costs),
                                 fc::text(x.colls),
                                 fc::number(x.r.seconds),
                                 fc::number(x.r.energy),
                                 fc::number(x.r.node_energy_max),
                                 fc::number(x.r.success),
                                 fc::number(x.expected),
                                 fc::number(x.wall),
                                 fc::text(groups)};
    if (!q.best_n.empty()) row.push_back(fc::boolean(k == best));
    cells.push_back(std::move(row));
  }
  std::vector<std::string> cols = {"n",
                                   "nodes",
                                   "costs",
                                   "collectives",
                                   "seconds",
                                   "energy_j",
                                   "node_energy_max_j",
                                   "success",
                                   "expected_s",
                                   "simulated_in_s",
                                   "groups"};
  if (!q.best_n.empty()) cols.push_back("best");
  std::fputs(fc::render(cols, cells, format).c_str(), stdout);
  if (!node.source.empty() && format == fc::Format::kTable) {
    std::printf("# node: %s\n", node.source.c_str());
  }
  return 0;
}

CLI::App* add_fit_command(cli::Parser* p, FitQuery* q) {
  CLI::App* c = p->app.add_subcommand("fit");
  c->add_option("csv", q->csv)->required()->type_name("CSV...")->expected(1, -1);
  c->add_option("--output", q->output)->required()->type_name("FILE");
  c->add_option("--dtu", q->dtu)->type_name("BYTES")->check(cli::integer(1, 1 << 30, "BYTES"));
  c->add_option("--p-low", q->p_low)->type_name("N")->check(cli::integer(1, 1 << 20, "N"));
  c->add_option("--p-high", q->p_hi)->type_name("N")->check(cli::integer(1, 1 << 20, "N"));
  c->add_option("--like", q->like)->type_name("NODE");
  return c;
}

int cmd_fit(const cli::Parser& p, const FitQuery& q, fc::Format format) {
  using namespace colltune;
  std::vector<fc::BlockSample> samples;
  const std::vector<std::string> blocks = {"p2p",     "bcast", "scatter", "gather", "alltoall",
                                           "barrier", "read",  "write",   "compute"};
  for (const std::string& file : q.csv) {
    std::string text;
    try {
      const MappedString m = read_text_file(file);
      text.assign(m.data(), m.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-predict: %s\n", e.what());
      return cli::kBadArgs;
    }
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.empty() || line[0] == '#' || line.rfind("block,", 0) == 0) continue;
      const std::vector<std::string> f = cli::split(line);
      fc::BlockSample s;
      bool ok = f.size() == 5;
      if (ok) {
        s.block = f[0];
        ok = std::find(blocks.begin(), blocks.end(), s.block) != blocks.end() &&
             cli::to_number(f[1], &s.P) && cli::to_number(f[2], &s.bytes) &&
             cli::to_number(f[3], &s.threads) && cli::to_number(f[4], &s.seconds) && s.P >= 1 &&
             s.bytes >= 0 && s.threads >= 1 && s.seconds >= 0;
      }
      if (!ok) {
        return fail(file + ":" + std::to_string(n),
                    "'" + line +
                        "' is not block,P,bytes,threads,seconds (block: p2p, bcast, "
                        "scatter, gather, alltoall, barrier, read, write, compute; "
                        "bench/apps/merpsys_blocks)");
      }
      samples.push_back(s);
    }
  }
  const double hw = std::max(1u, std::thread::hardware_concurrency());
  const double p_low = q.p_low.empty() ? hw : std::stod(q.p_low);
  const double p_hi = q.p_hi.empty() ? p_low : std::stod(q.p_hi);
  if (p_hi < p_low) return p.fail("--p-high: below --p-low");
  fc::MerpsysFit fit;
  try {
    fit = fc::fit_merpsys(samples, std::stod(q.dtu), p_low, p_hi);
  } catch (const std::exception& e) {
    return fail(q.csv.front(), e.what());
  }
  fc::NodeSpec node;
  if (!q.like.empty()) {
    try {
      node = read_node_spec(q.like);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "colltune-predict: %s\n", e.what());
      return cli::kBadArgs;
    }
  }
  const fc::Merpsys old = node.merpsys;
  node.merpsys = fit.coefficients;
  // Disks not measured keep the --like file's.
  if (!fit.blocks.count("read")) node.merpsys.read = old.read;
  if (!fit.blocks.count("write")) node.merpsys.write = old.write;
  std::string note = "colltune-predict fit: MERPSYS's block formulas fitted to";
  for (const std::string& f : q.csv) note += " " + f;
  note += " (R^2:";
  for (const auto& [name, b] : fit.blocks) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %s %.4f", name.c_str(), b.r2);
    note += buf;
  }
  note += ")";
  if (!q.like.empty()) note += "; power and lambda from " + q.like + " (not measured here)";
  node.source = "fitted by colltune-predict fit";
  try {
    write_file_atomically(q.output, emit_node_spec(node, note));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-predict: %s\n", e.what());
    return cli::kBadArgs;
  }
  std::vector<std::vector<fc::Cell>> rows;
  for (const fc::PaperR2& paper : fc::merpsys_table2()) {
    const auto it = fit.blocks.find(paper.block);
    if (it == fit.blocks.end()) continue;
    const fc::BlockFit& b = it->second;
    const fc::Linear l = it->first == "compute" ? fc::Linear{fit.coefficients.T_min, 0} : b.line;
    std::string how = it->first == "compute" ? "segments" : b.mpe ? "mpe" : "mse";
    if (!b.held.empty()) how += ", " + b.held + " held at 0";
    rows.push_back({fc::text(paper.block), fc::number(b.points), fc::text(how),
                    fc::number(l.T * 1e6), fc::number(l.K * 1e6), fc::number(b.r2),
                    fc::boolean(b.slope), fc::number(paper.galera_plus), fc::number(paper.galera),
                    fc::number(paper.kask)});
  }
  std::fputs(fc::render({"block", "points", "fit", "T_us", "K_us", "r2", "slope_fitted",
                         "r2_galera_plus", "r2_galera", "r2_kask"},
                        rows, format)
                 .c_str(),
             stdout);
  return 0;
}

// colltune-info: what colltune sees on this host, without starting MPI.
//   colltune-info                 platform fingerprint and algorithms, as YAML
//   colltune-info --platform      the platform block of a model table, ready to paste
//   colltune-info --algorithms [OP]  the registry's algorithm names (of OP), one per line
//   colltune-info --env [--markdown] every COLLTUNE_* setting: values, default, agreement, help
//   colltune-info --predict TABLE OP ROOT BYTES[,BYTES...]
//                                 a calibrated table's predicted time of every candidate of OP
//                                 on the communicator it calibrated (its ranks in order), with
//                                 the corrections the library uses, and the algorithm it picks:
//                                 CSV "op,bytes,root,algorithm,predicted_s,picked" on stdout (a
//                                 candidate not `decided` only at sizes calibration swept it)
// Bad arguments: one line naming the option and its valid values, then the usage; exit 2.
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/registry.hpp"
#include "cli.hpp"
#include "forecast/coll.hpp"
#include "model/platform_model.hpp"
#include "platform.hpp"
#include "settings.hpp"
#include "table/model_table.hpp"

namespace {

namespace cli = colltune::cli;
using PredictArgs = std::tuple<std::string, std::string, std::string, std::string>;

constexpr const char* kUsage =
    "usage: colltune-info [--platform | --algorithms [OP] | --env [--markdown] | --predict TABLE "
    "OP ROOT BYTES[,BYTES...]]\n";
constexpr const char* kHelp =
    "  (no option)        platform fingerprint and algorithms, as YAML\n"
    "  --platform         the platform block of a model table, ready to paste\n"
    "  --algorithms [OP]  the registry's algorithm names (of OP), one per line\n"
    "  --env [--markdown] every COLLTUNE_* setting: values, default, agreement, help\n"
    "  --predict TABLE OP ROOT BYTES[,BYTES...]\n"
    "                     a calibrated table's predicted time of every candidate of OP on the\n"
    "                     communicator it calibrated, and the algorithm it picks (CSV)\n"
    "Bad arguments exit 2.\n";

// The op names: bcast, scatter, gather.
std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (int op = 0; op < colltune::kNumOps; ++op) {
    names.emplace_back(colltune::op_name(static_cast<colltune::Op>(op)));
  }
  return names;
}

// --predict, its values validated by the parser but ROOT (the table's ranks).
int predict(const cli::Parser& p, const PredictArgs& args) {
  using namespace colltune;
  const auto& [file, op_text, root_text, list] = args;
  const Op op = *op_from_name(op_text);
  ModelTable t;
  try {
    t = load_model_table(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "colltune-info: %s\n", e.what());
    return 2;
  }
  if (!t.platform_model) {
    std::fprintf(stderr,
                 "colltune-info: %s: model: absent (a table colltune-calibrate wrote has "
                 "one)\n",
                 file.c_str());
    return 2;
  }
  const model::PlatformModel& pm = *t.platform_model;
  // Validated at load (parse_model_table): identity indexes of the calibrated ranks.
  const std::vector<int>& members = t.calibrated_ranks;
  if (members.size() < 2) {
    std::fprintf(stderr,
                 "colltune-info: %s: calibration.rank_identity: absent or not a list of "
                 "identity indexes\n",
                 file.c_str());
    return 2;
  }
  const long long root = std::stoll(root_text);
  if (root >= static_cast<long long>(members.size())) {
    return p.fail("--predict: invalid value '" + root_text + "' (valid: ROOT from 0 to " +
                  std::to_string(members.size() - 1) + ", the ranks " + file + " calibrated)");
  }
  std::vector<double> sizes;
  for (const std::string& b : cli::split(list)) sizes.push_back(std::stod(b));
  std::printf("op,bytes,root,algorithm,predicted_s,picked\n");
  for (const forecast::CollRow& r :
       forecast::coll(pm, op, members, static_cast<int>(root), sizes)) {
    std::printf("%s,%.0f,%lld,%.*s,%.9g,%d\n", op_text.c_str(), r.bytes, root,
                int(r.algorithm->name.size()), r.algorithm->name.data(), r.seconds, r.picked);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace colltune;
  cli::Parser p("colltune-info", kUsage, kHelp);
  bool platform_only = false, env = false, markdown = false;
  std::vector<std::string> only;  // --algorithms [OP]
  PredictArgs predict_args;
  CLI::Option* platform_opt = p.app.add_flag("--platform", platform_only);
  CLI::Option* algorithms_opt = p.app.add_option("--algorithms", only)
                                    ->expected(0, 1)
                                    ->allow_extra_args(false)
                                    ->type_name("OP")
                                    ->check(cli::one_of(op_names()));
  CLI::Option* env_opt = p.app.add_flag("--env", env);
  p.app.add_flag("--markdown", markdown)->needs(env_opt);
  CLI::Option* predict_opt =
      p.app.add_option("--predict", predict_args)
          ->type_name("TABLE OP ROOT BYTES[,BYTES...]")
          ->check(cli::one_of(op_names()).application_index(1))
          ->check(cli::integer(0, 1 << 30, "ROOT").application_index(2))
          ->check(cli::each(cli::integer(1, 1ll << 40, "BYTES")).application_index(3));
  platform_opt->excludes(algorithms_opt)->excludes(env_opt)->excludes(predict_opt);
  algorithms_opt->excludes(env_opt)->excludes(predict_opt);
  env_opt->excludes(predict_opt);
  if (const int rc = p.parse(argc, argv); rc >= 0) return rc;
  if (algorithms_opt->count() > 0) {
    const std::optional<Op> op = op_from_name(only.empty() ? "" : only.back());
    if (!op) {
      for (std::string_view n : algorithm_names()) std::printf("%.*s\n", int(n.size()), n.data());
    }
    for (const Algorithm& a : algorithms()) {  // an op has each name once
      if (op && a.op == *op) std::printf("%.*s\n", int(a.name.size()), a.name.data());
    }
    return 0;
  }
  if (predict_opt->count() > 0) return predict(p, predict_args);
  if (env) {
    std::fputs((markdown ? settings_markdown() : settings_text()).c_str(), stdout);
    return 0;
  }
  const HostFingerprint host = this_host();
  std::printf("platform:\n  mpi_library: \"%s\"\n  hosts:\n    - {name: %s, topology: \"%s\"}\n",
              mpi_library_version().c_str(), host.name.c_str(), host.topology.c_str());
  if (!platform_only) {
    std::printf("algorithms:\n");
    for (int op = 0; op < kNumOps; ++op) {
      const auto o = static_cast<Op>(op);
      std::printf("  %s: [%s]\n", std::string(op_name(o)).c_str(), algorithm_choices(o).c_str());
    }
  }
  return 0;
}

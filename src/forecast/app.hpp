// Whole applications (MERPSYS, "Performance and power-aware modeling of MPI applications for
// cluster computing"; docs/app-models.md): a model of process groups and their blocks, run on
// a calibrated platform (colltune's LMO model, the algorithms MPICH or colltune would run) or
// on MERPSYS's block formulas with a cluster's coefficients; time, energy by the segmented
// power model and the chance of finishing. No MPI, no files (src/forecast/app_yaml.hpp reads them).
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../model/platform_model.hpp"
#include "comm.hpp"
#include "expr.hpp"
#include "jitter/simulate.hpp"
#include "rate.hpp"

namespace colltune::forecast {

// One block of a group's code. Which fields a kind reads: docs/app-models.md.
struct Block {
  enum Kind {
    kCompute,     // flops (or instructions) and threads, or seconds
    kSend,        // from one group to another: one to each, each to one, or pairwise
    kNeighbours,  // every member exchanges `bytes` with member + offset (sendrecv per offset)
    kRing,      // `bytes` from `root` round the members, forwarded once received (split: both ways)
    kExchange,  // `root` sendrecvs `bytes` with the other members in turn, `count` in all
    kBcast,
    kScatter,
    kGather,
    kAllreduce,
    kReduce,
    kAlltoall,
    kBarrier,
    kRead,   // network disk, bytes
    kWrite,  // network disk, bytes
    kLoop,   // count times the body, `var` counting from 0
  };
  Kind kind = kCompute;
  int line = 0;
  std::vector<int> groups;  // the members: these groups (empty: every group), in rank order
  Expr bytes, root, flops, seconds, threads, count, split;
  Expr working_set;  // compute: the bytes one process's block touches (picks its flops rate)
  // Communicators of part of the members (MPI_Comm_split): the value at each member's index
  // `member` among the block's members is its colour; each colour runs the block on its own,
  // members in rank order; a negative colour takes no part (empty: all members, one communicator).
  Expr comm;
  int from = -1, to = -1;     // send
  std::vector<Expr> offsets;  // neighbours
  std::string var;            // loop
  std::vector<Block> body;    // loop
};
const char* block_name(Block::Kind k);

struct Group {
  std::string label;
  Expr count;
  // The table identities its processes run on, in turn (empty: the default placement). LMO
  // costs only.
  std::vector<std::string> on;
};

struct AppModel {
  std::string name;
  Vars vars;  // defaults; P (the process count) and each group's label are set per run
  std::vector<Group> groups;
  std::vector<Block> blocks;
};

// MERPSYS's Table 1 with one cluster's coefficients (its Table 3: seconds, seconds per byte
// or per instruction; NaN: not given). Compute: T_min h up to P_low active threads on a node,
// T_low h up to P_hi, (T_hi + K_hi p_th) h beyond. Communication: T + K ceil(d/D_tu) D_tu times
// log2 P (bcast), log2 P / P (scatter, gather), P (alltoall), 1 (p2p, disk); barrier
// T + K log2 P.
struct Linear {
  double T = std::nan(""), K = std::nan("");
  bool given() const { return !std::isnan(T) && !std::isnan(K); }
};
struct Merpsys {
  double P_low = 0, P_hi = 0, T_min = 0, T_low = 0, T_hi = 0, K_hi = 0, D_tu = 1;
  Linear p2p, bcast, scatter, gather, alltoall, barrier, read, write;
  bool compute_given = false;
};
// The segmented power of a node by its active threads: PW_low + KW_low p up to P_low,
// PW_hi + KW_hi p up to P_hi, PW_max beyond (watts).
struct Power {
  double P_low = 0, P_hi = 0, PW_low = 0, KW_low = 0, PW_hi = 0, KW_hi = 0, PW_max = 0;
  double watts(double threads) const;
};
// What a cluster's node is, beyond the calibrated model: its coefficients (any part may be
// absent), where they come from.
struct NodeSpec {
  std::string source;  // "file: why", shown with the results
  Merpsys merpsys;
  bool has_power = false;
  Power power;
  double lambda = 0;  // failures per node and second (0: not given)
  double disk_D_tu = 0;
};

struct AppOptions {
  int processes = 1;
  // Processes per node: the ranks of groups without `on`, counted in order, share a node by
  // per_node (those of groups with `on` go to the identities it names).
  int per_node = 1;
  Vars vars;             // overrides of the model's
  bool merpsys = false;  // block costs from NodeSpec::merpsys, else from the LMO model
  bool native = false;   // LMO: bcast, scatter and gather as MPICH runs them (else colltune)
  double eager = 0;      // LMO: messages of at most this many bytes are eager
  // Flops per second of one thread for compute blocks with flops, by the block's working_set:
  // LMO costs need it; with MERPSYS costs it replaces the formula's T(p_th) when given.
  RateBySize flops_rate;
  int cores = 0;          // LMO: cores per node (0: never oversubscribed)
  bool busy_wait = true;  // a process waiting in MPI keeps a thread active (MPICH polls)
  const jitter::Timeline* noise = nullptr;  // OS noise walked by compute blocks (cycles)
  double hz = 1e9;                          // the noise trace's cycles per second
};

struct GroupResult {
  std::string label;
  int count = 0;
  double end = 0;      // the last member's end, s
  double compute = 0;  // the slowest member's computation
};
struct AppResult {
  double seconds = 0;  // the last process's end
  int nodes = 0;       // nodes with a process
  std::vector<GroupResult> groups;
  double energy = std::nan("");  // J, all nodes (NaN: no power model)
  double node_energy_max = std::nan("");
  double success = std::nan("");  // exp(-lambda T nodes) (NaN: no lambda)
};

// The platform an application runs on: the calibrated model and its links; nodes beyond the
// table's identities repeat them in order (node k: identity k mod identities), two nodes of
// one identity joined by that identity's fastest link to the others (LmoParams::ib_alike).
class AppPlatform {
 public:
  AppPlatform(const model::PlatformModel& pm, const LinkGraph& links);
  // For `nodes` nodes: throws std::invalid_argument when the table cannot give their links
  // (one identity only, or more than kMaxNodes nodes beyond the table's identities).
  void prepare(int nodes);
  static constexpr int kMaxNodes = 2048;
  const model::PlatformModel& model() const { return *pm_; }
  const model::PlatformModel& base() const { return base_; }  // the table's own identities
  const LinkGraph& links() const { return *g_; }

 private:
  const model::PlatformModel& base_;
  const LinkGraph& base_links_;
  std::shared_ptr<model::PlatformModel> replicated_;
  std::shared_ptr<LinkGraph> replicated_links_;
  const model::PlatformModel* pm_;
  const LinkGraph* g_;
};

// Runs the model for o.processes processes. Throws std::invalid_argument naming the block's
// line when the model does not hold for these values (counts that do not add up to P, a root
// outside its communicator, a block the chosen costs cannot price, ...).
AppResult simulate_app(const AppModel& m, AppPlatform* platform, const NodeSpec& node,
                       const AppOptions& o);

// The expected time of a run of T seconds on `nodes` nodes failing at lambda each per second:
// restarted from scratch after a failure, (e^(lambda nodes T) - 1) / (lambda nodes); with a
// checkpoint of C seconds every tau seconds (and a restart of C), Daly's first-order model,
// M e^(C/M) (e^((tau + C)/M) - 1) T / tau, M = 1 / (lambda nodes); tau 0: Daly's optimum
// sqrt(2 C M) - C (at least C).
double expected_from_scratch(double T, double lambda, int nodes);
double expected_with_checkpoints(double T, double lambda, int nodes, double C, double tau);
double daly_interval(double lambda, int nodes, double C);

}  // namespace colltune::forecast

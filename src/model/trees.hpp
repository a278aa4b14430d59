// Trees built from the model (Algorithm::build): the LMO costs a builder reads, the size
// classes one built tree serves, and the build itself. No MPI: the same on every rank from the
// same parameters (docs/model.md, "Model-built trees").
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "../algorithms/registry.hpp"
#include "lmo.hpp"

namespace colltune::model {

// A communicator's members on LMO parameters (rank r is process members[r] of p):
//   occupy(i, m)     = max(o_i + t_i m, u_i m)       (the sender's turn, or its port's)
//   deliver(i, j, m) = max(C_i + t_i m + m / beta_ij + C_j + t_j m, C_i + C_j + max(u_i, u_in_j) m)
class LmoTreeCosts final : public TreeCosts {
 public:
  LmoTreeCosts(const LmoParams& p, std::span<const int> members);
  int size() const override { return static_cast<int>(members_.size()); }
  double occupy(int from, double m) const override;
  double deliver(int from, int to, double m) const override;
  double escalation() const override { return p_.M1; }
  bool waits(double m) const override { return m > p_.eager; }
  int host(int r) const override { return host_[r]; }

 private:
  const LmoParams& p_;
  std::span<const int> members_;
  std::vector<int> host_;  // per rank: LmoParams::host_of its process, or p.size() + r (-1)
  std::vector<double> c_, t_, o_, u_, u_in_;  // per rank, gathered once (builds read them often)
};

// A built tree serves a class of sizes: [0, 1 KiB), [1 KiB, 32 KiB), [32 KiB, 1 MiB), 1 MiB and
// more. Built at the class's representative size (128 B, 8 KiB, 256 KiB, 4 MiB). Decisions
// come per class (decision_group), so a call runs the tree its size was decided with.
inline constexpr int kSizeClasses = 4;
int size_class(double bytes);
std::uint64_t class_start(int size_class);  // its smallest byte count
double class_size(int size_class);

// alg's tree (alg.build set) for members on p, from root, for the size class of m.
std::shared_ptr<const BuiltTree> build_tree(const Algorithm& alg, const LmoParams& p,
                                            std::span<const int> members, int root, double m);
// The same on costs already gathered (the builders of one decision share them).
std::shared_ptr<const BuiltTree> build_tree(const Algorithm& alg, const LmoTreeCosts& costs,
                                            int root, double m);
// Predicted time of `op` along a built tree laid out as l: a bcast pipelined, a gather paced
// when it has a segment size.
double predict_built(Op op, const BuiltTree& tree, const Layout& l, const LmoParams& p, double m);
// Whether alg (a built tree) builds exactly its stand-in's schedule (Algorithm::like) from root 0
// at every size class on these parameters: no segments, the same tree (split without measured
// escalations is linear); calibration need not sweep it.
bool builds_its_stand_in(const Algorithm& alg, const LmoParams& p, std::span<const int> members);
// The same on n alike processes without escalations (uniform costs, M1 = inf): a tree that
// differs from its stand-in only where the model measured escalations (split). Calibration
// sweeps it last, in what time is left, and the benchmarks skip it where it is no candidate.
bool stand_in_without_escalations(const Algorithm& alg, int n);
// alg's tree without a model: n alike processes (5 us, 1 ns/B, 1 GB/s links), escalations
// from kUniformEscalation bytes per sender (so a forced split gather splits in 8 KiB).
inline constexpr double kUniformEscalation = 16384;
// hosts: each rank's host (ranks of one host share its link: node-aware trees), or empty
// (each rank its own).
std::shared_ptr<const BuiltTree> build_tree_uniform(const Algorithm& alg, int n, int root, double m,
                                                    std::span<const int> hosts = {});

}  // namespace colltune::model

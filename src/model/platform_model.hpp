// The calibrated platform model a model table carries (section `model:`, docs/calibration.md):
// LMO parameters per process identity, thresholds, and what calibration learnt of the model's
// accuracy (per op and algorithm: the ratio measured / predicted on the calibration sweeps, and
// the relative error on held-out sizes). From it, decide() picks an algorithm per byte range for
// any member list and root. No MPI, no file format (its YAML: src/table/model_yaml.hpp).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "../algorithms/registry.hpp"
#include "lmo.hpp"
#include "native.hpp"

namespace colltune::model {

// y(m) sampled at increasing m > 0; interpolated linearly in log m, constant beyond the ends.
struct Curve {
  std::vector<double> m, y;
  bool empty() const { return m.empty(); }
  double at(double x) const;
  // Running median of 3 (Tukey's end-point rule at the ends): a lone outlier goes, steps and
  // monotone runs stay.
  Curve smoothed() const;
};

struct PlatformModel {
  std::vector<std::string> identities;  // "host" or "host/numaK" (src/identity.hpp)
  LmoParams params;                     // indexed by identity; inv_beta[i][i]: two processes of i
  Estimate S, M1, M2, kappa1, kappa2;   // copied into params too
  double message_m = 0;                 // M of the LMO experiments, bytes
  // Per op and algorithm name: measured / predicted on the calibration (training) sizes, root 0.
  std::array<std::map<std::string, Curve>, kNumOps> correction;
  // The same at the second root swept (the last rank). A correction holds at the process it
  // was measured at; at other roots only what both agree on (correction_at, docs/calibration.md).
  std::array<std::map<std::string, Curve>, kNumOps> correction_other_root;
  // The identities of the two roots swept (rank 0 and the last rank of the calibrated
  // communicator); -1 where the table does not say (older tables: roots by position).
  std::array<int, 2> correction_roots{-1, -1};
  // Small sizes swept at a third root, the rank least like rank 0 (docs/calibration.md, phase
  // 5): per op and algorithm its curve, and the identities of rank 0, the last rank and that
  // root (-1: none swept); up to twice its largest size (correction_at).
  std::array<std::map<std::string, Curve>, kNumOps> correction_unlike_root;
  std::array<int, 3> unlike_roots{-1, -1, -1};
  // Per op and algorithm name: |predicted - measured| / measured on held-out sizes.
  std::array<std::map<std::string, Curve>, kNumOps> error;
  double margin = 0.02;  // least relative gain over native that justifies leaving it
  // Per op: the model of native that fits native's sweeps best (src/model/native.hpp).
  std::array<NativeKind, kNumOps> native{};

  int find_identity(const std::string& id) const;  // -1 if absent
};

// Where a communicator's member goes: an identity index, the host's first identity, or the
// cluster average (an extra process appended by with_average()).
struct IdentityMatch {
  int index = -1;
  enum Kind { kExact, kHost, kAverage } kind = kExact;
};
IdentityMatch match_identity(const PlatformModel& pm, const std::string& id);
// The parameters with one more process: the average of all (C, t, links), for unknown members.
// Its host (`LmoParams::host`) gets -1: each unknown member on a host of its own.
LmoParams with_average(const LmoParams& p);
// Per identity, its host's index (identities "host" and "host/numaK" of one host share one):
// LmoParams::host of a model with these identities.
std::vector<int> host_groups(const std::vector<std::string>& identities);

// Predicted time of `alg` on the LMO parameters alone: its shape, or for native pm.native's
// model (src/model/native.hpp).
double predict_uncorrected(const PlatformModel& pm, const LmoParams& p, const Algorithm& alg,
                           std::span<const int> members, int root, double m);
// The same scaled by its measured correction (correction_at).
double predict_algorithm(const PlatformModel& pm, const LmoParams& p, const Algorithm& alg,
                         std::span<const int> members, int root, double m);
// The measured / predicted ratio to apply to a prediction of the algorithm calibrated as `name`
// at `root` of `members`: at the identity a correction was swept at, that root's curve; at any
// other root the part both roots' curves agree on, the one nearer 1 where both lie on the same
// side of 1 and none where they do not (a correction that differs between the two roots swept
// is the root's, not the model's). Without a curve at the second root, root 0's everywhere.
// Where the table has a third root's curve (correction_unlike_root) up to twice m: at the third
// root's identity its curve; at any other root but 0 and the identity whose curve it would take
// otherwise, what every curve swept for the algorithm agrees on (the one nearest 1 where all
// lie on one side of 1, none where they do not).
double correction_at(const PlatformModel& pm, Op op, const std::string& name,
                     std::span<const int> members, int root, double m);
// Of the ranks (p per identity, of_rank each rank's), the one whose exchanges of m bytes with
// every other rank differ most from rank 0's (|ln| of the ratio); the last rank unless another
// differs by 1% more.
int least_like_rank0(const LmoParams& p, std::span<const int> of_rank, double m);
// Whether calibration swept alg itself (a correction of its own at root 0); built trees
// without one borrow their stand-in's (Algorithm::like).
bool calibrated_itself(const PlatformModel& pm, const Algorithm& alg);
// The name alg's predictions are corrected and validated as: its own where calibration swept
// it; for a built tree it did not sweep, the fixed shape of its op that calibration swept whose
// edges `tree` has (the same parent for every rank: a flat tree is linear's, whatever the order
// of its sends; no segments), else its stand-in (Algorithm::like).
std::string_view stand_in(const PlatformModel& pm, const Algorithm& alg, const BuiltTree* tree);
// Whether calibration swept alg itself up to m (its largest training size times 2 at least)
// and, alg not `decided`, down to m (its smallest size half m at most: Algorithm::swept_from).
bool validated_at(const PlatformModel& pm, const Algorithm& alg, double m);
// The candidates of pm's decisions for op: native first, then every algorithm of the op that
// is `decided` or that calibration swept itself; one not `decided` is predicted (and can be
// the pick) only where validated_at, elsewhere kNever.
std::vector<const Algorithm*> candidates(const PlatformModel& pm, Op op);

inline constexpr double kUntrusted = 0.5;  // |predicted - measured| / measured
// The validated relative error of alg near m (0: calibration measured none): the largest at
// held-out sizes within a factor of 4, and the interpolation at m (a single lucky size must
// not make a noisy neighbourhood look exact); for a built tree calibration swept, of the sizes
// of its tree's size class (cls; -1: m's) where there are any.
double validated_error(const PlatformModel& pm, Op op, const Algorithm& alg, double m, int cls = -1,
                       const BuiltTree* tree = nullptr);

struct Choice {
  Range bytes;
  const Algorithm* algorithm = nullptr;
  double at = 0;                  // the size the choice was made at
  std::vector<double> predicted;  // per candidate, in `candidates` order, at `at`
  std::string held_back;          // why a faster prediction did not decide (empty: none did)
  std::shared_ptr<const BuiltTree> tree;  // the built algorithm's tree for this range
};
// For every byte range, the candidate predicted fastest, native unless another is faster by
// more than the validated error of both (at least pm.margin) at two neighbouring grid sizes at
// least (a gain at one size alone is taken as noise). Native also where either validated error
// exceeds kUntrusted (a prediction that may be off by 2x does not decide) and, at 2 processes
// (every schedule one message), where the two schedules predict the same time before
// corrections (a gain from corrections alone is noise there); a built tree that borrows its
// stand-in's corrections (calibration did not sweep it) also where it is not faster than native
// by the margin before corrections. A candidate not `decided` is predicted kNever (never the
// pick) where not validated_at.
// `candidates` starts with native.
// The ranges cover [0, max], equal neighbours merged. O(G * K * n log n): G = 29 sizes.
// Decisions come in size groups, one per size class (trees.hpp): the grid sizes of the class,
// their ranges ending at its edges, decided with its trees on their own (the neighbour rule
// looks one size across a group's edge, predicted with the group's trees): a communicator's
// first call with a root pays for its own group only.
std::vector<Choice> decide(const PlatformModel& pm, const LmoParams& p, Op op,
                           std::span<const Algorithm* const> candidates,
                           std::span<const int> members, int root);
inline constexpr int kDecisionGroups = 4;  // the size classes (trees.hpp)
// The group deciding calls of `bytes` (0 bytes: group 0).
int decision_group(std::uint64_t bytes);
// One group's choices: its ranges only (group 0 includes 0 bytes); decide() is every group's
// in turn, equal neighbours merged.
std::vector<Choice> decide(const PlatformModel& pm, const LmoParams& p, Op op,
                           std::span<const Algorithm* const> candidates,
                           std::span<const int> members, int root, int group);

}  // namespace colltune::model

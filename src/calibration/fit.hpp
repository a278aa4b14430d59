// Fitting (no MPI): what the sweeps and the LMO experiments say about the platform.
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "../model/lmo.hpp"
#include "../model/platform_model.hpp"
#include "sweep.hpp"

namespace colltune::calibrate {

using model::Estimate;

// The scatter sweep's first break (a regime change: protocol switch, serialization; the LMO
// experiments' M must stay below it) and S, the threshold the model serializes transfers
// above: that break, when serializing above it fits the sweeps better than not (a dip where
// a shared port takes over from latency, or a switch that makes sends cheaper, is no S).
// None with one destination (nothing to serialize).
struct ScatterBreak {
  Estimate first{model::kNever, 0};
  Estimate S{model::kNever, 0};
};
ScatterBreak scatter_threshold(const std::vector<Sweep>& sw, const model::LmoParams& p,
                               std::span<const int> members);
// Mean |ln(predicted / measured)| over the training rows of every modelled sweep at root 0:
// gather's (gather true) or bcast's and scatter's.
double fit_error(const std::vector<Sweep>& sw, const model::LmoParams& p,
                 std::span<const int> members, bool gather = false);
// Per-rank parameters averaged into per-identity ones.
model::LmoParams by_identity(const model::LmoParams& p, const std::vector<int>& of_rank, int k);

// Gather's escalations: thresholds M1 <= M2 and the extra per-byte costs kappa1 below M1 and
// kappa2 above M2 (the slopes of what the model misses there).
struct GatherThresholds {
  Estimate M1{model::kNever, 0}, M2{model::kNever, 0}, kappa1, kappa2;
  Estimate first{model::kNever, 0};  // the linear gather's first break, taken or not
  void apply(model::LmoParams* p) const {
    p->M1 = M1.value;
    p->M2 = M2.value;
    p->kappa1 = kappa1.value;
    p->kappa2 = kappa2.value;
  }
};
// Escalations are taken where they lower the gather sweeps' mean |ln(predicted / measured)| by
// this fraction at least.
inline constexpr double kEscalationGain = 0.1;
GatherThresholds gather_thresholds(const std::vector<Sweep>& sw, const model::LmoParams& p,
                                   std::span<const int> members);
// Sets pm->native[op] to the model of native that fits best; a report line per op.
std::string identify_native(const std::vector<Sweep>& sw, std::span<const int> members,
                            model::PlatformModel* pm);
// Per op, the sizes at which native's sweeps at root 0 and the last rank would tell apart the
// models of native that fit them equally (model::telling_sizes over the sizes 2^(k/2) above the
// largest trained, kMaxTold at most); none where none is needed. Sizes are kept in turn while
// `reps` repetitions at both roots, at twice the slowest tied model's prediction, fit in
// `left` seconds (the ops in turn).
ToldSizes native_telling_sizes(const std::vector<Sweep>& sw, std::span<const int> members,
                               const model::PlatformModel& pm, int reps, double left);

// Rows a < b of every sweep: whether most sweeps step between them (grow faster than the sizes,
// or shrink, by more than 5% and than both rows' relative half-widths): a protocol switch.
bool steps_between(const std::vector<Sweep>& sw, std::size_t a, std::size_t b);
// Sum over the sweeps of |ln(time b / time a)|: of a bracket's two halves, the step's has more.
double change_between(const std::vector<Sweep>& sw, std::size_t a, std::size_t b);
// Orders a sweep's rows by size (stable).
void sort_by_size(Sweep* s);

struct Validation {
  std::string report;
  YAML::Node node;
  // Per op and algorithm, at the held-out sizes: what the model missed plus the measurement's
  // own uncertainty (PlatformModel::error).
  std::array<std::map<std::string, model::Curve>, kNumOps> error;
};
Validation validate(const model::PlatformModel& pm, const model::LmoParams& p,
                    const std::vector<Sweep>& sw, std::span<const int> members, int n);

}  // namespace colltune::calibrate

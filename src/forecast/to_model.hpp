// A recorded run turned into an application model (colltune-predict replay --to-model,
// docs/app-models.md "From a trace to a model"): ranks grouped by the shape of their traces,
// each collective a block, each run of point-to-point messages between computations a
// `neighbours` block (every rank sends to rank + o and receives from rank - o), each
// computation a `compute` block per group (seconds: the group's mean as recorded), and
// repeated stretches folded into loops. No files.
#pragma once

#include <string>
#include <vector>

#include "app.hpp"
#include "replay.hpp"

namespace colltune::forecast {

// Throws std::invalid_argument naming the rank and the action where the trace leaves what a
// model can say (ranks that disagree on their collectives or the order of their exchanges,
// messages that are no neighbour exchange).
AppModel model_of_trace(const std::vector<std::vector<TraceAction>>& traces,
                        double compute_scale = 1);

}  // namespace colltune::forecast

// Where a replay's time goes against the run it replays: the calls a wall-clock recording timed
// (`# took` lines, docs/recording.md) beside what the replay gave the same actions
// (ReplayResult::action_seconds). No MPI, no files.
#pragma once

#include <string>
#include <vector>

#include "replay.hpp"

namespace colltune::forecast {

struct CallTimes {
  // The kinds of a call's actions in order ("send", "irecv+send+wait", "bcast@part" on part of
  // the processes), "compute", "untimed" (actions no `# took` follows) or "total".
  std::string call;
  double bytes_from = 0, bytes_to = 0;  // its largest message: in [from, to] (a power of 2 up)
  double calls = 0;  // over every rank (total: the timed calls; compute: the computations)
  double recorded = 0, replayed = 0;  // seconds, the mean over the ranks
};

// The calls of every rank grouped by kind and size (a wait takes the size of the isend or irecv
// it completes), then the computation, the untimed actions and the total (computation and
// calls: each rank's end); groups by |replayed - recorded|, largest first, the total last.
// Empty when no call was timed. `r` must come from replay(..., action_times = true).
std::vector<CallTimes> call_times(const std::vector<std::vector<TraceAction>>& traces,
                                  const ReplayResult& r);

}  // namespace colltune::forecast

// Forecasts of collectives on a calibrated platform: every candidate the library's decisions
// weigh, predicted as the library predicts it (the LMO schedule and calibration's corrections),
// and the one it would pick. No MPI, no files.
#pragma once

#include <span>
#include <vector>

#include "../algorithms/registry.hpp"
#include "../model/platform_model.hpp"
#include "links.hpp"

namespace colltune::forecast {

struct CollRow {
  double bytes = 0;
  const Algorithm* algorithm = nullptr;
  double seconds = 0;   // predicted, corrected
  double error = 0;     // calibration's validated relative error near bytes (0: none measured)
  bool picked = false;  // what the library would run
};

// `op` of `bytes` per process (bcast: the message) on the communicator whose rank r is identity
// members[r] of pm (with_average's extra index for an unknown host), from `root`: one row per
// candidate of the decisions (a candidate not `decided` only where calibration swept it: it is
// never predicted elsewhere) and per size, in candidates' order. `only`: that algorithm's rows
// alone (any of the op's registry algorithms, candidate or not; picked still says whether the
// library would run it).
// `sized` (or null): each row's time predicted on pm at its size where links pass bytes free
// (ModelAtSize of pm, links.hpp); the decisions stay on pm, as the library takes them.
std::vector<CollRow> coll(const model::PlatformModel& pm, Op op, std::span<const int> members,
                          int root, std::span<const double> sizes, const Algorithm* only = nullptr,
                          ModelAtSize* sized = nullptr);

// One collective of m bytes as MPICH runs it (native) or as the library would (its pick on pm),
// its time as coll's row gives it (with `sized`: at its size where links pass bytes free).
double coll_time(const model::PlatformModel& pm, ModelAtSize* sized, Op op,
                 std::span<const int> members, int root, double m, bool native);

// The fixed tree a broadcast (reduce: a reduction) of m bytes runs on `members` from `root`,
// for the replay and the application models to send as its messages: native, the model of
// native the table identified (MPICH: binomial below 12288 bytes or under 8 processes; a
// reduction: binomial up to 2048 bytes); not native, the fixed shape the library would pick
// (its executor posts every child's send at once), native's where it keeps native (it serves
// no reduction). Null: priced as one collective (a built tree, a relay, MPICH's larger-message
// algorithms, one member, no bytes).
struct TreeSchedule {
  const Shape* shape = nullptr;
  bool at_once = false;  // every child's send posted before any completes (colltune's executor)
};
TreeSchedule tree_schedule(const model::PlatformModel& pm, ModelAtSize* sized, bool reduce,
                           std::span<const int> members, int root, double m, bool native);

}  // namespace colltune::forecast

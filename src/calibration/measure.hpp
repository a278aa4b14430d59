// Calibration's measurements (MPI): identities, the sweeps of every algorithm, the LMO
// experiments. Collective over the context's communicator; MPI error codes.
#pragma once

#include <mpi.h>

#include <array>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "../algorithms/waits.hpp"
#include "../model/estimate.hpp"
#include "calibration.hpp"
#include "sweep.hpp"

namespace colltune::calibrate {

struct Context {
  MPI_Comm comm;
  int rank = 0, size = 1;
  const Options& o;
  double t0 = 0;
  std::string why;

  std::vector<std::string> cut;  // what the budget cut, for the report and the table
  // Built trees not swept because they are their stand-ins' schedules on the table (report).
  std::vector<std::string> as_stand_in{};
  int retries = 0;  // wide series measured again (measure.cpp: a few at most)

  void say(const std::string& s) const {
    if (rank == 0 && o.progress) o.progress(s);
  }
  void cut_short(const std::string& s) {
    cut.push_back(s);
    say("  " + s);
  }
  // A phase's heading, with rank 0's time since the start.
  void phase(const std::string& s) const {
    if (rank == 0 && o.progress) {
      std::ostringstream line;
      line.precision(3);
      line << s << " [" << PMPI_Wtime() - t0 << " s]";
      o.progress(line.str());
    }
  }
  // Seconds since the start, rank 0's clock, the same on every rank.
  int elapsed(double* out) const {
    double e = PMPI_Wtime() - t0;
    const int rc = waits::bcast(&e, 1, MPI_DOUBLE, 0, comm);
    *out = e;
    return rc;
  }
};

// Phase 1: each process's identity, on every rank, and the list of distinct identities.
// `hosts`: the distinct host names the processes run on (the table's platform fingerprint; with
// COLLTUNE_IDENTITY an identity names no host). `crowding`: the job's processes on rank 0's host
// or its runnable tasks, whichever are more, per CPU online there, at least 1 (how much slower
// rank 0's own work runs than on a core of its own); the same on every rank.
int identities(Context& c, std::vector<std::string>* ids, std::vector<int>* of_rank,
               std::vector<std::string>* hosts, double* crowding);

// Phase 2: every algorithm of every op at sizes 2^(k/2); odd k but the last are held out for
// validation. Ends by `share` (elapsed seconds, rank 0's clock): a size that would not fit at
// the minimum repetitions is not started, one that overruns is dropped.
// Built trees are not swept here (built_sweeps).
int sweeps(Context& c, double share, std::vector<Sweep>* out);

// Native at root 0 and the last rank, one training row each at every size of at[op] (the same
// on every rank), a few repetitions, into *told (one sweep per op, size and root, merged into
// the fixed sweeps by merge_told once the built trees are swept on their grid). Ends by
// `until`: a size not started in time is cut (said in the report).
inline constexpr int kToldReps = 3;
int native_told(Context& c, double until, const ToldSizes& at, std::vector<Sweep>* told);
// Appends each of told's rows to the sweep of the same op, algorithm and root (not a third
// root's).
void merge_told(std::vector<Sweep> told, std::vector<Sweep>* sw);

// Rank 0's *p (nullptr: none) on every rank, exact (every rank builds the same trees from it);
// *ok false on every rank where rank 0 had none.
int share_params(Context& c, const model::LmoParams* on_root, model::LmoParams* p, bool* ok);

// Phase 4, before the built trees: whether a message's bytes wait for its receive to be posted,
// at the pipelined trees' smallest and largest segments (4 and 32 KiB), between ranks 0 and 1:
// rank 0 sends the segment, then an empty message; rank 1 takes the empty one first and times
// the segment's receive after it (an eager segment is already in: a copy; one that waits takes
// its transfer, more than a quarter of a roundtrip's way). *eager on every rank: model::kNever
// where neither waits, 4096 where only 32 KiB does, 0 where 4 KiB waits.
int segments_wait(Context& c, double* eager);

// Phase 4: every built tree at root 0, each size on the tree the library builds from p (per
// identity, rank r being identity members[r]) for that size, at the sizes of `grid` (a fixed
// sweep) with its held-out rows; appended to *out. One tree after another, those not `decided`
// first; ends by `until` (elapsed seconds, rank 0's clock): repetitions thin to fit, and a
// tree whose remaining sizes would not fit at the minimum, or that overruns, is not kept, nor
// any after it (said in the report).
int built_sweeps(Context& c, double until, const model::LmoParams& p, std::span<const int> members,
                 std::vector<Sweep>* out);

// Phase 4, before the built trees: the fixed algorithms at the rank least like rank 0
// (model::least_like_rank0 on p, per identity; native only where that rank's identity is not
// the last rank's, whose native sweep exists) at sizes 1, 32 and 1024 bytes (none larger than
// the largest size swept at root 0), half the minimum repetitions each (3 at least), appended
// to *out (Sweep::unlike). Ends by `until`: a size whose projected cost (twice the last size's)
// does not fit is not started. Nothing where that rank shares rank 0's identity.
int unlike_sweeps(Context& c, double until, const model::LmoParams& p, std::span<const int> members,
                  std::vector<Sweep>* out);

// Phase 3: LMO experiments with M bytes (and empty roundtrips unless x has them); results on
// every rank. Elapsed seconds: past `until` each series ends after 2 repetitions, past
// `last_round` no round starts; then *complete is false (on every rank) and c.why says what
// was cut. *before_fans: the agreed elapsed time when the roundtrips and one-to-two ended.
int lmo(Context& c, double m, int per_root, double until, double last_round,
        model::LmoMeasurements* x, double* before_fans, bool* complete);

}  // namespace colltune::calibrate

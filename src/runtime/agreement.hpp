// The cross-rank check of MPI_Init: every rank must reach the same decisions, or collectives
// go unmatched and the job hangs. One allreduce of per-item hashes tells whether all agree;
// only on a disagreement a gather tells rank 0 which items differ on which ranks.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace colltune {

struct AgreementItem {
  std::string name;   // e.g. "COLLTUNE_STATS", "COLLTUNE_CONFIG (contents)"
  std::string shown;  // what rank 0 prints of its own value
  std::string value;  // compared (hashed) across ranks
};

struct Agreement {
  bool any_error = false;           // some rank had bad input or a local set-up failure
  bool any_fallback_error = false;  // some rank has COLLTUNE_FALLBACK=error
  std::vector<bool> differs;        // per item: not equal on every rank
  // Rank 0 only, per differing item: "NAME (rank 0: VALUE) differs on ranks 1, 3-5".
  std::vector<std::string> report;
  bool any_differs() const;
};

// Collective over `comm`. The allreduce has a fixed length (kMaxAgreementItems), so a rank whose
// items could not be built (local_error, fewer items) still matches its peers.
inline constexpr std::size_t kMaxAgreementItems = 32;
int check_agreement(MPI_Comm comm, const std::vector<AgreementItem>& items, bool local_error,
                    bool fallback_error, Agreement* out);

// Collective over `comm`: *all is true when `ok` is true on every rank. Put after each local step
// that can fail and before any collective that depends on it: a failure on one rank then leaves
// no peer waiting, and every rank reaches the same outcome.
int all_ok(MPI_Comm comm, bool ok, bool* all) noexcept;

// "1, 3-5, 9" (at most `max_ranges` ranges, then "... (N ranks)").
std::string rank_list(const std::vector<int>& ranks, std::size_t max_ranges = 8);

}  // namespace colltune

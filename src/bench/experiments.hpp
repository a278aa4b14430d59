// Communication experiments built on the timing methods and adaptive series.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "../algorithms/registry.hpp"
#include "stats.hpp"
#include "timing.hpp"

namespace colltune::bench {

// Roundtrip i <-M1/M2-> j (i sends M1 bytes, j answers M2 bytes), timed at i, for every pair
// i < j. parallel: rounds of disjoint pairs (pair_rounds) run at once; else one pair at a
// time. Each pair's series is adaptive; i tells j when to stop. Results on every rank.
struct PairResult {
  int i = 0, j = 0;
  Interval stats;
  int reps = 0;
};
int roundtrips(MPI_Comm comm, int m1, int m2, bool parallel, const Adaptive& a,
               std::vector<PairResult>* out);
// The same on the given pairs (i < j; the same list on every rank), one pair at a time; past
// a.last_round no pair starts (fewer results). Results on every rank, sorted by (i, j).
int roundtrips_alone(MPI_Comm comm, int m1, int m2, const std::vector<std::pair<int, int>>& pairs,
                     const Adaptive& a, std::vector<PairResult>* out);

// One-to-two i <-M/0-> j, k: i sends M bytes to j and to k, both answer empty; timed at i until
// both answers arrived. Disjoint triplets run in parallel rounds. Results on every rank.
struct TripletResult {
  int i = 0, j = 0, k = 0;
  Interval stats;
  int reps = 0;
};
int one_to_two(MPI_Comm comm, int m, bool all_roots, const Adaptive& a,
               std::vector<TripletResult>* out);
// The same on a given list of triplets (the same on every rank), packed into parallel rounds.
int one_to_two(MPI_Comm comm, int m, const std::vector<std::array<int, 3>>& triplets,
               const Adaptive& a, std::vector<TripletResult>* out);
// Rounds of disjoint triplets, run one round after another.
int run_one_to_two(MPI_Comm comm, int m, const std::vector<std::vector<std::array<int, 3>>>& rounds,
                   const Adaptive& a, std::vector<TripletResult>* out);

// Fan-out i <-M/0-> peers: i sends M bytes to every peer at once (MPI_Isend, in order), each
// answers empty; timed at i until every answer arrived, and until its sends were issued
// (`issued`: a sender's serialized costs are in it, a port its transfers share is not).
// `groups`: initiator first, then its peers; at most one group per initiator; disjoint groups
// run in parallel rounds. Results on every rank.
struct FanOutResult {
  int i = 0;
  std::vector<int> peers;
  Interval stats;
  int reps = 0;
  Interval issued{-1, 0, 0, 0};  // mean < 0: not measured
};
int fan_out(MPI_Comm comm, int m, const std::vector<std::vector<int>>& groups, const Adaptive& a,
            std::vector<FanOutResult>* out);
// Fan-in i <-0/M-> peers: i sends an empty message to every peer at once, each answers M
// bytes (all at once into i's link); timed at i until every answer arrived. As fan_out().
int fan_in(MPI_Comm comm, int m, const std::vector<std::vector<int>>& groups, const Adaptive& a,
           std::vector<FanOutResult>* out);

// A collective benchmark: the algorithm is a registry entry or a user function.
struct CollectiveCase {
  Op op = Op::kBcast;
  const Algorithm* algorithm = nullptr;                // or:
  std::function<int(const CollArgs&)> user_algorithm;  // takes precedence when set
  std::uint64_t bytes = 0;                             // per process
  int root = 0;
  // A built algorithm's tree (the same on every rank); nullptr: built from uniform costs.
  std::shared_ptr<const BuiltTree> tree;
};
int measure_collective(MPI_Comm comm, const CollectiveCase& c, TimingMethod& timing, bool isolate,
                       const Adaptive& a, Series* out);

// The operation-specific broadcast method (docs/benchmarking.md): for each process i, a series
// of broadcasts after each of which i alone acknowledges to the root; T_i = root's time until
// the acknowledgement minus the one-way time of an empty message i -> root. The broadcast time
// is max_i T_i (returned with that process's series). No global clock is needed. Each
// broadcast starts when every other process has told the root it is ready (not after a
// barrier, whose exit skew would delay receivers that leave it after the root started).
int measure_bcast_tasks(MPI_Comm comm, const CollectiveCase& c, const Adaptive& a, Series* out);

}  // namespace colltune::bench

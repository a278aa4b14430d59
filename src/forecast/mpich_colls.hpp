// MPICH 4's default algorithms for the collectives colltune does not tune (barrier, reduce,
// allreduce, alltoall), as rounds of messages: a round lasts as long as its slowest message
// (docs/app-models.md "Collectives colltune does not tune"). No MPI, no files.
#pragma once

#include <functional>

namespace colltune::forecast {

// Seconds for a message of m bytes from rank a to rank b of the communicator.
using PairCost = std::function<double(int a, int b, double m)>;

// Dissemination: ceil(log2 n) rounds, rank r to r + 2^k.
double mpich_barrier(int n, const PairCost& T);
// Binomial tree, m bytes per hop, ceil(log2 n) rounds.
double mpich_reduce(int n, double m, const PairCost& T);
// m <= 2048 bytes: recursive doubling (log2 p rounds of m bytes, p the largest power of two
// <= n, one step before and one after for the n - p others); larger: Rabenseifner's
// reduce-scatter by halving and allgather by doubling (2 log2 p rounds of m/2 ... m/p).
double mpich_allreduce(int n, double m, const PairCost& T);
// m bytes per destination: m <= 256 and n >= 8: Bruck (ceil(log2 n) rounds of about m n / 2
// bytes); else n - 1 rounds, rank r to r + k. Above 4096 ranks 64 of the n - 1 rounds are
// evaluated, evenly spaced, and scaled.
double mpich_alltoall(int n, double m, const PairCost& T);

}  // namespace colltune::forecast

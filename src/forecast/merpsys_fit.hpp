// MERPSYS's block formulas fitted to this cluster's measurements (docs/app-models.md, "Fitting
// MERPSYS's formulas"): each communication block t = T + K x with x its regressor (below),
// by mean percentage error for the latency-bound blocks (p2p, barrier) and mean squared error
// for the others, as the paper; the computation block per active thread count in its three
// segments. The fit's quality: Pearson's r^2 of predicted against measured (the paper's
// Table 2). No MPI, no files.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app.hpp"

namespace colltune::forecast {

struct BlockSample {
  std::string block;  // p2p, bcast, scatter, gather, alltoall, barrier, read, write, compute
  double P = 1, bytes = 0, threads = 1, seconds = 0;  // compute: bytes = instructions per thread
};

// The regressor of t = T + K x: D = ceil(d / D_tu) D_tu; p2p D, bcast D log2 P, scatter and
// gather D log2 P / P, alltoall D P, barrier log2 P.
double merpsys_regressor(const std::string& block, double P, double bytes, double D_tu);

struct BlockFit {
  Linear line;
  double r2 = 0;  // Pearson's r^2, predicted against measured
  int points = 0;
  bool mpe = false;   // fitted by mean percentage error (else mean squared error)
  bool slope = true;  // false: one regressor value only, T alone (K = 0)
  // "T" or "K" when the least-squares line had a coefficient below 0: the one held at 0, the
  // other refitted, whichever fits better (a block's time is never negative, nor shrinks as it
  // grows); else empty.
  std::string held;
};
struct MerpsysFit {
  Merpsys coefficients;
  std::map<std::string, BlockFit> blocks;  // every block with samples, compute included
};

// Throws std::invalid_argument when a block has no usable sample (seconds <= 0).
MerpsysFit fit_merpsys(const std::vector<BlockSample>& samples, double D_tu, double P_low,
                       double P_hi);

// MERPSYS's Table 2 (R^2 of its fits on Galera+, Galera, KASK), for the report.
struct PaperR2 {
  const char* block;
  double galera_plus, galera, kask;
};
const std::vector<PaperR2>& merpsys_table2();

}  // namespace colltune::forecast

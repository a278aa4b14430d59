#include "stats.hpp"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include <algorithm>
#include <cmath>

namespace colltune::bench {

double t_quantile(double p, double dof) { return gsl_cdf_tdist_Pinv(p, dof); }

Interval interval(const std::vector<double>& samples, double confidence) {
  Interval r;
  r.n = static_cast<int>(samples.size());
  if (r.n == 0) return r;
  r.mean = gsl_stats_mean(samples.data(), 1, samples.size());
  if (r.n < 2) return r;
  const double sd = gsl_stats_sd_m(samples.data(), 1, samples.size(), r.mean);
  r.half_width = t_quantile((1 + confidence) / 2, r.n - 1) * sd / std::sqrt(r.n);
  r.rel_error = r.mean != 0 ? r.half_width / std::fabs(r.mean) : 0;
  return r;
}

Interval median_interval(const std::vector<double>& samples, double confidence) {
  Interval r;
  r.n = static_cast<int>(samples.size());
  if (r.n == 0) return r;
  std::vector<double> v = samples;
  std::sort(v.begin(), v.end());
  r.mean = gsl_stats_median_from_sorted_data(v.data(), 1, v.size());
  if (r.n < 2) return r;
  // Ranks n/2 -+ z sqrt(n)/2 (1-based) bound the median with the given confidence.
  const double z = gsl_cdf_ugaussian_Pinv((1 + confidence) / 2);
  const double half = z * std::sqrt(static_cast<double>(r.n)) / 2;
  const auto lo = static_cast<std::size_t>(std::max(1.0, std::floor(r.n / 2.0 - half)));
  const auto hi = static_cast<std::size_t>(std::min<double>(r.n, std::ceil(r.n / 2.0 + half + 1)));
  r.half_width = (v[hi - 1] - v[lo - 1]) / 2;
  r.rel_error = r.mean != 0 ? r.half_width / std::fabs(r.mean) : 0;
  return r;
}

Series run_adaptive(const Adaptive& a, const std::function<double()>& sample) {
  Series s;
  const int min_reps = a.min_reps < 1 ? 1 : a.min_reps;
  const int max_reps = a.max_reps < min_reps ? min_reps : a.max_reps;
  const auto stats = [&] {
    return a.median ? median_interval(s.samples, a.confidence) : interval(s.samples, a.confidence);
  };
  while (s.reps < max_reps) {
    const double v = sample();
    if (!std::isfinite(v)) break;
    s.samples.push_back(v);
    ++s.reps;
    if (s.reps < min_reps) continue;
    s.stats = stats();
    if (min_reps == max_reps) continue;  // fixed count: no early stop
    if (s.reps >= 2 && s.stats.rel_error <= a.rel_error) {
      s.converged = true;
      break;
    }
  }
  s.stats = stats();
  if (min_reps == max_reps && s.reps == max_reps) s.converged = true;
  return s;
}

}  // namespace colltune::bench

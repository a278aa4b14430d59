// Polynomial regression of a measured time in a routine's sizes (FAST's routine models): the
// degree chosen by the error on samples held out of the fit. Relative error is what counts (a
// 1 ms call and a 1 s call matter alike), so the fit is weighted least squares with weights
// 1 / y^2 (GSL). No MPI, no files.
#pragma once

#include <string>
#include <vector>

namespace colltune::forecast {

struct Sample {
  std::vector<double> x;  // the sizes
  double y = 0;           // the measured time, > 0
};

struct Polynomial {
  std::vector<std::vector<int>> terms;  // per term, the exponent of each size
  std::vector<double> coef;
  int degree = 0;
  double at(const std::vector<double>& x) const;
};

// Every monomial of `vars` variables of total degree at most `degree`, the constant first.
std::vector<std::vector<int>> monomials(int vars, int degree);

// Weighted least squares of `terms` on samples (at least as many as terms; else empty coef).
Polynomial fit(const std::vector<Sample>& samples, const std::vector<std::vector<int>>& terms);

// max and mean of |p(x) - y| / y over samples.
struct FitError {
  double max = 0, mean = 0;
};
FitError relative_error(const Polynomial& p, const std::vector<Sample>& samples);

// The polynomial of degree at most max_degree whose fit on `train` has the least mean relative
// error on `held_out`, then fitted on both. Term sets tried simplest first, per degree: the
// products of distinct sizes, then every monomial; a richer set is taken only when it cuts
// that error by 5% at least, and only with 2 training samples per term or more.
Polynomial fit_by_held_out(const std::vector<Sample>& train, const std::vector<Sample>& held_out,
                           int max_degree);

}  // namespace colltune::forecast

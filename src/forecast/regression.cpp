#include "regression.hpp"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include <cmath>
#include <limits>

namespace colltune::forecast {

double Polynomial::at(const std::vector<double>& x) const {
  double y = 0;
  for (std::size_t k = 0; k < terms.size() && k < coef.size(); ++k) {
    double v = coef[k];
    for (std::size_t i = 0; i < terms[k].size() && i < x.size(); ++i) {
      v *= std::pow(x[i], terms[k][i]);
    }
    y += v;
  }
  return y;
}

std::vector<std::vector<int>> monomials(int vars, int degree) {
  std::vector<std::vector<int>> out;
  for (int d = 0; d <= degree; ++d) {
    // Every exponent vector of total d, in lexicographic order (largest first exponent first).
    std::vector<int> e(vars, 0);
    auto place = [&](auto&& self, int i, int left) -> void {
      if (i == vars - 1) {
        e[i] = left;
        out.push_back(e);
        return;
      }
      for (int k = left; k >= 0; --k) {
        e[i] = k;
        self(self, i + 1, left - k);
      }
    };
    if (vars > 0) place(place, 0, d);
  }
  return out;
}

Polynomial fit(const std::vector<Sample>& samples, const std::vector<std::vector<int>>& terms) {
  Polynomial p;
  p.terms = terms;
  for (const auto& t : terms) {
    int d = 0;
    for (const int e : t) d += e;
    p.degree = std::max(p.degree, d);
  }
  const std::size_t n = samples.size(), k = terms.size();
  if (k == 0 || n < k) return p;
  gsl_matrix* X = gsl_matrix_alloc(n, k);
  gsl_vector *y = gsl_vector_alloc(n), *w = gsl_vector_alloc(n), *c = gsl_vector_alloc(k);
  gsl_matrix* cov = gsl_matrix_alloc(k, k);
  gsl_multifit_linear_workspace* ws = gsl_multifit_linear_alloc(n, k);
  // Columns scaled to comparable magnitudes (sizes to the 3rd power span 1e15): each term
  // divided by its largest value over the samples, the coefficient scaled back after.
  std::vector<double> scale(k, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < k; ++j) {
      Polynomial one;
      one.terms = {terms[j]};
      one.coef = {1};
      const double v = one.at(samples[i].x);
      gsl_matrix_set(X, i, j, v);
      scale[j] = std::max(scale[j], std::fabs(v));
    }
    gsl_vector_set(y, i, samples[i].y);
    gsl_vector_set(w, i, 1 / (samples[i].y * samples[i].y));
  }
  for (std::size_t j = 0; j < k; ++j) {
    if (scale[j] == 0) scale[j] = 1;
    for (std::size_t i = 0; i < n; ++i) {
      gsl_matrix_set(X, i, j, gsl_matrix_get(X, i, j) / scale[j]);
    }
  }
  double chisq = 0;
  gsl_error_handler_t* old = gsl_set_error_handler_off();
  const int rc = gsl_multifit_wlinear(X, w, y, c, cov, &chisq, ws);
  gsl_set_error_handler(old);
  if (rc == GSL_SUCCESS) {
    for (std::size_t j = 0; j < k; ++j) p.coef.push_back(gsl_vector_get(c, j) / scale[j]);
  }
  gsl_multifit_linear_free(ws);
  gsl_matrix_free(cov);
  gsl_vector_free(c);
  gsl_vector_free(w);
  gsl_vector_free(y);
  gsl_matrix_free(X);
  return p;
}

FitError relative_error(const Polynomial& p, const std::vector<Sample>& samples) {
  FitError e;
  if (samples.empty()) return e;
  for (const Sample& s : samples) {
    const double r = std::fabs(p.at(s.x) - s.y) / s.y;
    e.max = std::max(e.max, r);
    e.mean += r / static_cast<double>(samples.size());
  }
  return e;
}

Polynomial fit_by_held_out(const std::vector<Sample>& train, const std::vector<Sample>& held_out,
                           int max_degree) {
  const int vars = train.empty() ? 0 : static_cast<int>(train.front().x.size());
  // The term sets tried, simplest first: per degree, the products of distinct sizes (a
  // multiply's m n k, its operands' m k, k n, m n), then every monomial.
  std::vector<std::vector<std::vector<int>>> sets;
  for (int d = 1; d <= max_degree; ++d) {
    std::vector<std::vector<int>> distinct;
    for (const auto& t : monomials(vars, d)) {
      bool ok = true;
      for (const int e : t) ok = ok && e <= 1;
      if (ok) distinct.push_back(t);
    }
    for (auto& set : {distinct, monomials(vars, d)}) {
      bool seen = false;
      for (const auto& s : sets) seen = seen || s == set;
      if (!seen) sets.push_back(set);
    }
  }
  const std::vector<std::vector<int>>* best = nullptr;
  double best_err = std::numeric_limits<double>::infinity();
  for (const auto& terms : sets) {
    if (train.size() < 2 * terms.size()) continue;
    const Polynomial p = fit(train, terms);
    if (p.coef.empty()) continue;
    const double err = relative_error(p, held_out).mean;
    // A richer set must cut the held-out error by 5% at least (the simpler one else).
    if (!best || (err < 0.95 * best_err && best_err > 1e-12)) best_err = err, best = &terms;
  }
  std::vector<Sample> all = train;
  all.insert(all.end(), held_out.begin(), held_out.end());
  return best ? fit(all, *best) : Polynomial{};
}

}  // namespace colltune::forecast

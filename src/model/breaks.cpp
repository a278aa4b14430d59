#include "breaks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace colltune::model {

namespace {

// Running weighted least-squares line (West's weighted co-moments: no cancellation when x is
// large).
struct Running {
  double w = 0, mx = 0, my = 0, cxx = 0, cxy = 0, cyy = 0;
  void add(double x, double y, double weight) {
    w += weight;
    const double dx = x - mx, dy = y - my;
    mx += weight / w * dx;
    my += weight / w * dy;
    cxx += weight * dx * (x - mx);
    cxy += weight * dx * (y - my);
    cyy += weight * dy * (y - my);
  }
  double ssr() const { return cxx > 0 ? std::max(0.0, cyy - cxy * cxy / cxx) : cyy; }
  Line line() const {
    Line l;
    l.slope = cxx > 0 ? cxy / cxx : 0;
    l.intercept = my - l.slope * mx;
    return l;
  }
};

// Timing noise grows with the time: residuals are weighed relative to y (1 / y^2).
double weight(double y, bool relative) {
  if (!relative) return 1;
  const double a = std::fabs(y);
  return a > 0 ? 1 / (a * a) : 1;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

std::vector<double> Breaks::break_x(const std::vector<double>& x) const {
  std::vector<double> out;
  for (std::size_t s = 1; s < segments.size(); ++s) out.push_back(x[segments[s].first]);
  return out;
}

Segment fit_segment(const std::vector<double>& x, const std::vector<double>& y, int first, int last,
                    bool relative) {
  Running r;
  for (int i = first; i <= last; ++i) r.add(x[i], y[i], weight(y[i], relative));
  return {first, last, r.line(), r.ssr()};
}

std::vector<Breaks> segmentations(const std::vector<double>& x, const std::vector<double>& y,
                                  const BreakOptions& o) {
  if (x.size() != y.size()) throw std::invalid_argument("segmentations: x and y differ in size");
  const int t = static_cast<int>(x.size());
  const int h = std::max(2, o.min_segment);
  if (t < h) return {};
  // ssr[i][j]: one line through rows i..j (j >= i + h - 1), O(T^2) with running fits.
  std::vector<std::vector<double>> ssr(t, std::vector<double>(t, kInf));
  for (int i = 0; i < t; ++i) {
    Running r;
    for (int j = i; j < t; ++j) {
      r.add(x[j], y[j], weight(y[j], o.relative));
      if (j - i + 1 >= h) ssr[i][j] = r.ssr();
    }
  }
  const int max_m = std::min(o.max_breaks, t / h - 1);
  // best[m][j]: the smallest SSR of rows 0..j in m + 1 segments; from[m][j]: where the last
  // segment starts.
  std::vector<std::vector<double>> best(max_m + 1, std::vector<double>(t, kInf));
  std::vector<std::vector<int>> from(max_m + 1, std::vector<int>(t, -1));
  for (int j = 0; j < t; ++j) best[0][j] = ssr[0][j], from[0][j] = 0;
  for (int m = 1; m <= max_m; ++m) {
    for (int j = (m + 1) * h - 1; j < t; ++j) {
      for (int s = m * h; s + h - 1 <= j; ++s) {  // last segment s..j
        const double v = best[m - 1][s - 1] + ssr[s][j];
        if (v < best[m][j]) best[m][j] = v, from[m][j] = s;
      }
    }
  }
  std::vector<Breaks> out;
  for (int m = 0; m <= max_m; ++m) {
    if (!std::isfinite(best[m][t - 1])) break;
    Breaks b;
    b.ssr = best[m][t - 1];
    std::vector<int> starts;
    for (int j = t - 1, k = m; k >= 0; --k) {
      starts.insert(starts.begin(), from[k][j]);
      j = from[k][j] - 1;
    }
    for (std::size_t s = 0; s < starts.size(); ++s) {
      const int last = s + 1 < starts.size() ? starts[s + 1] - 1 : t - 1;
      b.segments.push_back(fit_segment(x, y, starts[s], last, o.relative));
    }
    const double k = 3.0 * m + 2;  // two line parameters per segment, one per break
    // SSR floored at the noise floor (and above 0, so that ln stays finite): a break that only
    // explains residuals smaller than the measurements' precision never wins.
    const double floor = o.relative ? t * o.noise_floor * o.noise_floor : 0;
    const double ssr = std::max({b.ssr, floor, 1e-300});
    const double lt = std::log(static_cast<double>(t));
    b.criterion = o.criterion == Criterion::kBic
                      ? t * std::log(ssr / t) + k * lt
                      : std::log(ssr / (t - k)) + k / t * 0.299 * std::pow(lt, 2.1);
    out.push_back(std::move(b));
  }
  return out;
}

Breaks find_breaks(const std::vector<double>& x, const std::vector<double>& y,
                   const BreakOptions& o) {
  std::vector<Breaks> all = segmentations(x, y, o);
  if (all.empty()) throw std::invalid_argument("find_breaks: too few rows");
  std::size_t pick = 0;
  for (std::size_t m = 1; m < all.size(); ++m) {
    if (all[m].criterion < all[pick].criterion) pick = m;
  }
  return all[pick];
}

}  // namespace colltune::model

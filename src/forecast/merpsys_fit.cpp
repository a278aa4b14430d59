#include "merpsys_fit.hpp"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace colltune::forecast {
namespace {

double r_squared(const std::vector<double>& predicted, const std::vector<double>& measured) {
  if (predicted.size() < 2) return 1;
  const double r = gsl_stats_correlation(predicted.data(), 1, measured.data(), 1, predicted.size());
  return std::isfinite(r) ? r * r : 0;
}

// hold: a coefficient below 0 is held at 0 (a block's T + K x, x >= 0); not for compute's
// T_hi + K_hi p, whose threads p are above P_hi.
BlockFit fit_line(const std::vector<double>& x, const std::vector<double>& y, bool mpe, bool hold) {
  BlockFit f;
  f.points = static_cast<int>(x.size());
  f.mpe = mpe;
  std::vector<double> w(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) w[k] = mpe ? 1 / (y[k] * y[k]) : 1;
  const auto flat = [&] {  // T alone: the weighted mean
    double sw = 0, swy = 0;
    for (std::size_t k = 0; k < x.size(); ++k) sw += w[k], swy += w[k] * y[k];
    return Linear{swy / sw, 0};
  };
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  if (*hi - *lo <= 1e-12 * std::max(1.0, std::abs(*hi))) {
    f.line = flat();  // one regressor value
    f.slope = false;
  } else {
    double c0 = 0, c1 = 0, cov00 = 0, cov01 = 0, cov11 = 0, chisq = 0;
    gsl_fit_wlinear(x.data(), 1, w.data(), 1, y.data(), 1, x.size(), &c0, &c1, &cov00, &cov01,
                    &cov11, &chisq);
    f.line = {c0, c1};
    if (hold && (c0 < 0 || c1 < 0)) {
      // A negative coefficient: the least-squares line on T = 0 (through the origin) or on
      // K = 0 (flat), whichever fits better (both >= 0 for positive times).
      double sxy = 0, sxx = 0;
      for (std::size_t k = 0; k < x.size(); ++k)
        sxy += w[k] * x[k] * y[k], sxx += w[k] * x[k] * x[k];
      const Linear origin{0, sxy / sxx}, level = flat();
      auto sse = [&](const Linear& l) {
        double e = 0;
        for (std::size_t k = 0; k < x.size(); ++k) e += w[k] * std::pow(l.T + l.K * x[k] - y[k], 2);
        return e;
      };
      const bool on_origin = sse(origin) <= sse(level);
      f.line = on_origin ? origin : level;
      f.held = on_origin ? "T" : "K";
    }
  }
  std::vector<double> p(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) p[k] = f.line.T + f.line.K * x[k];
  // One regressor value, or the slope held at 0: a flat line, no r^2.
  f.r2 = f.slope && f.held != "K" ? r_squared(p, y) : std::nan("");
  return f;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return s / v.size();
}

}  // namespace

double merpsys_regressor(const std::string& block, double P, double bytes, double D_tu) {
  const double D = D_tu > 0 ? std::ceil(bytes / D_tu) * D_tu : bytes;
  const double lg = std::log2(std::max(1.0, P));
  if (block == "bcast") return D * lg;
  if (block == "scatter" || block == "gather") return D * lg / P;
  if (block == "alltoall") return D * P;
  if (block == "barrier") return lg;
  return D;  // p2p, read, write
}

MerpsysFit fit_merpsys(const std::vector<BlockSample>& samples, double D_tu, double P_low,
                       double P_hi) {
  MerpsysFit out;
  Merpsys& c = out.coefficients;
  c.D_tu = D_tu;
  c.P_low = P_low, c.P_hi = P_hi;
  const std::vector<std::pair<std::string, Linear*>> lines = {
      {"p2p", &c.p2p},       {"bcast", &c.bcast},       {"scatter", &c.scatter},
      {"gather", &c.gather}, {"alltoall", &c.alltoall}, {"barrier", &c.barrier},
      {"read", &c.read},     {"write", &c.write}};
  for (const auto& [name, dst] : lines) {
    std::vector<double> x, y;
    for (const BlockSample& s : samples) {
      if (s.block == name && s.seconds > 0) {
        x.push_back(merpsys_regressor(name, s.P, s.bytes, D_tu));
        y.push_back(s.seconds);
      }
    }
    if (x.empty()) continue;
    // The paper: mean percentage error where small values matter (short messages), else MSE.
    const BlockFit f = fit_line(x, y, name == "p2p" || name == "barrier", true);
    *dst = f.line;
    out.blocks[name] = f;
  }
  // Computation: seconds per instruction of a thread, by active threads, in three segments.
  std::vector<double> th, per;
  for (const BlockSample& s : samples) {
    if (s.block == "compute" && s.seconds > 0 && s.bytes > 0) {
      th.push_back(s.threads);
      per.push_back(s.seconds / s.bytes);
    }
  }
  if (!th.empty()) {
    std::vector<double> low, mid, hx, hy;
    for (std::size_t k = 0; k < th.size(); ++k) {
      (th[k] <= P_low ? low : th[k] <= P_hi ? mid : hy).push_back(per[k]);
      if (th[k] > P_hi) hx.push_back(th[k]);
    }
    if (low.empty()) throw std::invalid_argument("compute: no sample at P_low threads or fewer");
    c.T_min = mean(low);
    c.T_low = mid.empty() ? c.T_min : mean(mid);
    if (hx.size() >= 2) {
      const BlockFit f = fit_line(hx, hy, false, false);
      c.T_hi = f.line.T, c.K_hi = f.line.K;
    } else {
      c.T_hi = hy.empty() ? c.T_low : hy[0], c.K_hi = 0;
    }
    c.compute_given = true;
    BlockFit f;
    f.points = static_cast<int>(th.size());
    std::vector<double> p, m;
    for (const BlockSample& s : samples) {
      if (s.block != "compute" || s.seconds <= 0 || s.bytes <= 0) continue;
      const double t = s.threads <= P_low  ? c.T_min
                       : s.threads <= P_hi ? c.T_low
                                           : c.T_hi + c.K_hi * s.threads;
      p.push_back(t * s.bytes);
      m.push_back(s.seconds);
    }
    f.r2 = r_squared(p, m);
    out.blocks["compute"] = f;
  }
  if (out.blocks.empty()) throw std::invalid_argument("no sample with a positive time");
  return out;
}

const std::vector<PaperR2>& merpsys_table2() {
  static const std::vector<PaperR2> t = {
      {"compute", 0.9993, 0.9999, 0.9999}, {"p2p", 0.9996, 0.9998, 0.9996},
      {"bcast", 0.9902, 0.9688, 0.9102},   {"scatter", 0.9643, 0.9176, 0.9668},
      {"gather", 0.9620, 0.9374, 0.9823},  {"alltoall", 0.9296, 0.7858, 0.8384},
      {"barrier", 0.7324, 0.9223, 0.8527}, {"read", 0.9999, 0.9971, 0.9976},
      {"write", 0.9988, 0.9999, 0.9999}};
  return t;
}

}  // namespace colltune::forecast

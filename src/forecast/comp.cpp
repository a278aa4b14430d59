#include "comp.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <thread>

namespace colltune::forecast {

const KernelModel* CompModel::find(Kernel k) const {
  for (const KernelModel& km : kernels) {
    if (km.kernel == k) return &km;
  }
  return nullptr;
}

Plan plan(Kernel k, bool quick, unsigned seed) {
  Plan p;
  // daxpy is one vector: sizes of vectors; the others of matrices.
  const bool vector = k == Kernel::kDaxpy;
  p.lo = vector ? 1000 : (quick ? 16 : 32);
  p.hi = vector ? (quick ? 100000 : 4000000) : (quick ? 256 : 2048);
  const int count = quick ? 24 : (k == Kernel::kDgemm ? 60 : 45);
  std::mt19937 rng(seed + static_cast<unsigned>(k));
  std::uniform_real_distribution<double> u(std::log(p.lo), std::log(p.hi));
  for (int i = 0; i < count; ++i) {
    std::vector<double> x;
    for (int v = 0; v < kernel_vars(k); ++v) x.push_back(std::round(std::exp(u(rng))));
    (i % 3 == 2 ? p.select : p.train).push_back(x);
  }
  const double step = vector ? p.hi / 16 : quick ? 32 : 128;
  for (double s = vector ? step : quick ? 32 : 128; s <= p.hi; s += step) {
    p.validate.push_back(std::vector<double>(kernel_vars(k), s));
  }
  return p;
}

CompModel benchmark(const std::vector<Kernel>& kernels, bool quick, const std::string& host,
                    const std::string& blas, const Timer& time,
                    const std::function<void(Kernel)>& progress) {
  CompModel m;
  m.host = host;
  m.blas = blas;
  for (const Kernel k : kernels) {
    if (progress) progress(k);
    const Plan p = plan(k, quick);
    auto measure = [&](const std::vector<std::vector<double>>& sizes) {
      std::vector<Sample> out;
      for (const auto& x : sizes) out.push_back({x, time(k, x)});
      return out;
    };
    KernelModel km;
    km.kernel = k;
    km.lo = p.lo;
    km.hi = p.hi;
    const std::vector<Sample> train = measure(p.train), select = measure(p.select);
    km.validated = measure(p.validate);
    km.time = fit_by_held_out(train, select, 3);
    // The selection's error of the chosen degree, fitted on the training samples alone.
    km.selection = relative_error(fit(train, km.time.terms), select);
    km.validation = relative_error(km.time, km.validated);
    km.fitted = train;
    km.fitted.insert(km.fitted.end(), select.begin(), select.end());
    m.kernels.push_back(std::move(km));
  }
  return m;
}

double memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kb = 0;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

double cpu_share(double load, int cores) {
  return std::min(1.0, std::max(1, cores) / (std::max(0.0, load) + 1));
}

CpuNow cpu_now() {
  CpuNow c;
  std::ifstream in("/proc/loadavg");
  in >> c.load;
  c.cores = std::max(1u, std::thread::hardware_concurrency());
  c.share = cpu_share(c.load, c.cores);
  return c;
}

const CompModel* for_occupancy(std::span<const CompModel> models, int processes) {
  const CompModel* best = nullptr;
  for (const CompModel& m : models) {
    const bool fits = m.occupancy <= processes;
    if (!best || (fits && (best->occupancy > processes || m.occupancy > best->occupancy)) ||
        (!fits && best->occupancy > processes && m.occupancy < best->occupancy)) {
      best = &m;
    }
  }
  return best;
}

CompForecast comp(const CompModel& m, Kernel k, const std::vector<double>& sizes) {
  CompForecast f;
  const KernelModel* km = m.find(k);
  if (!km) return f;
  f.seconds = std::max(0.0, km->time.at(sizes));
  f.bytes = kernel_bytes(k, sizes);
  f.validation = km->validation;
  for (const double s : sizes) f.outside = f.outside || s < km->lo || s > km->hi;
  return f;
}

}  // namespace colltune::forecast

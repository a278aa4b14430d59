// Computation forecasts (FAST's `comp`): each kernel of blas.hpp benchmarked once on this host
// at sizes on a seeded random plan, fitted by polynomial regression (regression.hpp), and
// judged on square sizes the fit never saw. No MPI, no files (comp_yaml.hpp stores it).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "blas.hpp"
#include "regression.hpp"

namespace colltune::forecast {

struct KernelModel {
  Kernel kernel = Kernel::kDgemm;
  Polynomial time;      // seconds, in the kernel's sizes
  FitError selection;   // on the samples that chose the degree (then fitted on too)
  FitError validation;  // on the square sizes, never fitted
  std::vector<Sample> fitted, validated;  // what was measured
  double lo = 0, hi = 0;                  // the sizes the fit saw (each size within)
};

struct CompModel {
  std::string host;   // the host it was measured on
  std::string blas;   // blas_name()
  int occupancy = 1;  // processes running kernels on the host at once when it was measured
  std::vector<KernelModel> kernels;
  const KernelModel* find(Kernel k) const;
};

// The measurement plan of a kernel: `fit` samples at log-uniform random sizes in [lo, hi] (a
// third of them choose the degree), `validate` at the square sizes from 128 to hi by 128 (quick:
// lo 16, hi 256 by 32), never fitted.
struct Plan {
  std::vector<std::vector<double>> train, select, validate;
  double lo = 0, hi = 0;
};
Plan plan(Kernel k, bool quick, unsigned seed = 1);

// Benchmarks and fits every kernel of `kernels` on `host` with `blas` (blas_name());
// `progress` hears each kernel first. `time` measures one call (time_kernel; tests pass a
// synthetic one).
using Timer = std::function<double(Kernel, const std::vector<double>&)>;
CompModel benchmark(const std::vector<Kernel>& kernels, bool quick, const std::string& host,
                    const std::string& blas, const Timer& time,
                    const std::function<void(Kernel)>& progress = {});

// Of models of one host measured at different occupancies, the one for `processes` processes
// on a host: the same occupancy, else the largest below it, else the smallest (nullptr when
// `models` is empty).
const CompModel* for_occupancy(std::span<const CompModel> models, int processes);

struct CompForecast {
  double seconds = 0;
  double bytes = 0;      // the operands' memory
  FitError validation;   // the fit's error on the square sizes
  bool outside = false;  // a size outside what the fit saw: an extrapolation
};
// Bytes of memory available now (MemAvailable of /proc/meminfo; 0 when unknown).
double memory_available();

// The CPU a new process would get on this host now (FAST's CPU availability, which NWS gives
// it): with `load` processes running on `cores`, a share of min(1, cores / (load + 1)) of one
// core; a kernel then takes its forecast divided by the share.
double cpu_share(double load, int cores);
struct CpuNow {
  double load = 0;  // the 1-minute load average (/proc/loadavg)
  int cores = 1;
  double share = 1;
};
CpuNow cpu_now();

// The forecast of k at sizes (kernel_vars(k) whole numbers >= 1); the kernel must be in m.
CompForecast comp(const CompModel& m, Kernel k, const std::vector<double>& sizes);

}  // namespace colltune::forecast

#include "blas.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <random>
#include <stdexcept>

// The Fortran BLAS (not the CBLAS names: GSL's own CBLAS, which colltune links, defines those),
// from Debian's OpenBLAS, loaded at the first benchmark.
namespace {
using Dgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const double*,
                       const double*, const int*, const double*, const int*, const double*, double*,
                       const int*);
using Dtrsm = void (*)(const char*, const char*, const char*, const char*, const int*, const int*,
                       const double*, const double*, const int*, double*, const int*);
using Daxpy = void (*)(const int*, const double*, const double*, const int*, double*, const int*);
struct Blas {
  Dgemm dgemm = nullptr;
  Dtrsm dtrsm = nullptr;
  Daxpy daxpy = nullptr;
  std::string name;
};
constexpr const char* kLibrary = "libopenblas.so.0";

// OpenBLAS, one thread; throws std::runtime_error naming the library when it cannot be loaded.
const Blas& blas() {
  static const Blas b = [] {
    void* h = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      throw std::runtime_error(std::string(kLibrary) +
                               ": cannot be loaded (install Debian's libopenblas-dev)");
    }
    Blas x;
    x.dgemm = reinterpret_cast<Dgemm>(dlsym(h, "dgemm_"));
    x.dtrsm = reinterpret_cast<Dtrsm>(dlsym(h, "dtrsm_"));
    x.daxpy = reinterpret_cast<Daxpy>(dlsym(h, "daxpy_"));
    if (!x.dgemm || !x.dtrsm || !x.daxpy) {
      throw std::runtime_error(std::string(kLibrary) + ": lacks dgemm_, dtrsm_ or daxpy_");
    }
    if (auto threads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"))) {
      threads(1);
    }
    x.name = "OpenBLAS";
    if (auto config = reinterpret_cast<char* (*)()>(dlsym(h, "openblas_get_config"))) {
      x.name = config();  // "OpenBLAS 0.3.21 ..."
    }
    x.name += ", 1 thread";
    return x;
  }();
  return b;
}
}  // namespace

namespace colltune::forecast {

const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::kDgemm:
      return "dgemm";
    case Kernel::kDtrsm:
      return "dtrsm";
    case Kernel::kAdd:
      return "add";
    case Kernel::kDaxpy:
      return "daxpy";
  }
  return "?";
}

const char* kernel_sizes(Kernel k) {
  switch (k) {
    case Kernel::kDgemm:
      return "M,N,K";
    case Kernel::kDtrsm:
    case Kernel::kAdd:
      return "M,N";
    case Kernel::kDaxpy:
      return "N";
  }
  return "";
}

int kernel_vars(Kernel k) { return k == Kernel::kDgemm ? 3 : k == Kernel::kDaxpy ? 1 : 2; }

std::optional<Kernel> kernel_from_name(std::string_view name) {
  for (const Kernel k : kKernels) {
    if (name == kernel_name(k)) return k;
  }
  return std::nullopt;
}

double kernel_bytes(Kernel k, const std::vector<double>& s) {
  switch (k) {
    case Kernel::kDgemm:
      return 8 * (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]);
    case Kernel::kDtrsm:
      return 8 * (s[0] * s[0] + s[0] * s[1]);
    case Kernel::kAdd:
      return 8 * 3 * s[0] * s[1];
    case Kernel::kDaxpy:
      return 8 * 2 * s[0];
  }
  return 0;
}

std::string blas_name() { return blas().name; }

double time_kernel(Kernel k, const std::vector<double>& sizes, double min_seconds, int neighbours) {
  const Blas& lib = blas();
  const int m = static_cast<int>(sizes[0]);
  const int n = sizes.size() > 1 ? static_cast<int>(sizes[1]) : 1;
  const int kk = sizes.size() > 2 ? static_cast<int>(sizes[2]) : 1;
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  auto fill = [&](std::size_t count) {
    std::vector<double> v(count);
    for (double& x : v) x = u(rng);
    return v;
  };
  std::vector<double> a, b, c;
  switch (k) {
    case Kernel::kDgemm:
      a = fill(static_cast<std::size_t>(m) * kk);
      b = fill(static_cast<std::size_t>(kk) * n);
      c = fill(static_cast<std::size_t>(m) * n);
      break;
    case Kernel::kDtrsm:
      a = fill(static_cast<std::size_t>(m) * m);
      for (int i = 0; i < m; ++i) a[static_cast<std::size_t>(i) * m + i] += m;  // well conditioned
      b = fill(static_cast<std::size_t>(m) * n);
      c = b;
      break;
    case Kernel::kAdd:
      a = fill(static_cast<std::size_t>(m) * n);
      b = fill(static_cast<std::size_t>(m) * n);
      c.assign(a.size(), 0);
      break;
    case Kernel::kDaxpy:
      a = fill(m);
      b = fill(m);
      break;
  }
  const double one = 1, alpha = 1e-3;
  const int inc = 1;
  auto timed = [&] {
    if (k == Kernel::kDtrsm) b = c;  // the same right-hand side every time, outside the clock
    const auto t0 = std::chrono::steady_clock::now();
    switch (k) {
      case Kernel::kDgemm:
        lib.dgemm("N", "N", &m, &n, &kk, &one, a.data(), &m, b.data(), &kk, &one, c.data(), &m);
        break;
      case Kernel::kDtrsm:
        lib.dtrsm("L", "L", "N", "N", &m, &n, &one, a.data(), &m, b.data(), &m);
        break;
      case Kernel::kAdd:
        for (std::size_t i = 0; i < c.size(); ++i) c[i] = a[i] + b[i];
        break;
      case Kernel::kDaxpy:
        lib.daxpy(&m, &alpha, a.data(), &inc, b.data(), &inc);
        break;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  timed();  // warm up: pages touched, BLAS threads and buffers set up
  // Neighbours: processes forked to run the same call in a loop (their own copies of the
  // operands) until the timing is done, as the other processes of an SPMD routine on this host.
  struct Shared {
    std::atomic<int> ready{0}, stop{0};
  };
  Shared* shared = nullptr;
  std::vector<pid_t> kids;
  if (neighbours > 0) {
    void* mem =
        mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw std::runtime_error("benchmark: cannot map memory for neighbours");
    shared = new (mem) Shared;
    const pid_t parent = getpid();
    for (int i = 0; i < neighbours; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        // A neighbour never outlives the benchmark, even one killed before it could stop them.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0);
        timed();
        shared->ready.fetch_add(1);
        while (!shared->stop.load()) timed();
        _exit(0);
      }
      if (pid < 0) {
        shared->stop = 1;
        for (const pid_t kid : kids) waitpid(kid, nullptr, 0);
        munmap(mem, sizeof(Shared));
        throw std::runtime_error("benchmark: cannot fork a neighbour");
      }
      kids.push_back(pid);
    }
    while (shared->ready.load() < neighbours) usleep(100);
  }
  std::vector<double> t;
  double total = 0;
  while (t.size() < 3 || (total < min_seconds && t.size() < 1000)) {
    t.push_back(timed());
    total += t.back();
  }
  if (shared) {
    shared->stop = 1;
    for (const pid_t kid : kids) waitpid(kid, nullptr, 0);
    munmap(shared, sizeof(Shared));
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

}  // namespace colltune::forecast

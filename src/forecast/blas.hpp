// The sequential routines colltune-predict benchmarks (FAST's routine benchmarks): BLAS dgemm,
// dtrsm and daxpy of Debian's OpenBLAS (loaded at the first use, one thread), and a matrix add,
// each timed on operands of its own. No MPI.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune::forecast {

enum class Kernel {
  kDgemm,  // C = A B + C, A m x k, B k x n        sizes m, n, k
  kDtrsm,  // B = A^-1 B, A m x m lower triangular  sizes m, n (B m x n)
  kAdd,    // C = A + B, m x n                       sizes m, n
  kDaxpy,  // y = a x + y, n elements                size n
};
inline constexpr Kernel kKernels[] = {Kernel::kDgemm, Kernel::kDtrsm, Kernel::kAdd, Kernel::kDaxpy};
const char* kernel_name(Kernel k);   // dgemm, dtrsm, add, daxpy
const char* kernel_sizes(Kernel k);  // "M,N,K", "M,N", "M,N", "N"
int kernel_vars(Kernel k);           // how many sizes
std::optional<Kernel> kernel_from_name(std::string_view name);

// The bytes of the operands a call touches (8-byte doubles): dgemm 8 (mk + kn + mn), dtrsm
// 8 (m^2 + mn), add 8 * 3 mn, daxpy 8 * 2 n.
double kernel_bytes(Kernel k, const std::vector<double>& sizes);

// The BLAS the benchmarks run and its threads ("OpenBLAS 0.3.21 ... , 1 thread"). Throws
// std::runtime_error when Debian's OpenBLAS cannot be loaded (so does time_kernel).
std::string blas_name();

// Seconds of one call at `sizes` (whole numbers >= 1): the median of repetitions after one to
// warm up, repeated until they took `min_seconds` (at least 3, at most 1000), while
// `neighbours` forked processes run the same call in a loop (the other processes of a routine
// sharing this host's memory bandwidth and caches).
double time_kernel(Kernel k, const std::vector<double>& sizes, double min_seconds = 0.05,
                   int neighbours = 0);

}  // namespace colltune::forecast

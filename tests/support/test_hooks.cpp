// The test build's hooks (src/test_hooks.hpp): strong definitions over the library's inert ones.
//   COLLTUNE_TEST_SLOW_WRITE=S, COLLTUNE_TEST_FIT_THROW=1, COLLTUNE_TEST_KEEP_PARALLEL=1,
//   COLLTUNE_BENCH_TEST_CLOCK_SKEW=S, COLLTUNE_TEST_SLOW_VERIFIED=pick:S|native:S: see Hook.
//   COLLTUNE_TEST_FAIL_AT=POINT:RANK[,POINT:RANK...]: fail_here(POINT) is true on world rank RANK
//   (RANK * : every rank). Points: docs/faults.md.
#include "test_hooks.hpp"

#include <mpi.h>

#include <cstdlib>
#include <cstring>

namespace colltune::hooks {

const char* value(Hook h) noexcept {
  switch (h) {
    case Hook::kSlowWrite:
      return std::getenv("COLLTUNE_TEST_SLOW_WRITE");
    case Hook::kFitThrow:
      return std::getenv("COLLTUNE_TEST_FIT_THROW");
    case Hook::kKeepParallel:
      return std::getenv("COLLTUNE_TEST_KEEP_PARALLEL");
    case Hook::kClockSkew:
      return std::getenv("COLLTUNE_BENCH_TEST_CLOCK_SKEW");
    case Hook::kSlowVerified:
      return std::getenv("COLLTUNE_TEST_SLOW_VERIFIED");
  }
  return nullptr;
}

bool fail_here(const char* point) noexcept {
  const char* spec = std::getenv("COLLTUNE_TEST_FAIL_AT");
  if (!spec || !point) return false;
  int rank = -1;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) return false;
  const std::size_t n = std::strlen(point);
  for (const char* p = spec; *p;) {
    const char* end = std::strchr(p, ',');
    if (!end) end = p + std::strlen(p);
    const char* colon =
        static_cast<const char*>(std::memchr(p, ':', static_cast<std::size_t>(end - p)));
    if (colon && static_cast<std::size_t>(colon - p) == n && std::strncmp(p, point, n) == 0) {
      if (colon[1] == '*' || std::atoi(colon + 1) == rank) return true;
    }
    p = *end ? end + 1 : end;
  }
  return false;
}

}  // namespace colltune::hooks

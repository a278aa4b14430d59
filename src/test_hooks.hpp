// Fault and timing hooks for the test suite. The library's own definitions (test_hooks.cpp) are
// weak and inert: the installed library reads no test variable. Test builds link
// tests/support/test_hooks.cpp, whose strong definitions read COLLTUNE_TEST_* (tests/README.md).
#pragma once

namespace colltune::hooks {

enum class Hook {
  kSlowWrite,     // seconds an atomic file write pauses halfway (atomic_file.cpp)
  kFitThrow,      // rank 0's calibration fit throws (calibration/run.cpp)
  kKeepParallel,  // calibration keeps parallel roundtrips unsettled (calibration/measure.cpp)
  kClockSkew,     // seconds per world rank the global timing method's clock is shifted
  kSlowVerified,  // "pick:S" or "native:S": world rank 1 pauses S seconds in each verification
                  // call of that kind (runtime/dispatch.cpp)
};

// The hook's value, or nullptr (always nullptr outside test builds).
const char* value(Hook h) noexcept;

// True when a test build is told to fail at `point` on this world rank (COLLTUNE_TEST_FAIL_AT);
// the caller then fails as an allocation failure there would. Always false outside test builds.
bool fail_here(const char* point) noexcept;

}  // namespace colltune::hooks

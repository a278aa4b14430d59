#include "test_hooks.hpp"

namespace colltune::hooks {

__attribute__((weak)) const char* value(Hook) noexcept { return nullptr; }
__attribute__((weak)) bool fail_here(const char*) noexcept { return false; }

}  // namespace colltune::hooks

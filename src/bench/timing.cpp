#include "timing.hpp"

namespace colltune::bench {

std::vector<std::string> timing_names() { return {"root", "max", "global"}; }

std::unique_ptr<TimingMethod> make_timing(std::string_view name, int resync_every) {
  if (name == "root") return make_root_timing();
  if (name == "max") return make_max_timing();
  if (name == "global") return make_global_timing(resync_every);
  return nullptr;
}

}  // namespace colltune::bench

// max timing: T = max_p (t_end,p - t_start,p) over local clocks (one allreduce).
#include "../algorithms/waits.hpp"
#include "timing.hpp"

namespace colltune::bench {
namespace {

class MaxTiming final : public TimingMethod {
 public:
  std::string_view name() const override { return "max"; }
  int prepare(MPI_Comm, int) override { return MPI_SUCCESS; }
  int measure(MPI_Comm comm, int, bool isolate, const std::function<int()>& op,
              double* seconds) override {
    int rc = isolate ? waits::barrier(comm) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) return rc;
    const double t0 = PMPI_Wtime();
    const int orc = op();
    const double local = orc == MPI_SUCCESS ? PMPI_Wtime() - t0 : kFailed;
    if ((rc = waits::allreduce(&local, seconds, 1, MPI_DOUBLE, MPI_MAX, comm)) != MPI_SUCCESS) {
      return rc;
    }
    return outcome(orc, *seconds);
  }
};

}  // namespace

std::unique_ptr<TimingMethod> make_max_timing() { return std::make_unique<MaxTiming>(); }

}  // namespace colltune::bench

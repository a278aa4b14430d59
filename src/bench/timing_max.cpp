// max timing: T = max_p (t_end,p - t_start,p) over local clocks (one allreduce).
#include "timing.hpp"

namespace colltune::bench {
namespace {

class MaxTiming final : public TimingMethod {
 public:
  std::string_view name() const override { return "max"; }
  int prepare(MPI_Comm, int) override { return MPI_SUCCESS; }
  int measure(MPI_Comm comm, int, bool isolate, const std::function<int()>& op,
              double* seconds) override {
    int rc = isolate ? MPI_Barrier(comm) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) return rc;
    const double t0 = MPI_Wtime();
    if ((rc = op()) != MPI_SUCCESS) return rc;
    const double local = MPI_Wtime() - t0;
    return MPI_Allreduce(&local, seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  }
};

}  // namespace

std::unique_ptr<TimingMethod> make_max_timing() { return std::make_unique<MaxTiming>(); }

}  // namespace colltune::bench

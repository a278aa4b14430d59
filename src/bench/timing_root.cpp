// root timing: T = (t_all_confirmed - t_start) at the root - C, where C estimates the cost of a
// confirmation round alone (every other process sends an empty message to the root).
#include <algorithm>
#include <limits>

#include "../algorithms/waits.hpp"
#include "timing.hpp"

namespace colltune::bench {
namespace {

class RootTiming final : public TimingMethod {
 public:
  std::string_view name() const override { return "root"; }

  // C = max_p of one empty message's one-way time p -> root (half the fastest of 10 empty
  // roundtrips with each p): what the confirmation round costs when every process confirms at
  // once. Measured pair by pair, not as a confirmation round after a barrier, whose exit skew
  // (the root typically leaves first) would enter C: 1.2e-4 s against 6.2e-5 s on 8 simulated
  // heterogeneous hosts whose exact cost is 6.2e-5 s (tests/smpi/timing-truth.py).
  // Measured once per (communicator, root): a property of the network, not of the series.
  int prepare(MPI_Comm comm, int root) override {
    bool reuse = false;
    if (const int rc = mark_.reuse(comm, root, kForever, &reuse); rc != MPI_SUCCESS || reuse) {
      return rc;
    }
    int rank, size;
    if (const int rc = rank_size(comm, &rank, &size); rc != MPI_SUCCESS) return rc;
    double worst = 0;
    for (int p = 0; p < size; ++p) {
      if (p == root || (rank != root && rank != p)) continue;
      double best = std::numeric_limits<double>::infinity();
      for (int k = 0; k <= 10; ++k) {  // k = 0: warm-up, not counted
        const double t0 = PMPI_Wtime();
        int rc;
        if (rank == root) {
          rc = waits::send(nullptr, 0, MPI_BYTE, p, kTagConfirm, comm);
          if (rc == MPI_SUCCESS)
            rc = waits::recv(nullptr, 0, MPI_BYTE, p, kTagConfirm, comm, MPI_STATUS_IGNORE);
        } else {
          rc = waits::recv(nullptr, 0, MPI_BYTE, root, kTagConfirm, comm, MPI_STATUS_IGNORE);
          if (rc == MPI_SUCCESS) rc = waits::send(nullptr, 0, MPI_BYTE, root, kTagConfirm, comm);
        }
        if (rc != MPI_SUCCESS) return rc;
        if (k > 0) best = std::min(best, PMPI_Wtime() - t0);
      }
      worst = std::max(worst, best / 2);
    }
    confirm_cost_ = worst;  // meaningful at the root only
    return mark_.mark(comm, root);
  }

  int measure(MPI_Comm comm, int root, bool isolate, const std::function<int()>& op,
              double* seconds) override {
    int rank = 0;
    int rc = PMPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS && isolate) rc = waits::barrier(comm);
    if (rc != MPI_SUCCESS) return rc;
    const double t0 = PMPI_Wtime();
    const int orc = op();  // confirmed even when it failed, so that the root never waits
    if ((rc = notify_root(comm, root, kTagConfirm)) != MPI_SUCCESS) return rc;
    // The root's time to every rank, and any failure (kFailed) to every rank, in one reduction.
    const double mine = orc != MPI_SUCCESS ? kFailed
                        : rank == root     ? PMPI_Wtime() - t0 - confirm_cost_
                                           : -kFailed;
    if ((rc = waits::allreduce(&mine, seconds, 1, MPI_DOUBLE, MPI_MAX, comm)) != MPI_SUCCESS) {
      return rc;
    }
    return outcome(orc, *seconds);
  }

  double correction() const override { return confirm_cost_; }

 private:
  static constexpr double kForever = std::numeric_limits<double>::infinity();
  double confirm_cost_ = 0;
  PreparedMark mark_;
};

}  // namespace

std::unique_ptr<TimingMethod> make_root_timing() { return std::make_unique<RootTiming>(); }

}  // namespace colltune::bench

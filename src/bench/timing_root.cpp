// root timing: T = (t_all_confirmed - t_start) at the root - C, where C is the median time of a
// confirmation round alone (every other process sends an empty message to the root).
#include <algorithm>
#include <vector>

#include "timing.hpp"

namespace colltune::bench {
namespace {

// Every non-root sends an empty confirmation; the root receives one from each.
int confirm(MPI_Comm comm, int root, int rank, int size) {
  if (rank != root) return MPI_Send(nullptr, 0, MPI_BYTE, root, kTagConfirm, comm);
  for (int p = 0; p < size; ++p) {
    if (p == root) continue;
    const int rc = MPI_Recv(nullptr, 0, MPI_BYTE, p, kTagConfirm, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

class RootTiming final : public TimingMethod {
 public:
  std::string_view name() const override { return "root"; }

  int prepare(MPI_Comm comm, int root) override {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<double> t;
    for (int k = 0; k < 11; ++k) {
      int rc = MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      if (rc == MPI_SUCCESS) rc = confirm(comm, root, rank, size);
      if (rc != MPI_SUCCESS) return rc;
      t.push_back(MPI_Wtime() - t0);
    }
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    confirm_cost_ = t[t.size() / 2];  // meaningful at the root only
    return MPI_SUCCESS;
  }

  int measure(MPI_Comm comm, int root, bool isolate, const std::function<int()>& op,
              double* seconds) override {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int rc = isolate ? MPI_Barrier(comm) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) return rc;
    const double t0 = MPI_Wtime();
    if ((rc = op()) != MPI_SUCCESS) return rc;
    if ((rc = confirm(comm, root, rank, size)) != MPI_SUCCESS) return rc;
    *seconds = MPI_Wtime() - t0 - confirm_cost_;
    return PMPI_Bcast(seconds, 1, MPI_DOUBLE, root, comm);  // PMPI: never self-intercepted
  }

 private:
  double confirm_cost_ = 0;
};

}  // namespace

std::unique_ptr<TimingMethod> make_root_timing() { return std::make_unique<RootTiming>(); }

}  // namespace colltune::bench

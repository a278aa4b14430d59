#include "timing.hpp"

namespace colltune::bench {

int notify_root(MPI_Comm comm, int root, int tag) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank != root) return MPI_Send(nullptr, 0, MPI_BYTE, root, tag, comm);
  std::vector<MPI_Request> reqs;
  reqs.reserve(size);
  for (int p = 0; p < size; ++p) {
    if (p == root) continue;
    MPI_Request r;
    const int rc = MPI_Irecv(nullptr, 0, MPI_BYTE, p, tag, comm, &r);
    if (rc != MPI_SUCCESS) {
      for (auto& q : reqs) MPI_Cancel(&q), MPI_Request_free(&q);
      return rc;
    }
    reqs.push_back(r);
  }
  return MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

std::vector<std::string> timing_names() { return {"root", "max", "global"}; }

std::unique_ptr<TimingMethod> make_timing(std::string_view name, int resync_every) {
  if (name == "root") return make_root_timing();
  if (name == "max") return make_max_timing();
  if (name == "global") return make_global_timing(resync_every);
  return nullptr;
}

}  // namespace colltune::bench

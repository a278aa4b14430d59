#include "timing.hpp"

namespace colltune::bench {

int rank_size(MPI_Comm comm, int* rank, int* size) {
  const int rc = PMPI_Comm_rank(comm, rank);
  return rc != MPI_SUCCESS ? rc : PMPI_Comm_size(comm, size);
}

int notify_root(MPI_Comm comm, int root, int tag) {
  int rank, size;
  const int rc = rank_size(comm, &rank, &size);
  if (rc != MPI_SUCCESS) return rc;
  if (rank != root) return PMPI_Send(nullptr, 0, MPI_BYTE, root, tag, comm);
  std::vector<MPI_Request> reqs;
  reqs.reserve(size);
  for (int p = 0; p < size; ++p) {
    if (p == root) continue;
    MPI_Request r;
    const int irc = PMPI_Irecv(nullptr, 0, MPI_BYTE, p, tag, comm, &r);
    if (irc != MPI_SUCCESS) {
      for (auto& q : reqs) {  // clean-up after the first error, which is what is returned
        (void)PMPI_Cancel(&q);
        (void)PMPI_Request_free(&q);
      }
      return irc;
    }
    reqs.push_back(r);
  }
  return PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

std::vector<std::string> timing_names() { return {"root", "max", "global", "window"}; }

std::unique_ptr<TimingMethod> make_timing(std::string_view name, int resync_every) {
  if (name == "root") return make_root_timing();
  if (name == "max") return make_max_timing();
  if (name == "global") return make_global_timing(resync_every);
  if (name == "window") return make_window_timing(resync_every);
  return nullptr;
}

}  // namespace colltune::bench

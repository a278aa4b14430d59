#include "timing.hpp"

#include <atomic>
#include <mutex>

#include "../algorithms/waits.hpp"

namespace colltune::bench {

namespace {

struct Mark {
  std::uint64_t owner;
  int root;
  double when;  // the root's MPI_Wtime
};

int delete_mark(MPI_Comm, int, void* value, void*) {
  delete static_cast<Mark*>(value);
  return MPI_SUCCESS;
}

// The attribute key, created once per process (never freed: it outlives every communicator).
int mark_key(int* key) {
  static int k = MPI_KEYVAL_INVALID;
  static int rc = MPI_SUCCESS;
  static std::once_flag once;
  std::call_once(
      once, [] { rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_mark, &k, nullptr); });
  *key = k;
  return rc;
}

}  // namespace

std::uint64_t PreparedMark::next_owner() {
  static std::atomic<std::uint64_t> next{1};
  return next++;
}

int PreparedMark::reuse(MPI_Comm comm, int root, double max_age, bool* yes) const {
  int key, rank, flag = 0;
  void* value = nullptr;
  int rc = mark_key(&key);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_rank(comm, &rank);
  if (rc == MPI_SUCCESS) rc = PMPI_Comm_get_attr(comm, key, &value, &flag);
  if (rc != MPI_SUCCESS) return rc;
  int ok = 0;
  if (rank == root && flag) {
    const Mark* m = static_cast<const Mark*>(value);
    ok = m->owner == owner_ && m->root == root && PMPI_Wtime() - m->when <= max_age;
  }
  rc = waits::bcast(&ok, 1, MPI_INT, root, comm);
  *yes = ok != 0;
  return rc;
}

int PreparedMark::mark(MPI_Comm comm, int root) const {
  int key;
  int rc = mark_key(&key);
  if (rc != MPI_SUCCESS) return rc;
  Mark* m = new Mark{owner_, root, PMPI_Wtime()};
  // Replacing an older mark calls delete_mark on it.
  if ((rc = PMPI_Comm_set_attr(comm, key, m)) != MPI_SUCCESS) delete m;
  return rc;
}

int rank_size(MPI_Comm comm, int* rank, int* size) {
  const int rc = PMPI_Comm_rank(comm, rank);
  return rc != MPI_SUCCESS ? rc : PMPI_Comm_size(comm, size);
}

int notify_root(MPI_Comm comm, int root, int tag) {
  int rank, size;
  const int rc = rank_size(comm, &rank, &size);
  if (rc != MPI_SUCCESS) return rc;
  if (rank != root) return waits::send(nullptr, 0, MPI_BYTE, root, tag, comm);
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
  return waits::waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
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

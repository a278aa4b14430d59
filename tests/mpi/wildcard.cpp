// A wildcard receive (MPI_ANY_SOURCE, MPI_ANY_TAG) pending on the user's communicator across
// tuned collectives must match none of colltune's internal messages, only the user's message
// sent afterwards. Fails if an internal message leaks onto the user's communicator.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0;
  int got[2] = {-1, -1};
  MPI_Request req = MPI_REQUEST_NULL;
  if (rank != 0) MPI_Irecv(got, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);

  std::vector<int> buf(4096 * size), one(4096);
  for (int iter = 0; iter < 20; ++iter) {
    const int root = iter % size;
    for (int i = 0; i < 4096; ++i) one[i] = root * 10 + i;
    MPI_Bcast(one.data(), 4096, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Scatter(buf.data(), 4096, MPI_INT, one.data(), 4096, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Gather(one.data(), 4096, MPI_INT, buf.data(), 4096, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Bcast(one.data(), 1, MPI_INT, root, MPI_COMM_WORLD);
    if (rank != 0) {
      int flag = 0;
      MPI_Status st;
      MPI_Test(&req, &flag, &st);
      if (flag) {
        std::fprintf(stderr,
                     "FAIL rank %d: wildcard receive matched source %d tag %d during "
                     "collectives\n",
                     rank, st.MPI_SOURCE, st.MPI_TAG);
        ++failures;
        break;
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int p = 1; p < size; ++p) {
      int msg[2] = {12345, p};
      MPI_Send(msg, 2, MPI_INT, p, 101, MPI_COMM_WORLD);  // 101: colltune's internal bcast tag
    }
  } else if (req != MPI_REQUEST_NULL) {
    MPI_Status st;
    MPI_Wait(&req, &st);
    if (st.MPI_SOURCE != 0 || st.MPI_TAG != 101 || got[0] != 12345 || got[1] != rank) {
      std::fprintf(stderr, "FAIL rank %d: wildcard got {%d,%d} from %d tag %d\n", rank, got[0],
                   got[1], st.MPI_SOURCE, st.MPI_TAG);
      ++failures;
    }
  }
  int total = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("wildcard np=%d: %d failed\n", size, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

// MPI_THREAD_MULTIPLE: several threads run tuned collectives at once, each on its own
// communicator (first use of each communicator, and so its state creation, is concurrent).
#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) {
    if (rank == 0) std::fprintf(stderr, "FAIL: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Finalize();
    return 1;
  }
  constexpr int kThreads = 4, kIters = 200, kN = 1000;
  std::vector<MPI_Comm> comms(kThreads);
  for (auto& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      MPI_Comm c = comms[t];
      std::vector<int> all(kN * size), mine(kN);
      for (int it = 0; it < kIters; ++it) {
        const int root = (it + t) % size;
        const int seed = t * 100000 + it;
        if (rank == root) {
          for (int p = 0; p < size; ++p)
            for (int i = 0; i < kN; ++i) all[p * kN + i] = seed + p * 7 + i;
        }
        MPI_Scatter(all.data(), kN, MPI_INT, mine.data(), kN, MPI_INT, root, c);
        for (int i = 0; i < kN; ++i)
          if (mine[i] != seed + rank * 7 + i) {
            ++failures;
            break;
          }
        for (int i = 0; i < kN; ++i) mine[i] += 1;
        MPI_Gather(mine.data(), kN, MPI_INT, all.data(), kN, MPI_INT, root, c);
        if (rank == root) {
          for (int p = 0; p < size; ++p)
            if (all[p * kN + 3] != seed + p * 7 + 3 + 1) {
              ++failures;
              break;
            }
        }
        int v = rank == root ? seed : -1;
        MPI_Bcast(&v, 1, MPI_INT, root, c);
        if (v != seed) ++failures;
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& c : comms) MPI_Comm_free(&c);
  int local = failures.load(), total = 0;
  MPI_Reduce(&local, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("threads np=%d threads=%d: %d failed\n", size, kThreads, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

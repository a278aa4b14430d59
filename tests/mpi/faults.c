/* Collectives under MPI_ERRORS_RETURN after a fault injected into colltune (tests/faults-test.sh):
 * bcast, scatter and gather at every root and three sizes, on MPI_COMM_WORLD and on a duplicate,
 * each checked against what MPI defines. Prints "faults np=N: W wrong, E errors". With "spawn",
 * the parent half of a spawned-and-merged communicator (tests/faults-test.sh spawn). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrong = 0, errors = 0;

static void check_rc(int rc) {
  if (rc != MPI_SUCCESS) ++errors;
}

static unsigned char value(int root, int rank, int i) {
  return (unsigned char)(root * 31 + rank * 7 + i);
}

static void run(MPI_Comm comm) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  const int sizes[] = {8, 4096, 100000};
  for (int s = 0; s < 3; ++s) {
    const int m = sizes[s];
    unsigned char* buf = malloc((size_t)m * n);
    unsigned char* mine = malloc(m);
    for (int root = 0; root < n; ++root) {
      for (int i = 0; i < m; ++i) buf[i] = rank == root ? value(root, 0, i) : 0;
      check_rc(MPI_Bcast(buf, m, MPI_BYTE, root, comm));
      for (int i = 0; i < m; ++i) wrong += buf[i] != value(root, 0, i);
      for (int r = 0; r < n; ++r)
        for (int i = 0; i < m; ++i) buf[(size_t)r * m + i] = value(root, r, i);
      memset(mine, 0, m);
      check_rc(MPI_Scatter(buf, m, MPI_BYTE, mine, m, MPI_BYTE, root, comm));
      for (int i = 0; i < m; ++i) wrong += mine[i] != value(root, rank, i);
      memset(buf, 0, (size_t)m * n);
      for (int i = 0; i < m; ++i) mine[i] = value(root, rank, i);
      check_rc(MPI_Gather(mine, m, MPI_BYTE, buf, m, MPI_BYTE, root, comm));
      if (rank == root)
        for (int r = 0; r < n; ++r)
          for (int i = 0; i < m; ++i) wrong += buf[(size_t)r * m + i] != value(root, r, i);
    }
    free(buf);
    free(mine);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc > 1 && strcmp(argv[1], "version") == 0) { /* the MPI library, for the spawn probe */
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    puts(v);
    MPI_Finalize();
    return 0;
  }
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  const int spawn = argc > 1 && strcmp(argv[1], "spawn") == 0;
  if (parent != MPI_COMM_NULL || spawn) {
    /* Two jobs: parents spawn children (argv[2..]: the command, e.g. env LD_PRELOAD=... PROG),
     * both merge the intercommunicator, parents first; the merged communicator runs the checks. */
    MPI_Comm inter = parent, merged;
    if (parent == MPI_COMM_NULL) {
      int errs[64];
      MPI_Comm_spawn(argv[2], argc > 3 ? argv + 3 : MPI_ARGV_NULL, n, MPI_INFO_NULL, 0,
                     MPI_COMM_WORLD, &inter, errs);
    }
    MPI_Intercomm_merge(inter, parent != MPI_COMM_NULL, &merged);
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    run(merged);
    int total[2], mine[2] = {wrong, errors}, size;
    MPI_Comm_size(merged, &size);
    MPI_Allreduce(mine, total, 2, MPI_INT, MPI_SUM, merged);
    int rank;
    MPI_Comm_rank(merged, &rank);
    if (rank == 0) printf("faults merged size=%d: %d wrong, %d errors\n", size, total[0], total[1]);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return 0;
  }
  run(MPI_COMM_WORLD);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  run(dup);
  MPI_Comm_free(&dup);
  int mine[2] = {wrong, errors}, total[2];
  MPI_Allreduce(mine, total, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("faults np=%d: %d wrong, %d errors\n", n, total[0], total[1]);
  MPI_Finalize();
  return 0;
}

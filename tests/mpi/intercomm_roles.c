/* Bcast, scatter and gather on an intercommunicator, int and large-count (_c) variants, with
 * every root role: MPI_ROOT (the root), MPI_PROC_NULL (the root's group) and the remote root's
 * rank (the other group), each group rooting in turn. Non-significant arguments come in two
 * styles: what most programs pass (the same buffers, counts and types on every rank) and
 * nonsense (null buffers, negative counts, MPI_DATATYPE_NULL), as MPI allows. Every received
 * value is checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1000 };

static int value(int variant, int op, int i) { return 100000 * variant + 10000 * op + i; }

static void bcast(int large, int* buf, int sig, int nonsense, int root, MPI_Comm c) {
  void* b = sig || !nonsense ? buf : NULL;
  const int n = sig || !nonsense ? N : 0;
  if (large)
    MPI_Bcast_c(b, n, MPI_INT, root, c);
  else
    MPI_Bcast(b, n, MPI_INT, root, c);
}

/* Scatter (gather = 0) or gather (gather = 1): `sig_send`/`sig_recv` tell whether this rank's
 * send/receive side is significant; nonsense replaces the other side's arguments. */
static void rooted(int gather, int large, int* s, int sig_send, int* r, int sig_recv, int nonsense,
                   int root, MPI_Comm c) {
  const int ns = sig_send || !nonsense, nr = sig_recv || !nonsense;
  void* sb = ns ? s : NULL;
  void* rb = nr ? r : NULL;
  const int sc = ns ? N : -1, rc = nr ? N : -1;
  MPI_Datatype st = ns ? MPI_INT : MPI_DATATYPE_NULL, rt = nr ? MPI_INT : MPI_DATATYPE_NULL;
  if (gather && large) MPI_Gather_c(sb, sc, st, rb, rc, rt, root, c);
  if (gather && !large) MPI_Gather(sb, sc, st, rb, rc, rt, root, c);
  if (!gather && large) MPI_Scatter_c(sb, sc, st, rb, rc, rt, root, c);
  if (!gather && !large) MPI_Scatter(sb, sc, st, rb, rc, rt, root, c);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int color = rank % 2;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
  int hrank, rsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_remote_size(inter, &rsize);
  int* all = malloc(sizeof(int) * N * rsize);
  int* mine = malloc(sizeof(int) * N);
  for (int variant = 0; variant < 8; ++variant) {
    const int root_group = variant & 1, large = (variant >> 1) & 1, nonsense = variant >> 2;
    const int in_root_group = color == root_group;
    const int is_root = in_root_group && hrank == 0;
    const int root = in_root_group ? (is_root ? MPI_ROOT : MPI_PROC_NULL) : 0;
    const int remote = !in_root_group;
    /* bcast: the root's buffer to every remote process */
    for (int i = 0; i < N; ++i) mine[i] = is_root ? value(variant, 0, i) : -1;
    bcast(large, mine, is_root || remote, nonsense, root, inter);
    if (remote)
      for (int i = 0; i < N; ++i) bad += mine[i] != value(variant, 0, i);
    /* scatter: the root's block r to remote rank r */
    for (int i = 0; i < N * rsize; ++i) all[i] = is_root ? value(variant, 1, i) : -1;
    for (int i = 0; i < N; ++i) mine[i] = -1;
    rooted(0, large, all, is_root, mine, remote, nonsense, root, inter);
    if (remote)
      for (int i = 0; i < N; ++i) bad += mine[i] != value(variant, 1, hrank * N + i);
    /* gather: remote rank r's block to the root's block r */
    for (int i = 0; i < N * rsize; ++i) all[i] = -1;
    for (int i = 0; i < N; ++i) mine[i] = remote ? value(variant, 2, hrank * N + i) : -1;
    rooted(1, large, mine, remote, all, is_root, nonsense, root, inter);
    if (is_root)
      for (int i = 0; i < N * rsize; ++i) bad += all[i] != value(variant, 2, i);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("intercomm roles np=%d: %d failed\n", size, total);
  free(all);
  free(mine);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

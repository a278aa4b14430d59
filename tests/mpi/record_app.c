/* What libcolltune_record.so must write (tests/record-check.py): every call it records, with
 * sizes and peers known here, on three or more processes. Results are checked too: recording
 * must not change them. Window 1 (MPI_Pcontrol) sends with tag 101, window 2 with tag 202. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* About `s` seconds of this thread's CPU time. */
static volatile double sink;
static void spin(double s) {
  const double end = cpu() + s;
  while (cpu() < end) sink += 1.0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Odd ranks in one communicator: its rank 0 is world rank 1. Split first: the split is not
   * recorded, so its waiting (CPU time while it polls) would count as computation. */
  MPI_Comm odd;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &odd);
  int orank;
  MPI_Comm_rank(odd, &orank);
  double buf[1000], rbuf[1000 * 16];
  for (int i = 0; i < 1000; ++i) buf[i] = rank == 0 ? i : -1;
  MPI_Bcast(buf, 1000, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* bcast 8000 0 */
  for (int i = 0; i < 1000; ++i) bad |= buf[i] != i;
  spin(0.05); /* compute of about 5e7 flops at 1e9 per CPU second */
  /* 0.1 s asleep: no CPU time, but wall-clock time (COLLTUNE_RECORD_CLOCK=wall). */
  const struct timespec nap = {0, 100000000};
  nanosleep(&nap, NULL);
  if (rank % 2 == 1 && size >= 4) {
    if (orank == 0) MPI_Send(buf, 100, MPI_DOUBLE, 1, 7, odd); /* world 1 -> world 3 */
    if (orank == 1) MPI_Recv(rbuf, 100, MPI_DOUBLE, 0, 7, odd, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(buf, 10, MPI_DOUBLE, 0, odd); /* bcast@K 80 on the trace's communicator K */
  /* One process: no communication, nothing written (as BLACS's scopes of one on a 1 x q grid). */
  MPI_Bcast(buf, 13, MPI_DOUBLE, 0, MPI_COMM_SELF);
  double one = 1, got = 0;
  MPI_Allreduce(&one, &got, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_SELF);
  bad |= got != 1;
  /* A ring of nonblocking messages, 4000 bytes, tag 3. */
  MPI_Request req[2];
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Irecv(rbuf, 500, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(buf, 500, MPI_DOUBLE, next, 3, MPI_COMM_WORLD, &req[1]);
  MPI_Status st[2];
  MPI_Waitall(2, req, st);
  /* Sendrecv the other way, 800 bytes, tag 4; a wildcard receive resolved by its status. */
  MPI_Sendrecv(buf, 100, MPI_DOUBLE, prev, 4, rbuf, 100, MPI_DOUBLE, next, 4, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  if (rank == 1) MPI_Send(buf, 3, MPI_INT, 0, 5, MPI_COMM_WORLD); /* 12 bytes */
  if (rank == 0)
    MPI_Recv(rbuf, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* Strided data (tags 8, 9): rank 0 sends column 3 of a 100 x 10 row-major matrix (100
   * pieces of 8 bytes over 7928) into rank 1's contiguous 100 doubles, which sends them back
   * into columns 5-14 of a 10 x 20 matrix on rank 0 (a subarray: 10 pieces of 80 bytes over
   * 1520). */
  if (size >= 2 && rank < 2) {
    static double m[100 * 10], back[10 * 20], col[100];
    for (int i = 0; i < 1000; ++i) m[i] = i;
    MPI_Datatype column, block;
    MPI_Type_vector(100, 1, 10, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    const int sizes[2] = {10, 20}, sub[2] = {10, 10}, starts[2] = {0, 5};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &block);
    MPI_Type_commit(&block);
    /* Tag 10: ints 0-1 and 10-12 of 13 (an indexed type with an empty block between): 2
     * pieces over 52 bytes, from rank 1 into rank 0's 5 contiguous ints. */
    const int lens[3] = {2, 0, 3}, at[3] = {0, 5, 10};
    MPI_Datatype picks;
    MPI_Type_indexed(3, lens, at, MPI_INT, &picks);
    MPI_Type_commit(&picks);
    int ints[13], five[5];
    for (int i = 0; i < 13; ++i) ints[i] = i;
    if (rank == 0) {
      MPI_Send(m + 3, 1, column, 1, 8, MPI_COMM_WORLD);
      MPI_Recv(back, 1, block, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < 100; ++i) bad |= back[(i / 10) * 20 + 5 + i % 10] != i * 10 + 3;
      MPI_Recv(five, 5, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      bad |= five[0] != 0 || five[1] != 1 || five[2] != 10 || five[4] != 12;
    } else {
      MPI_Recv(col, 100, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(col, 100, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
      MPI_Send(ints, 1, picks, 0, 10, MPI_COMM_WORLD);
    }
    MPI_Type_free(&column);
    MPI_Type_free(&block);
    MPI_Type_free(&picks);
  }
  double x = rank, sum = 0;
  /* Rank 1 arrives 0.1 s late (asleep): on the wall clock the others' allreduce takes that. */
  if (rank == 1) nanosleep(&nap, NULL);
  MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* allreduce 8 */
  bad |= sum != size * (size - 1) / 2.0;
  MPI_Gather(buf, 20, MPI_DOUBLE, rbuf, 20, MPI_DOUBLE, 2 % size, MPI_COMM_WORLD); /* 160 */
  MPI_Scatter(rbuf, 20, MPI_DOUBLE, buf, 20, MPI_DOUBLE, 2 % size, MPI_COMM_WORLD);
  /* Calls with nothing between them (bcast 56 and 72 around them): the recorder's own clock
   * reads must not be written as computation. This thread's clock cost, the least of 50. */
  double clock_cost = 1;
  for (int i = 0; i < 50; ++i) {
    const double t0 = cpu(), t1 = cpu();
    if (t1 - t0 < clock_cost) clock_cost = t1 - t0;
  }
  MPI_Bcast(buf, 7, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; i < 2000; ++i) MPI_Send(buf, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Bcast(buf, 9, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; i < 1000; ++i) buf[i] = rank == 0 ? i : -1;
  MPI_Bcast(buf, 1000, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("record_app: clock %.0f ns\n", 1e9 * clock_cost);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int w = 1; w <= 2; ++w) {
    MPI_Pcontrol(1);
    const int tag = w == 1 ? 101 : 202;
    if (rank == 0) MPI_Send(buf, 25 * w, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(rbuf, 25 * w, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Pcontrol(0);
  }
  MPI_Comm_free(&odd);
  int all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0) printf("record_app: %s\n", all ? "WRONG RESULTS" : "results correct");
  MPI_Finalize();
  return all;
}

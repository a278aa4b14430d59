/* Test support (never shipped): on MPI rank COLLTUNE_TEST_STALL_RANK (hydra's PMI_RANK), the
 * 5th, 12th and 20th empty PMPI_Send sleep COLLTUNE_TEST_STALL_US microseconds first: a process
 * preempted now and then during calibration's empty roundtrips (their replies). Preloaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long g_stall_us = -1;
static int g_empty;

__attribute__((constructor)) static void init(void) {
  const char* rank = getenv("PMI_RANK");
  const char* want = getenv("COLLTUNE_TEST_STALL_RANK");
  const char* us = getenv("COLLTUNE_TEST_STALL_US");
  if (rank && want && us && strcmp(rank, want) == 0) g_stall_us = strtol(us, NULL, 10);
}

int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  static int (*real)(const void*, int, MPI_Datatype, int, int, MPI_Comm) = NULL;
  if (!real)
    real =
        (int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm))dlsym(RTLD_NEXT, "PMPI_Send");
  if (g_stall_us >= 0 && count == 0) {
    ++g_empty;
    if (g_empty == 5 || g_empty == 12 || g_empty == 20) usleep((useconds_t)g_stall_us);
  }
  return real(buf, count, type, dest, tag, comm);
}

/* The failure tests' common part: this rank, the job's size, the wrong outcomes counted, and
 * expect(): a call's return code as expected (an error where `fails`), printed with its error
 * class, else counted and named. Define FAIL_PROGRAM (the program's name) before including. */
#include <mpi.h>
#include <stdio.h>

static int rank, size, wrong;

static void expect(const char* what, int rc, int fails) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  printf(FAIL_PROGRAM ": %s: rank %d returned %s (class %d)\n", what, rank,
         rc == MPI_SUCCESS ? "success" : "an error", cls);
  if ((rc != MPI_SUCCESS) != fails) {
    printf(FAIL_PROGRAM ": %s: rank %d WRONG: expected %s\n", what, rank,
           fails ? "an error" : "success");
    ++wrong;
  }
}

// Fortran mpi_f08 entry points that bypass the C MPI_* symbols. MPICH 4.0.2's mpi_f08
// MPI_Init, MPI_Init_thread and MPI_Finalize call PMPI_Init/PMPI_Init_thread/PMPI_Finalize
// directly, so without these wrappers colltune would never start for an mpi_f08 program (its
// collectives do reach the C MPI_Bcast/MPI_Scatter/MPI_Gather and need nothing more; MPICH
// maps the Fortran MPI_IN_PLACE to the C one before that call). mpif.h and `use mpi` call the
// C MPI_Init and are covered by wrappers.cpp.
// Each forwards to the real Fortran routine (found with RTLD_NEXT: libmpichfort does its own
// Fortran set-up there) and then starts or stops the runtime.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>

#include "../src/runtime.hpp"

namespace {

template <typename Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

void start_runtime() {
  try {
    colltune::runtime_init();
  } catch (...) {
    std::fputs("colltune: error: initialisation failed; running native collectives\n", stderr);
  }
}

}  // namespace

extern "C" {

// ierror is OPTIONAL in mpi_f08: it may be null.
void mpi_init_f08_(int* ierror) {
  static const auto real = next<void (*)(int*)>("mpi_init_f08_");
  int rc = MPI_ERR_INTERN;
  if (real) real(&rc);
  if (rc == MPI_SUCCESS) start_runtime();
  if (ierror) *ierror = rc;
}

void mpi_init_thread_f08_(int* required, int* provided, int* ierror) {
  static const auto real = next<void (*)(int*, int*, int*)>("mpi_init_thread_f08_");
  int rc = MPI_ERR_INTERN;
  if (real) real(required, provided, &rc);
  if (rc == MPI_SUCCESS) start_runtime();
  if (ierror) *ierror = rc;
}

void mpi_finalize_f08_(int* ierror) {
  static const auto real = next<void (*)(int*)>("mpi_finalize_f08_");
  try {
    colltune::runtime_finalize();
  } catch (...) {
  }
  int rc = MPI_ERR_INTERN;
  if (real) real(&rc);
  if (ierror) *ierror = rc;
}

}  // extern "C"

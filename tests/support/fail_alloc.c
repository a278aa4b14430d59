/* Test support (never shipped): makes malloc fail for requests of COLLTUNE_TEST_FAIL_ALLOC_BYTES
 * or more on the MPI rank COLLTUNE_TEST_FAIL_ALLOC_RANK (hydra's PMI_RANK), from
 * COLLTUNE_TEST_FAIL_ALLOC_AFTER_S seconds after the process started (default 0). Preloaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t g_limit = (size_t)-1;
static double g_from = 0;  // CLOCK_MONOTONIC seconds

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((constructor)) static void init(void) {
  const char* rank = getenv("PMI_RANK");
  const char* want = getenv("COLLTUNE_TEST_FAIL_ALLOC_RANK");
  const char* bytes = getenv("COLLTUNE_TEST_FAIL_ALLOC_BYTES");
  const char* after = getenv("COLLTUNE_TEST_FAIL_ALLOC_AFTER_S");
  if (rank && want && bytes && strcmp(rank, want) == 0) g_limit = strtoull(bytes, NULL, 10);
  g_from = now() + (after ? atof(after) : 0.0);
}

void* malloc(size_t n) {
  static void* (*real)(size_t) = NULL;
  if (!real) real = (void* (*)(size_t))dlsym(RTLD_NEXT, "malloc");
  if (n >= g_limit && now() >= g_from) return NULL;
  return real(n);
}

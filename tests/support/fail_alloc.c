/* Test support (never shipped): makes malloc fail for requests of COLLTUNE_TEST_FAIL_ALLOC_BYTES
 * or more on the MPI rank COLLTUNE_TEST_FAIL_ALLOC_RANK (hydra's PMI_RANK). Preloaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static size_t g_limit = (size_t)-1;

__attribute__((constructor)) static void init(void) {
  const char* rank = getenv("PMI_RANK");
  const char* want = getenv("COLLTUNE_TEST_FAIL_ALLOC_RANK");
  const char* bytes = getenv("COLLTUNE_TEST_FAIL_ALLOC_BYTES");
  if (rank && want && bytes && strcmp(rank, want) == 0) g_limit = strtoull(bytes, NULL, 10);
}

void* malloc(size_t n) {
  static void* (*real)(size_t) = NULL;
  if (!real) real = (void* (*)(size_t))dlsym(RTLD_NEXT, "malloc");
  if (n >= g_limit) return NULL;
  return real(n);
}

/* Test support only (never linked into libcolltune): an LD_PRELOAD shim under MPICH ch4:ucx
 * that makes oversubscribed runs (more ranks than cores) fast. MPICH busy-polls
 * ucp_worker_progress with no yield setting, so every protocol step of a rank whose peer is
 * descheduled waits for a scheduler tick. After COLLTUNE_SHIM_SPINS (default 20) consecutive
 * empty polls this shim calls sched_yield(), handing the core to the peer at once.
 * Correctness is unaffected: only the polling loop's pacing changes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

typedef struct ucp_worker* ucp_worker_h;
typedef unsigned (*progress_fn)(ucp_worker_h);

static progress_fn real_progress;
static __thread unsigned empty_polls;
static unsigned spins_before_yield = 20;

__attribute__((constructor)) static void shim_init(void) {
  real_progress = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  const char* s = getenv("COLLTUNE_SHIM_SPINS");
  if (s && *s) spins_before_yield = (unsigned)strtoul(s, NULL, 10);
}

unsigned ucp_worker_progress(ucp_worker_h worker) {
  if (!real_progress) real_progress = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  const unsigned n = real_progress(worker);
  if (n != 0) {
    empty_polls = 0;
  } else if (++empty_polls >= spins_before_yield) {
    empty_polls = 0;
    sched_yield();
  }
  return n;
}

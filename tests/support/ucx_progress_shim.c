/* Test support only (never linked into libcolltune): an LD_PRELOAD shim under MPICH ch4:ucx.
 *
 * 1. Oversubscription (more ranks than cores). MPICH busy-polls ucp_worker_progress with no
 *    yield setting, so every protocol step of a rank whose peer is descheduled waits for a
 *    scheduler tick. After COLLTUNE_SHIM_SPINS (default 20) consecutive empty polls the shim
 *    either sched_yield()s (COLLTUNE_SHIM_MODE=yield, the default) or, in wait mode
 *    (COLLTUNE_SHIM_MODE=wait), arms the worker and poll()s its event fd for at most 2 ms
 *    (UCP_FEATURE_WAKEUP is added by wrapping ucp_init_version).
 * 2. Finalize over UCX tcp (COLLTUNE_SHIM_FLUSH_MS=N, off by default). Stock MPICH 4.0.2 hangs
 *    in MPI_Finalize because the flush-mode endpoint close waits for peers already in the PMI
 *    barrier; with N set, ucp_disconnect_nb does one flush of at most N ms and returns without
 *    closing (the process is about to exit).
 * Correctness is unaffected: only the pacing of polling loops and the end of endpoints change. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>

typedef unsigned (*progress_fn)(ucp_worker_h);
typedef ucs_status_t (*init_fn)(unsigned, unsigned, const ucp_params_t*, const ucp_config_t*,
                                ucp_context_h*);

static progress_fn real_progress;
static __thread unsigned empty_polls;
static unsigned spins_before_idle = 20;
static int wait_mode;
static long flush_ms;
static ucp_worker_h last_worker;

__attribute__((constructor)) static void shim_init(void) {
  real_progress = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  const char* s = getenv("COLLTUNE_SHIM_SPINS");
  if (s && *s) spins_before_idle = (unsigned)strtoul(s, NULL, 10);
  const char* m = getenv("COLLTUNE_SHIM_MODE");
  wait_mode = m && strcmp(m, "wait") == 0;
  const char* f = getenv("COLLTUNE_SHIM_FLUSH_MS");
  if (f && *f) flush_ms = strtol(f, NULL, 10);
}

ucs_status_t ucp_init_version(unsigned major, unsigned minor, const ucp_params_t* params,
                              const ucp_config_t* config, ucp_context_h* context) {
  static init_fn real;
  if (!real) real = (init_fn)dlsym(RTLD_NEXT, "ucp_init_version");
  if (!wait_mode || !params || !(params->field_mask & UCP_PARAM_FIELD_FEATURES)) {
    return real(major, minor, params, config, context);
  }
  ucp_params_t copy = *params;
  copy.features |= UCP_FEATURE_WAKEUP;
  return real(major, minor, &copy, config, context);
}

static void idle(ucp_worker_h worker) {
  if (!wait_mode) {
    sched_yield();
    return;
  }
  int fd = -1;
  if (ucp_worker_get_efd(worker, &fd) != UCS_OK) {
    sched_yield();
    return;
  }
  if (ucp_worker_arm(worker) == UCS_OK) { /* UCS_ERR_BUSY: events pending, poll again */
    struct pollfd p = {.fd = fd, .events = POLLIN};
    poll(&p, 1, 2);
  }
}

unsigned ucp_worker_progress(ucp_worker_h worker) {
  if (!real_progress) real_progress = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  last_worker = worker;
  const unsigned n = real_progress(worker);
  if (n != 0) {
    empty_polls = 0;
  } else if (++empty_polls >= spins_before_idle) {
    empty_polls = 0;
    idle(worker);
  }
  return n;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep) {
  static ucs_status_ptr_t (*real)(ucp_ep_h);
  if (!real) real = (ucs_status_ptr_t(*)(ucp_ep_h))dlsym(RTLD_NEXT, "ucp_disconnect_nb");
  if (flush_ms <= 0 || !last_worker) return real(ep);
  ucp_request_param_t param;
  memset(&param, 0, sizeof(param));
  ucs_status_ptr_t req = ucp_ep_flush_nbx(ep, &param);
  if (UCS_PTR_IS_PTR(req)) {
    const double deadline = now_ms() + flush_ms;
    while (ucp_request_check_status(req) == UCS_INPROGRESS && now_ms() < deadline) {
      real_progress(last_worker);
    }
    ucp_request_free(req);
  }
  return NULL; /* UCS_OK: "closed" */
}

// The per-call path: communicator state lookup, bytes per process, decision, run. Everything a
// call does after the wrapper's pass-through test is in this file.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "../algorithms/registry.hpp"
#include "../algorithms/tree_notice.hpp"
#include "../log.hpp"
#include "../model/platform_model.hpp"
#include "../runtime.hpp"
#include "../test_hooks.hpp"
#include "state.hpp"

namespace colltune {

std::array<std::atomic<bool>, kNumOps> g_passthrough = {true, true, true};

namespace {

// Per-thread one-entry cache of the last communicator's state, valid while no state was
// deleted since it was filled (a freed handle may be reused for a new communicator).
struct LastComm {
  MPI_Comm comm = MPI_COMM_NULL;
  CommState* state = nullptr;
  std::uint64_t generation = ~0ull;
};
#if defined(SMPI_SHARED_MALLOC)
// SMPI dlopens a private copy of the program per rank: static TLS would run out at scale.
thread_local LastComm t_last;
#else
thread_local LastComm t_last __attribute__((tls_model("initial-exec")));
#endif

int state_of(MPI_Comm comm, CommState** out) {
  const std::uint64_t gen = g_generation.load(std::memory_order_acquire);
  if (t_last.comm == comm && t_last.generation == gen) {
    *out = t_last.state;
    return MPI_SUCCESS;
  }
  void* value = nullptr;
  int flag = 0;
  int rc = PMPI_Comm_get_attr(comm, g_rt.keyval, &value, &flag);
  if (rc != MPI_SUCCESS) return rc;
  if (flag) {
    *out = static_cast<CommState*>(value);
  } else if ((rc = create_state(comm, out)) != MPI_SUCCESS) {
    return rc;
  }
  t_last = {comm, *out, gen};
  return MPI_SUCCESS;
}

// MPICH encodes a builtin datatype's size in its handle (kind bits 0x4c000000, size in bits
// 8-15). Used on the per-call path only after runtime_init validated it against PMPI_Type_size
// for every builtin type below; otherwise PMPI_Type_size is called.
[[maybe_unused]] bool g_fast_type_size = false;

inline bool builtin_size(MPI_Datatype t, int* size) {
#if defined(MPICH)
  const auto h = static_cast<std::uint32_t>(t);
  if (g_fast_type_size && (h & 0xfc000000u) == 0x4c000000u) {
    *size = static_cast<int>((h >> 8) & 0xffu);
    return true;
  }
#else
  (void)t;
  (void)size;
#endif
  return false;
}

// Bytes per process from the arguments significant on this rank (docs/faults.md): bcast
// count * size(type); scatter the root's send side, the others' receive side; gather mirrored.
// A type's size is taken whole (PMPI_Type_size_c: above INT_MAX too), so that ranks with equal
// signatures but other types (1 x 4 GiB, 2 x 2 GiB) get the same count.
int block_bytes(Op op, const CollArgs& a, int rank, std::uint64_t* out) {
  int count = a.recvcount;
  MPI_Datatype type = a.recvtype;
  if ((op == Op::kScatter && rank == a.root) || (op == Op::kGather && rank != a.root)) {
    count = a.sendcount;
    type = a.sendtype;
  }
  if (count < 0) return MPI_ERR_COUNT;
  int size = 0;
  if (builtin_size(type, &size)) {
    *out = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
    return MPI_SUCCESS;
  }
#if defined(SMPI_SHARED_MALLOC)  // no PMPI_Type_size_c
  int rc = PMPI_Type_size(type, &size);
  if (rc != MPI_SUCCESS) return rc;
  if (size < 0) return MPI_ERR_TYPE;  // MPI_UNDEFINED: over INT_MAX
  *out = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
#else
  MPI_Count big = 0;
  const int rc = PMPI_Type_size_c(type, &big);
  if (rc != MPI_SUCCESS) return rc;
  if (big < 0) return MPI_ERR_TYPE;
  const auto bytes = static_cast<std::uint64_t>(big);
  if (count > 0 && bytes > UINT64_MAX / static_cast<std::uint64_t>(count)) return MPI_ERR_COUNT;
  *out = static_cast<std::uint64_t>(count) * bytes;
#endif
  return MPI_SUCCESS;
}

int run_timed(const Algorithm& alg, const CollArgs& a) {
  if (!g_rt.stats) return alg.run(a);
  const double t0 = PMPI_Wtime();
  const int rc = alg.run(a);
  record(alg, a.block_bytes, PMPI_Wtime() - t0);
  return rc;
}

int run_native(Op op, CollArgs& a) { return run_timed(native_algorithm(op), a); }

// A failure of colltune's own inside a collective: named once on this rank, then the user
// communicator's error handler. The tree executors leave no peer waiting whatever the handler
// (src/algorithms/tree_notice.hpp); with MPI_ERRORS_ARE_FATAL the job ends.
int fail(Op op, MPI_Comm comm, const char* algorithm, int code, const char* what) noexcept {
  char err[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (PMPI_Error_string(code, err, &len) != MPI_SUCCESS) err[0] = '\0';
  const std::string_view opn = op_name(op);
  log_line_noexcept(
      "error: rank %d: %.*s %s failed: %s (%s); calling the communicator's error "
      "handler",
      g_rt.world_rank, static_cast<int>(opn.size()), opn.data(), algorithm, what, err);
  if (comm != MPI_COMM_NULL) (void)PMPI_Comm_call_errhandler(comm, code);  // the code is ours
  return code;
}

// A forced algorithm cannot serve this call: COLLTUNE_FALLBACK decides (same on every rank).
int forced_fallback(Op op, const Algorithm& forced, bool reporter, const std::string& why,
                    MPI_Comm comm, int (*native)(void*), void* ctx) {
  const Fallback policy = g_rt.settings.fallback;
  if (reporter && policy != Fallback::kSilent) try {  // what is said changes no decision
      const std::string msg = std::string(algorithm_variable(op)) + "=" + std::string(forced.name) +
                              " cannot run here: " + why;
      log_once(msg, policy == Fallback::kWarn
                        ? "warning: " + msg + "; using native (COLLTUNE_FALLBACK=warn)"
                        : "error: " + msg + " (COLLTUNE_FALLBACK=error)");
    } catch (...) {
    }
  if (policy == Fallback::kError) {
    (void)PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);  // returns to us only if non-fatal
    return MPI_ERR_OTHER;
  }
  return native(ctx);
}

// A native call and what statistics record of it.
struct NativeCall {
  Op op;
  int (*native)(void*);
  void* ctx;
};
int run_native_call(void* p) {
  const auto* c = static_cast<NativeCall*>(p);
  if (!g_rt.stats) return c->native(c->ctx);
  const double t0 = PMPI_Wtime();
  const int rc = c->native(c->ctx);
  record(native_algorithm(c->op), 0, PMPI_Wtime() - t0);
  return rc;
}

// Runs a call MPICH serves whole (intercommunicators), after the fallback policy.
int passthrough_impl(Op op, MPI_Comm comm, int (*native)(void*), void* ctx) {
  NativeCall call{op, native, ctx};
  const Algorithm* forced = g_rt.tuning ? g_rt.settings.forced[static_cast<int>(op)] : nullptr;
  CommState* st = nullptr;
  if (forced && forced->run != native_algorithm(op).run && state_of(comm, &st) == MPI_SUCCESS) {
    return forced_fallback(op, *forced, st->reporter, "intercommunicators are passed through", comm,
                           run_native_call, &call);
  }
  return run_native_call(&call);
}

// The native algorithm of an op on `args` (untimed; callers record).
struct NativeArgs {
  Op op;
  CollArgs* args;
};
int run_native_args(void* p) {
  auto* c = static_cast<NativeArgs*>(p);
  return native_algorithm(c->op).run(*c->args);
}

// A forced algorithm that cannot serve `a`: COLLTUNE_FALLBACK, then native on `a`.
int forced_on_native(Op op, const Algorithm& forced, bool reporter, const std::string& why,
                     CollArgs& a) {
  NativeArgs args{op, &a};
  NativeCall call{op, run_native_args, &args};
  return forced_fallback(op, forced, reporter, why, a.comm, run_native_call, &call);
}

// Verification (COLLTUNE_VERIFY, Verification): call k runs native where the Thue-Morse
// sequence has a 1 (0, 1, 1, 0, 1, 0, 0, 1, ...): every even prefix holds as many calls of each,
// and sizes that repeat with any period of 2^j calls fall on both alike.
bool native_turn(int k) { return std::popcount(static_cast<unsigned>(k)) % 2 == 1; }

// Test builds: world rank 1 pauses in verification calls of one kind (hooks::kSlowVerified).
void slow_verified(bool native) noexcept {
  const char* v = hooks::value(hooks::Hook::kSlowVerified);
  if (!v || g_rt.world_rank != 1) return;
  const char* kind = native ? "native:" : "pick:";
  if (std::strncmp(v, kind, std::strlen(kind)) != 0) return;
  const double until = PMPI_Wtime() + std::atof(v + std::strlen(kind));
  while (PMPI_Wtime() < until) {
  }
}

// Pairs of calls to verify over: at least 2.5 ms of predicted calls (so that the agreement's
// allreduce costs under 2% of them), 4 to 64 pairs.
int verification_pairs(double predicted) {
  if (!(predicted > 0)) return 16;
  return static_cast<int>(std::clamp(std::ceil(2.5e-3 / (2 * predicted)), 4.0, 64.0));
}

// Counts one verified call (dt seconds on this rank; rc its outcome, returned); after the last,
// the slowest rank's sums decide on every rank alike.
int verified(Op op, const CollArgs& a, CommState& st, const Segment& seg, Verification& v,
             double dt, int rc) {
  if (v.pairs == 0) v.pairs = verification_pairs(seg.predicted);
  if (v.calls >= 2) (native_turn(v.calls) ? v.native : v.pick) += dt;
  if (++v.calls < 2 * v.pairs) return rc;
  double mine[2] = {v.pick, v.native}, slowest[2] = {0, 0};
  const double t0 = PMPI_Wtime();
  const int arc = PMPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, st.shadow);
  const double agree = PMPI_Wtime() - t0;
  if (arc != MPI_SUCCESS) {
    v.state = Verification::kRejected;  // MPI errors on the private communicator are fatal
    return fail(op, a.comm, seg.algorithm->name.data(), arc, "MPI error (verification)");
  }
  const bool kept = slowest[0] * (1 + seg.margin) < slowest[1];
  v.state = kept ? Verification::kKept : Verification::kRejected;
  if (st.reporter) {
    record_verification(op, kept);
    if (g_rt.settings.verbose >= 1) try {
        const int timed = v.calls / 2 - 1;  // of each, after the first pair
        char line[320];
        std::snprintf(line, sizeof line,
                      " root %d: %s against native over %d calls: slowest rank %.1f us vs "
                      "%.1f us a call (margin %.0f%%, agreement %.1f us): %s",
                      a.root, std::string(seg.algorithm->name).c_str(), v.calls,
                      1e6 * slowest[0] / timed, 1e6 * slowest[1] / timed, 100 * seg.margin,
                      1e6 * agree, kept ? "kept" : "native from now on");
        log_line(std::string("verified ") + std::string(op_name(op)) + " on " +
                 comm_label(a.comm, st) + ", bytes " + range_to_string(seg.bytes) + "," + line);
      } catch (...) {
      }
  }
  return rc;
}

int executor_failed(Op op, const CollArgs& a, const Algorithm& alg, int rc);

int dispatch_impl(Op op, CollArgs& a) {
  if (a.comm == MPI_COMM_NULL) return run_native(op, a);  // PMPI reports the error
  CommState* st = nullptr;
  if (state_of(a.comm, &st) != MPI_SUCCESS) return run_native(op, a);
  if (st->inter) {
    NativeArgs call{op, &a};
    return passthrough_impl(op, a.comm, run_native_args, &call);
  }
  if (a.root < 0 || a.root >= st->size) return run_native(op, a);  // PMPI reports the error
  if (st->native_only) return run_native(op, a);                   // agreed at the state's creation
  a.rank = st->rank;
  a.size = st->size;
  if (block_bytes(op, a, st->rank, &a.block_bytes) != MPI_SUCCESS) return run_native(op, a);
  // Over INT_MAX bytes per process MPICH serves the call (its large-count paths): the same test
  // on every rank (equal signatures give equal byte counts), whichever variant each one called.
  if (a.block_bytes > static_cast<std::uint64_t>(INT_MAX)) {
    const Algorithm* forced = g_rt.tuning ? g_rt.settings.forced[static_cast<int>(op)] : nullptr;
    if (!forced || forced->run == native_algorithm(op).run) return run_native(op, a);
    return forced_on_native(op, *forced, st->reporter,
                            "over 2 GiB per process (MPICH's large-count path serves it)", a);
  }

  // Until the executor runs, every step either cannot fail or is agreed on (a cache miss builds
  // and agrees over the private communicator): a rank never leaves with its peers in a tree.
  const int o = static_cast<int>(op);
  if (st->by_model[o]) {
    const int group = model::decision_group(a.block_bytes);
    if (st->last_root[o] != a.root || st->last_group[o] != group || !st->last[o]) {
      st->last[o].reset();
      st->last_root[o] = -1;
      const int rc = model_decisions(*st, op, a.root, group, &st->last[o]);
      if (rc != MPI_SUCCESS) return fail(op, a.comm, "(decisions)", rc, "MPI error");
      if (!st->last[o]) return run_native(op, a);  // some rank could not build them: agreed
      st->last_root[o] = a.root;
      st->last_group[o] = group;
    }
  }
  const Decisions& d = st->by_model[o] ? *st->last[o] : st->decisions[o];
  const std::size_t i = d.find(a.block_bytes, a.root);
  const Segment& seg = d.segment(i);
  const Algorithm* alg = seg.algorithm;
  const int verbose = g_rt.settings.verbose;
  if (verbose >= 1 && st->reporter && d.first_use(i)) try {
      log_line(std::string(op_name(op)) + " on " + comm_label(a.comm, *st) + ", bytes " +
               range_to_string(seg.bytes) +
               (seg.root >= 0 ? ", root " + std::to_string(seg.root) : "") + ": " +
               std::string(alg->name) + " (" + seg.reason + ")");
    } catch (...) {  // what is said changes no decision
    }
  if (alg->supports && !alg->supports(a)) {
    static constexpr char kWhy[] =
        "the bytes of all processes do not fit one packed message (2 GiB)";
    if (alg == g_rt.settings.forced[static_cast<int>(op)]) {
      return forced_on_native(op, *alg, st->reporter, kWhy, a);
    }
    if (verbose >= 1 && st->reporter) try {
        log_once(std::string(op_name(op)) + alg->name.data() + "unsupported",
                 std::string(op_name(op)) + " " + std::string(alg->name) + ": " +
                     std::to_string(a.size) + " x " + std::to_string(a.block_bytes) +
                     " bytes: " + kWhy + "; using native");
      } catch (...) {
      }
    alg = &native_algorithm(op);
  }
  if (verbose >= 3 && st->reporter) try {
      log_line("call " + std::string(op_name(op)) + " on " + comm_label(a.comm, *st) + " root " +
               std::to_string(a.root) + " bytes " + std::to_string(a.block_bytes) + ": " +
               std::string(alg->name));
    } catch (...) {
    }
  // A model's pick under verification: rejected runs native; pending alternates.
  Verification* v = nullptr;
  if (seg.verify && alg == seg.algorithm && st->shadow != MPI_COMM_NULL) {
    Verification& vv = d.verification(i);
    if (vv.state == Verification::kRejected) alg = &native_algorithm(op);
    if (vv.state == Verification::kPending) v = &vv;
  }
  if (v && native_turn(v->calls)) {
    const double t0 = PMPI_Wtime();
    slow_verified(true);
    const int rc = run_native(op, a);
    return verified(op, a, *st, seg, *v, PMPI_Wtime() - t0, rc);
  }
  if (alg->run == native_algorithm(op).run) return run_timed(*alg, a);
  if (st->shadow == MPI_COMM_NULL) return run_native(op, a);  // no private communicator: agreed
  if (alg->build) {
    a.tree = seg.tree.get();
    if (!a.tree) {
      const int rc = built_tree(*st, *alg, a.root, a.block_bytes, &a.tree);
      if (rc != MPI_SUCCESS) return fail(op, a.comm, "(tree)", rc, "MPI error");
      if (!a.tree) return run_native(op, a);  // some rank could not build it: agreed
    }
  }
  a.shadow = st->shadow;
  int rc = MPI_SUCCESS;
  const double t0 = v ? PMPI_Wtime() : 0;
  if (v) slow_verified(false);
  try {
    rc = run_timed(*alg, a);
  } catch (const std::bad_alloc&) {
    rc = fail(op, a.comm, alg->name.data(), MPI_ERR_NO_MEM, "out of memory");
    return v ? verified(op, a, *st, seg, *v, 0, rc) : rc;
  }
  if (v) {
    const double dt = PMPI_Wtime() - t0;
    if (rc != MPI_SUCCESS) rc = executor_failed(op, a, *alg, rc);
    return verified(op, a, *st, seg, *v, dt, rc);
  }
  if (rc == MPI_SUCCESS) return rc;
  return executor_failed(op, a, *alg, rc);
}

// An executor's error: named, then the communicator's error handler.
int executor_failed(Op op, const CollArgs& a, const Algorithm& alg, int rc) {
  char what[96] = "MPI error";
  if (a.notice_from >= 0) {
    std::snprintf(what, sizeof what,
                  "no data from communicator rank %d (it, or a rank before it in the tree, failed)",
                  a.notice_from);
  } else if (has_class(rc, MPI_ERR_NO_MEM)) {
    std::snprintf(what, sizeof what, "out of memory");
  }
  return fail(op, a.comm, alg.name.data(), rc, what);
}

}  // namespace

void validate_fast_type_size() {
#if defined(MPICH)
  const MPI_Datatype builtins[] = {MPI_CHAR,
                                   MPI_SIGNED_CHAR,
                                   MPI_UNSIGNED_CHAR,
                                   MPI_BYTE,
                                   MPI_WCHAR,
                                   MPI_SHORT,
                                   MPI_UNSIGNED_SHORT,
                                   MPI_INT,
                                   MPI_UNSIGNED,
                                   MPI_LONG,
                                   MPI_UNSIGNED_LONG,
                                   MPI_LONG_LONG,
                                   MPI_UNSIGNED_LONG_LONG,
                                   MPI_FLOAT,
                                   MPI_DOUBLE,
                                   MPI_LONG_DOUBLE,
                                   MPI_INT8_T,
                                   MPI_INT16_T,
                                   MPI_INT32_T,
                                   MPI_INT64_T,
                                   MPI_UINT8_T,
                                   MPI_UINT16_T,
                                   MPI_UINT32_T,
                                   MPI_UINT64_T,
                                   MPI_C_BOOL,
                                   MPI_C_FLOAT_COMPLEX,
                                   MPI_C_DOUBLE_COMPLEX,
                                   MPI_AINT,
                                   MPI_OFFSET,
                                   MPI_COUNT,
                                   MPI_PACKED,
                                   MPI_INTEGER,
                                   MPI_REAL,
                                   MPI_DOUBLE_PRECISION,
                                   MPI_COMPLEX,
                                   MPI_LOGICAL,
                                   MPI_CHARACTER,
                                   MPI_DOUBLE_INT,
                                   MPI_FLOAT_INT,
                                   MPI_2INT};
  bool ok = true;
  for (MPI_Datatype t : builtins) {
    int real = -1;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &real) != MPI_SUCCESS) continue;
    const auto h = static_cast<std::uint32_t>(t);
    if ((h & 0xfc000000u) == 0x4c000000u && static_cast<int>((h >> 8) & 0xffu) != real) ok = false;
  }
  g_fast_type_size = ok;
#endif
}

int dispatch(Op op, CollArgs& a) noexcept {
  try {
    return dispatch_impl(op, a);
  } catch (const std::bad_alloc&) {
    return fail(op, a.comm, "(colltune)", MPI_ERR_NO_MEM, "out of memory");
  } catch (const std::exception& e) {
    return fail(op, a.comm, "(colltune)", MPI_ERR_INTERN, e.what());
  } catch (...) {
    return fail(op, a.comm, "(colltune)", MPI_ERR_INTERN, "unknown exception");
  }
}

int dispatch_passthrough(Op op, MPI_Comm comm, int (*native)(void*), void* ctx) noexcept {
  try {
    return passthrough_impl(op, comm, native, ctx);
  } catch (const std::bad_alloc&) {
    return fail(op, comm, "(colltune)", MPI_ERR_NO_MEM, "out of memory");
  } catch (...) {
    return fail(op, comm, "(colltune)", MPI_ERR_INTERN, "unknown exception");
  }
}

}  // namespace colltune

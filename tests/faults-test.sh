#!/usr/bin/env bash
# In-process faults (docs/faults.md): whatever one rank meets inside colltune, the job runs on
# native collectives with MPI's results, and no rank waits. Faults are injected on one rank by
# the test-hook build (COLLTUNE_TEST_FAIL_AT, src/test_hooks.hpp).
#   faults-test.sh MODE BUILD_DIR
# MODE: init | comm | spawn | hostile | product. Environment as for run-mpi.sh.
set -u
mode=$1 build=$2
hooks=$build/tests/libcolltune_testhooks.so
product=$build/libcolltune.so
app=$build/tests/mpi_faults
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tuned='algorithm=(linear|binomial|ecef|chain|model_linear|split) '

# run LIB NP OUT [VAR=VAL...]: the fault program at np NP under LIB (60 s at most).
run() {
  local lib=$1 np=$2 out=$3
  shift 3
  local pre=$lib
  [ "$np" -gt 2 ] && pre=$COLLTUNE_TEST_SHIM:$lib
  timeout 60 "${MPIEXEC:-mpiexec}" -n "$np" env LD_PRELOAD="$pre" COLLTUNE_STATS=1 "$@" "$app" \
    >"$out" 2>&1
  echo $? >"$out.rc"
}
# ok OUT WHAT NATIVE(1|0) [LINE]: it completed with MPI's results; native only when NATIVE is 1;
# LINE, when given, said exactly once.
ok() {
  local out=$1 what=$2 native=$3 line=${4:-}
  local rc
  rc=$(cat "$out.rc")
  echo "--- $what"
  cat "$out"
  [ "$rc" = 124 ] && fail "$what: timed out (a rank was left waiting)"
  [ "$rc" = 0 ] || fail "$what: exit status $rc"
  grep -Eq "faults np=[0-9]+: 0 wrong, 0 errors" "$out" || fail "$what: wrong results or errors"
  if [ "$native" = 1 ]; then
    grep -Eq "$tuned" "$out" && fail "$what: tuned algorithms ran after the fault"
    grep -q "algorithm=native calls=" "$out" || fail "$what: no statistics"
  fi
  if [ -n "$line" ]; then
    [ "$(grep -Ec -- "$line" "$out")" = 1 ] || fail "$what: not one line matching '$line'"
  fi
}

case "$mode" in
init)
  # A one-rank failure after the settings agreement, at each step of MPI_Init's set-up (np 4).
  export COLLTUNE_CALIBRATE_BUDGET=3
  run "$hooks" 4 "$work/ids" COLLTUNE_CALIBRATE=first-launch COLLTUNE_CACHE_DIR="$work/c1" \
    COLLTUNE_TEST_FAIL_AT=init.identities:1
  ok "$work/ids" "identities fail on rank 1" 1 "set-up failed on some rank"
  ls "$work/c1" 2>/dev/null | grep -q '^model-' && fail "a table was cached after a failed set-up"
  run "$hooks" 4 "$work/cal" COLLTUNE_CALIBRATE=always COLLTUNE_CACHE_DIR="$work/c2" \
    COLLTUNE_TEST_FAIL_AT=init.calibrated:1
  ok "$work/cal" "calibration's result fails on rank 1" 1 "calibration failed .*it failed on another rank"
  # One rank fails alone in the middle of the calibration's measurements (an exception: memory):
  # it tells its peers through the guard, and every rank runs native (docs/faults.md).
  for r in 1 0; do
    run "$hooks" 4 "$work/mid$r" COLLTUNE_CALIBRATE=always COLLTUNE_CACHE_DIR="$work/c5$r" \
      COLLTUNE_TEST_FAIL_AT=calibrate.measure:$r
    want="a peer failed during calibration"
    [ $r = 0 ] && want="this rank failed during calibration"
    ok "$work/mid$r" "calibration's measurements fail on rank $r" 1 "calibration failed .*$want"
  done
  # A table to load: calibrated once, cached.
  run "$hooks" 4 "$work/made" COLLTUNE_CALIBRATE=first-launch COLLTUNE_CACHE_DIR="$work/c3"
  ok "$work/made" "first launch" 0
  ls "$work/c3" | grep -q '^model-.*\.yaml$' || fail "first launch cached no table"
  run "$hooks" 4 "$work/tab" COLLTUNE_CALIBRATE=first-launch COLLTUNE_CACHE_DIR="$work/c3" \
    COLLTUNE_TEST_FAIL_AT=init.table:1
  ok "$work/tab" "the cached table fails to load on rank 1" 1 "another rank could not load the cached table"
  run "$hooks" 4 "$work/set" COLLTUNE_CALIBRATE=first-launch COLLTUNE_CACHE_DIR="$work/c3" \
    COLLTUNE_TEST_FAIL_AT=init.setup:2
  ok "$work/set" "identities' set-up fails on rank 2" 1 "set-up failed on some rank"
  # Before an executor: the model's decisions for a root cannot be built on rank 1.
  run "$hooks" 4 "$work/dec" COLLTUNE_CALIBRATE=first-launch COLLTUNE_CACHE_DIR="$work/c3" \
    COLLTUNE_TEST_FAIL_AT=call.decide:1
  ok "$work/dec" "decisions fail on rank 1" 1
  echo "PASS: one-rank failures in MPI_Init's set-up and before an executor: native, none waiting"
  ;;
comm)
  # A communicator's state, or a built tree, cannot be made on one rank, under MPI_ERRORS_RETURN.
  force=(COLLTUNE_BCAST_ALGORITHM=chain COLLTUNE_SCATTER_ALGORITHM=model_linear
         COLLTUNE_GATHER_ALGORITHM=split)
  run "$hooks" 4 "$work/plain" "${force[@]}"
  ok "$work/plain" "no fault (control)" 0
  grep -Eq "$tuned" "$work/plain" || fail "the control ran no tuned algorithm"
  run "$hooks" 4 "$work/create" "${force[@]}" COLLTUNE_TEST_FAIL_AT=comm.create:2
  ok "$work/create" "a communicator's state fails on rank 2" 1
  run "$hooks" 4 "$work/decide" "${force[@]}" COLLTUNE_TEST_FAIL_AT=comm.decide:3
  ok "$work/decide" "a communicator's decisions fail on rank 3" 1 "another rank could not set it up"
  run "$hooks" 4 "$work/tree" "${force[@]}" COLLTUNE_TEST_FAIL_AT=call.tree:1
  ok "$work/tree" "a built tree fails on rank 1" 1
  echo "PASS: a communicator's set-up or tree failing on one rank: native, none waiting"
  ;;
spawn)
  # Two jobs in one communicator (spawn + merge, np 2 + 2), each with other forced algorithms:
  # their settings were never agreed, so the merged communicator runs native.
  if "$app" version 2>&1 | grep -Eq 'Device:[[:space:]]*ch4:ucx'; then
    echo "SKIP: this MPICH (ch4:ucx) has no dynamic processes (MPI_Comm_spawn never starts a child)"
    exit 77
  fi
  pre=$COLLTUNE_TEST_SHIM:$hooks
  timeout 120 "${MPIEXEC:-mpiexec}" -n 2 env LD_PRELOAD="$pre" COLLTUNE_STATS=1 COLLTUNE_VERBOSE=1 \
    COLLTUNE_BCAST_ALGORITHM=binomial COLLTUNE_SCATTER_ALGORITHM=binomial \
    COLLTUNE_GATHER_ALGORITHM=binomial "$app" spawn /usr/bin/env LD_PRELOAD="$pre" \
    COLLTUNE_BCAST_ALGORITHM=linear COLLTUNE_SCATTER_ALGORITHM=linear \
    COLLTUNE_GATHER_ALGORITHM=linear "$app" >"$work/s" 2>&1
  rc=$?
  cat "$work/s"
  [ $rc = 124 ] && fail "spawned and merged: timed out"
  [ $rc = 0 ] || fail "spawned and merged: exit status $rc"
  grep -q "faults merged size=4: 0 wrong, 0 errors" "$work/s" || fail "merged communicator: wrong results"
  grep -q "not all in this job's MPI_COMM_WORLD" "$work/s" || fail "no line saying why it runs native"
  echo "PASS: a communicator spanning two jobs runs native with MPI's results"
  ;;
hostile)
  # Inputs that would hang or swell MPI_Init: one line naming the file, native collectives.
  cat >"$work/alias.yaml" <<'YAML'
colltune_model: 3
a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
YAML
  run "$product" 2 "$work/al" COLLTUNE_MODEL="$work/alias.yaml"
  ok "$work/al" "an aliased table" 1 "$work/alias.yaml:3: yaml: aliases \(\*name\) are not accepted"
  run "$product" 2 "$work/alc" COLLTUNE_CONFIG="$work/alias.yaml"
  ok "$work/alc" "an aliased configuration" 1 "$work/alias.yaml:3: yaml: aliases"
  mkfifo "$work/fifo"
  run "$product" 2 "$work/fi" COLLTUNE_MODEL="$work/fifo"
  ok "$work/fi" "a FIFO as the table" 1 "$work/fifo: file: not a regular file"
  run "$product" 2 "$work/fc" COLLTUNE_CONFIG="$work/fifo"
  ok "$work/fc" "a FIFO as the configuration" 1 "$work/fifo: file: not a regular file"
  echo "PASS: aliases and FIFOs refused with one line, native collectives"
  ;;
product)
  # The installed library reads no test hook: no COLLTUNE_TEST_ name in it, and a fault asked
  # for is not injected.
  if grep -aq 'COLLTUNE_TEST_\|COLLTUNE_BENCH_TEST_' "$product"; then
    fail "the product library names test hooks: $(grep -ao 'COLLTUNE_[A-Z_]*TEST_[A-Z_]*' "$product" | sort -u | tr '\n' ' ')"
  fi
  run "$product" 2 "$work/p" COLLTUNE_BCAST_ALGORITHM=binomial COLLTUNE_TEST_FAIL_AT='comm.create:*'
  ok "$work/p" "the product with a fault asked for" 0
  grep -q "op=bcast algorithm=binomial calls=" "$work/p" || fail "the product library injected a fault"
  echo "PASS: the product library has no test hooks"
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac

#!/usr/bin/env bash
# Runs an MPI program under mpiexec with libcolltune preloaded and checks the outcome.
#   run-mpi.sh [--exit N] [--grep RE]... [--no-grep RE]... [--count N RE]... [--no-preload]
#              [--hosts PPN[:PREFIX]] NP PROG [ARGS...]
# Environment: MPIEXEC, COLLTUNE_LIB (libcolltune.so), COLLTUNE_TEST_SHIM (test-support shim, preloaded
# when NP > 2 so that oversubscribed runs are fast), COLLTUNE_TEST_PRELOAD (another test-support
# library to preload), any COLLTUNE_* settings for the ranks.
# Passes when the exit status is N (default 0; "nonzero": any failure but the time-out of
# RUN_MPI_TIMEOUT seconds, default 240), every --grep matches the combined output, no
# --no-grep does, and each --count RE matches exactly N lines. --hosts PPN[:PREFIX]: emulated
# hosts of PPN ranks each (COLLTUNE_IDENTITY=PREFIXK, K = rank / PPN; PREFIX default emulated-).
set -u
# First-launch calibration changes every decision: tests that exercise it ask for it.
export COLLTUNE_CALIBRATE="${COLLTUNE_CALIBRATE:-never}"
want_exit=0 preload=1 ppn= prefix=
greps=() nogreps=() counts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --exit) want_exit=$2; shift 2 ;;
    --grep) greps+=("$2"); shift 2 ;;
    --no-grep) nogreps+=("$2"); shift 2 ;;
    --count) counts+=("$2" "$3"); shift 3 ;;
    --no-preload) preload=0; shift ;;
    --hosts) ppn=${2%%:*} prefix=emulated-; [ "$ppn" = "$2" ] || prefix=${2#*:}; shift 2 ;;
    *) break ;;
  esac
done
np=$1; shift
libs=""
if [ "$np" -gt 2 ] && [ -n "${COLLTUNE_TEST_SHIM:-}" ]; then libs="$COLLTUNE_TEST_SHIM"; fi
if [ -n "${COLLTUNE_TEST_PRELOAD:-}" ]; then libs="${libs:+$libs:}$COLLTUNE_TEST_PRELOAD"; fi
if [ "$preload" = 1 ]; then libs="${libs:+$libs:}$COLLTUNE_LIB"; fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [ -n "$ppn" ]; then
  # shellcheck disable=SC2016  # expanded by each rank's shell
  timeout "${RUN_MPI_TIMEOUT:-240}" "${MPIEXEC:-mpiexec}" -n "$np" env RUN_MPI_LIBS="$libs" RUN_MPI_PPN="$ppn" RUN_MPI_PREFIX="$prefix" \
    sh -c 'exec env COLLTUNE_IDENTITY=$RUN_MPI_PREFIX$((${PMI_RANK:-0} / RUN_MPI_PPN)) ${RUN_MPI_LIBS:+LD_PRELOAD="$RUN_MPI_LIBS"} "$@"' \
    sh "$@" >"$out" 2>&1
else
  timeout "${RUN_MPI_TIMEOUT:-240}" "${MPIEXEC:-mpiexec}" -n "$np" env ${libs:+LD_PRELOAD="$libs"} "$@" >"$out" 2>&1
fi
rc=$?
cat "$out"
fail=0
if [ "$rc" = 124 ]; then echo "run-mpi: timed out after ${RUN_MPI_TIMEOUT:-240} s"; fail=1
elif [ "$want_exit" = nonzero ] && [ "$rc" != 0 ]; then :
elif [ "$rc" != "$want_exit" ]; then echo "run-mpi: exit status $rc, expected $want_exit"; fail=1; fi
for re in "${greps[@]+"${greps[@]}"}"; do
  grep -Eq -- "$re" "$out" || { echo "run-mpi: missing output matching: $re"; fail=1; }
done
for re in "${nogreps[@]+"${nogreps[@]}"}"; do
  grep -Eq -- "$re" "$out" && { echo "run-mpi: unexpected output matching: $re"; fail=1; }
done
set -- "${counts[@]+"${counts[@]}"}"
while [ $# -ge 2 ]; do
  n=$(grep -Ec -- "$2" "$out")
  [ "$n" = "$1" ] || { echo "run-mpi: $n lines match '$2', expected $1"; fail=1; }
  shift 2
done
exit $fail

#!/usr/bin/env bash
# hetcluster tests: bring up SPEC, check ping-pong against the ground truth (>= 64 KiB within
# 3%), run the correctness suite for every algorithm across the emulated hosts, with
# `calibrate` calibrate the bed (budget 90 s) and check the model against the ground truth
# (tests/hetcluster/check-calibration.py), take it down.
#   run-bed-tests.sh BUILD_DIR SPEC [calibrate]
# Exits 77 (ctest: skipped) with the reason when this machine cannot host the bed.
set -uo pipefail
build=$(cd "$1" && pwd) spec=$2 calibrate=${3:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
het=$src/scripts/hetcluster
skip() { echo "SKIPPED: hetcluster test bed: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
for t in ip tc iptables-legacy ethtool; do command -v $t >/dev/null || skip "$t not installed"; done
[ -x "$build/colltune-nfq-delay" ] || skip "colltune-nfq-delay not built (libnetfilter-queue-dev)"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
ip netns add cth-probe 2>/dev/null && ip netns del cth-probe || skip "cannot create network namespaces"

trap '"$het" down >/dev/null' EXIT
"$het" up "$spec" --build "$build" || exit 1
state=${HETCLUSTER_STATE:-/run/colltune-hetcluster}
fail=0
echo "== ping-pong against the ground truth"
"$het" run --no-preload -- "$build/tests/mpi_p2p_truth" --reps 9 --half --warmup 6 \
  --sizes 0,65536,262144 >"$build/hetcluster-p2p.out" || fail=1
python3 "$src/tests/hetcluster/check-truth.py" "$state/truth.yaml" "$build/hetcluster-p2p.out" \
  --min-lines 1 || fail=1
# Every algorithm of the registry, forced for each op that has it.
for algo in $("$build/colltune-info" --algorithms); do
  echo "== correctness, $algo"
  extra=""
  [ $algo = native ] && extra=--skip-native-defects
  force=()
  for op in bcast scatter gather; do
    "$build/colltune-info" --algorithms $op | grep -qx "$algo" &&
      force+=("COLLTUNE_${op^^}_ALGORITHM=$algo")
  done
  # No first-launch calibration: the algorithms are forced (calibration has its own test).
  out=$(env COLLTUNE_CONFIG=none COLLTUNE_CALIBRATE=never COLLTUNE_STATS=1 COLLTUNE_FALLBACK=error "${force[@]}" \
        timeout 300 "$het" run -- "$build/tests/mpi_correctness" --expect $algo --no-big $extra 2>&1)
  rc=$?
  echo "$out" | grep -E 'correctness|FAIL|stats'
  { [ $rc = 0 ] && echo "$out" | grep -q " 0 failed"; } || { echo "FAILED: $algo (exit $rc)"; fail=1; }
done
if [ "$calibrate" = calibrate ]; then
  echo "== calibration against the ground truth"
  table=$build/hetcluster-calibrated.yaml
  rm -f "$table"
  timeout 300 "$het" run --no-preload -- "$build/colltune-calibrate" --output "$table" \
    --budget 90 >"$build/hetcluster-calibrate.out" 2>&1 || { cat "$build/hetcluster-calibrate.out"; fail=1; }
  grep -E '^[0-9]/5|stopped|kept|wrote' "$build/hetcluster-calibrate.out"
  [ -f "$table" ] && python3 "$src/tests/hetcluster/check-calibration.py" "$state/truth.yaml" \
    "$table" | grep -Ev '^ok  ' || fail=1
fi
exit $fail

#!/usr/bin/env bash
# hetcluster tests: bring up SPEC, check that ping-pong sees the shaped links (a sanity bound
# that a busy machine passes: no faster than the ground truth by 50%, no slower than 3x it: on
# the 2-core VM during CI 65 KiB took 1.9x the truth; accuracy is measured in
# bench/hetcluster-calibration.sh), run the correctness suite for every algorithm across the
# emulated hosts; with `calibrate`, calibrate the bed (budget 90 s) and run an unmodified program
# preloaded with that table on the bed: the table must be accepted on every rank (identities set
# by COLLTUNE_IDENTITY), decide from its model and keep every result; with `ppn2`, the
# node-aware algorithms again with two ranks per emulated host (they share its shaped link): MPI's
# results, and every tree crosses the hosts in one message per host; take the bed down.
#   run-bed-tests.sh BUILD_DIR SPEC [calibrate|ppn2]
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
  --min-lines 1 --tolerance 0.5 --slower 2 || fail=1
# force: COLLTUNE_<OP>_ALGORITHM=$1 for each op that has algorithm $1; ops: those ops (a, b).
forcing() {
  force=() ops=()
  for op in bcast scatter gather; do
    if "$build/colltune-info" --algorithms $op | grep -qx "$1"; then
      force+=("COLLTUNE_${op^^}_ALGORITHM=$1")
      ops+=("$op")
    fi
  done
  ops=$(IFS=,; echo "${ops[*]}")
}
# Every algorithm of the registry, forced for each op that has it.
for algo in $("$build/colltune-info" --algorithms); do
  echo "== correctness, $algo"
  extra=""
  [ $algo = native ] && extra=--skip-native-defects
  forcing $algo
  # No first-launch calibration: the algorithms are forced (calibration has its own test).
  out=$(env COLLTUNE_CONFIG=none COLLTUNE_CALIBRATE=never COLLTUNE_STATS=1 COLLTUNE_FALLBACK=error "${force[@]}" \
        timeout 300 "$het" run -- "$build/tests/mpi_correctness" --expect $algo --expect-ops "$ops" --no-big $extra 2>&1)
  rc=$?
  echo "$out" | grep -E 'correctness|FAIL|stats'
  # Here-strings, not pipes: with pipefail, grep -q closing early fails the echo (SIGPIPE).
  { [ $rc = 0 ] && grep -q " 0 failed" <<<"$out"; } || { echo "FAILED: $algo (exit $rc)"; fail=1; }
done
if [ "$calibrate" = ppn2 ]; then
  hosts=$("$het" status | grep -c cth-)
  for algo in node_tree node_chain node_star; do
    echo "== correctness, $algo, 2 ranks per host"
    forcing $algo
    out=$(env COLLTUNE_CONFIG=none COLLTUNE_CALIBRATE=never COLLTUNE_STATS=1 COLLTUNE_FALLBACK=error \
          COLLTUNE_VERBOSE=2 "${force[@]}" timeout 300 "$het" run --ppn 2 -- \
          "$build/tests/mpi_correctness" --expect $algo --expect-ops "$ops" --no-big 2>&1)
    rc=$?
    echo "$out" | grep -E 'correctness|FAIL|stats'
    { [ $rc = 0 ] && grep -q " 0 failed" <<<"$out"; } || { echo "FAILED: $algo (exit $rc)"; fail=1; }
    want="$hosts hosts, $((hosts - 1)) messages between hosts"
    grep -q "$algo tree from root .*: $want" <<<"$out" ||
      { echo "FAILED: $algo: no tree logged with $want"; fail=1; }
    grep "tree from root" <<<"$out" | grep -v ": $want" | head -3 |
      sed 's/^/  other tree: /'
  done
fi
if [ "$calibrate" = calibrate ]; then
  echo "== calibration, then the calibrated table preloaded on the bed"
  table=$build/hetcluster-calibrated.yaml
  rm -f "$table"
  timeout 300 "$het" run --no-preload -- "$build/colltune-calibrate" --output "$table" \
    --budget 90 >"$build/hetcluster-calibrate.out" 2>&1 || { cat "$build/hetcluster-calibrate.out"; fail=1; }
  grep -E '^[0-9]/5|stopped|kept|wrote|cut' "$build/hetcluster-calibrate.out"
  if [ -f "$table" ]; then
    # Accuracy against the ground truth is bench/'s (printed here, not asserted).
    python3 "$src/tests/hetcluster/check-calibration.py" "$state/truth.yaml" "$table" |
      grep -E '^(FAIL|summary|[0-9]+ of)' | head -5
    out=$(env COLLTUNE_CONFIG=none COLLTUNE_MODEL="$table" COLLTUNE_VERBOSE=1 COLLTUNE_STATS=1 \
          timeout 300 "$het" run -- "$build/tests/mpi_correctness" --no-big --skip-native-defects 2>&1)
    rc=$?
    echo "$out" | grep -E 'correctness|stats|warning|error' | head -20
    { [ $rc = 0 ] && grep -q " 0 failed" <<<"$out"; } || { echo "FAILED: preloaded run (exit $rc)"; fail=1; }
    grep -q 'made for another platform\|does not serve this job\|running native' <<<"$out" &&
      { echo "FAILED: the calibrated table was refused on its own bed"; fail=1; }
    grep -Eq '(bcast|scatter|gather) on MPI_COMM_WORLD.* \(model' <<<"$out" ||
      { echo "FAILED: no decision came from the calibrated model"; fail=1; }
  else
    echo "FAILED: no table"; fail=1
  fi
fi
exit $fail

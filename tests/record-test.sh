#!/usr/bin/env bash
# libcolltune_record.so (docs/recording.md) preloaded into tests/mpi/record_app.c.
#   record-test.sh MODE RECORD_LIB APP MPIEXEC SHIM SOURCE_DIR
# MODE all: every call recorded, checked by record-check.py, and replayed by SimGrid SMPI when
# smpirun is here; wall: COLLTUNE_RECORD_CLOCK=wall; window: COLLTUNE_RECORD_WINDOW=2 alone; off: without COLLTUNE_RECORD nothing
# is written; bad: an unwritable folder or window is one line and the run goes on.
set -u
mode=$1 lib=$2 app=$3 mpiexec=$4 shim=$5 src=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
np=4
run() {  # run [VAR=VAL...]: the app on np ranks with the recorder, output in $work/out
  timeout 120 "$mpiexec" -n $np env LD_PRELOAD="$shim:$lib" "$@" "$app" >"$work/out" 2>&1
}
fail() { cat "$work/out"; echo "FAIL: $*"; exit 1; }
cd "$work" || exit 1
case $mode in
all)
  run COLLTUNE_RECORD="$work/t" || fail "the app failed"
  grep -q "results correct" "$work/out" || fail "results changed"
  clock=$(sed -n 's/^record_app: clock \([0-9]*\) ns$/\1/p' "$work/out")
  [ -n "$clock" ] || fail "the app did not say its clock's cost"
  python3 "$src/tests/record-check.py" "$work/t" $np all "$clock" || fail "trace"
  # colltune's replay takes the whole trace, the sub-communicator's bcast included.
  # (--whole-collectives: each priced as one, so that all of them are counted; by default the
  # small bcasts go as their trees' messages.)
  "$(dirname "$lib")/colltune-predict" replay "$work/t" --table "$src/tests/data/hetcluster8-table.yaml" \
    --whole-collectives --format csv >"$work/replay" 2>&1 ||
    { cat "$work/replay"; fail "colltune's replay refused the trace"; }
  # Collectives replayed: 9 of all the processes (bcasts of 8000, 56, 72 and 8000 bytes, 2
  # allreduces, gather, scatter, the barrier) and the two parities' bcasts, one each: 11.
  awk -F, 'NR > 1 && $5 != 11 {bad = 1} END {exit bad}' "$work/replay" ||
    { cat "$work/replay"; fail "not 11 collectives replayed"; }
  if command -v smpirun >/dev/null; then
    python3 "$src/scripts/platform-gen.py" --hosts 16 --kind hetero --seed 5 --out "$work/p" >/dev/null
    smpi() {
      SMPI_PLATFORM=$work/p SMPI_EXTRA_CFG="--cfg=smpi/simulate-computation:yes --log=smpi_replay.thresh:info" \
        timeout 120 "$src/tests/smpi/smpi-exec.sh" -n $np -replay "$1" 2>&1
    }
    # SimGrid's format has one communicator: its replay must refuse a collective on part of
    # the processes (never run it on all of them), and take the rest of the trace.
    if out=$(smpi "$work/t/traces"); then
      echo "$out" | tail -5
      fail "SMPI replayed a trace with a collective on part of the processes"
    fi
    grep -q "action comm is unknown" <<<"$out" || { echo "$out" | tail -5; fail "SMPI failed, but not on the communicator's line"; }
    mkdir "$work/w"
    for r in $(seq 0 $((np - 1))); do
      grep -Ev '^[0-9]+ (comm |[a-z]+@)' "$work/t/rank-$r.ti" >"$work/w/rank-$r.ti"
      echo "$work/w/rank-$r.ti"
    done >"$work/w/traces"
    out=$(smpi "$work/w/traces")
    t=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' <<<"$out" | tail -1)
    [ -n "$t" ] || { echo "$out"; fail "SMPI could not replay the trace"; }
    # At least the recorded 0.05 s spin at the slowest host's speed (flops at 1e9 per second).
    python3 -c "import sys; sys.exit(not float(sys.argv[1]) >= 0.04 * 1e9 / 2.4e9)" "$t" ||
      fail "replayed in $t s, less than the recorded computation"
    echo "replayed by SMPI in $t simulated s"
  fi
  echo PASS
  ;;
wall)
  run COLLTUNE_RECORD="$work/t" COLLTUNE_RECORD_CLOCK=wall || fail "the app failed"
  grep -q "results correct" "$work/out" || fail "results changed"
  python3 "$src/tests/record-check.py" "$work/t" $np wall || fail "trace"
  echo PASS
  ;;
window)
  run COLLTUNE_RECORD="$work/t" COLLTUNE_RECORD_WINDOW=2 || fail "the app failed"
  python3 "$src/tests/record-check.py" "$work/t" $np window2 || fail "trace"
  echo PASS
  ;;
off)
  run || fail "the app failed"
  grep -q "results correct" "$work/out" || fail "results changed"
  [ -z "$(ls -A "$work" | grep -v '^out$')" ] || fail "files written without COLLTUNE_RECORD: $(ls "$work")"
  grep -q colltune-record "$work/out" && fail "the recorder spoke without COLLTUNE_RECORD"
  echo PASS
  ;;
bad)
  run COLLTUNE_RECORD=/proc/colltune-nowhere || fail "the app failed with an unwritable folder"
  grep -q "results correct" "$work/out" || fail "results changed"
  grep -q "colltune-record: /proc/colltune-nowhere.*not recording" "$work/out" || fail "no line says why"
  run COLLTUNE_RECORD="$work/t" COLLTUNE_RECORD_WINDOW=soon || fail "the app failed with a bad window"
  [ "$(grep -c "COLLTUNE_RECORD_WINDOW: invalid value 'soon' (valid: N >= 1" "$work/out")" = 1 ] ||
    fail "not one line naming the bad window"
  [ ! -e "$work/t" ] || fail "recorded with a bad window"
  run COLLTUNE_RECORD="$work/t" COLLTUNE_RECORD_CLOCK=sundial || fail "the app failed with a bad clock"
  [ "$(grep -c "COLLTUNE_RECORD_CLOCK: invalid value 'sundial' (valid: cpu, wall)" "$work/out")" = 1 ] ||
    fail "not one line naming the bad clock"
  [ ! -e "$work/t" ] || fail "recorded with a bad clock"
  echo PASS
  ;;
esac

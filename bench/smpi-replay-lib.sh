# Shared by bench/scalapack-smpi.sh, bench/app-smpi.sh and bench/pdgesv-smpi.sh (sourced):
# recording a program here for an SMPI replay, the replay platforms, their calibrated tables,
# the replayed time and the trace's forecast. Needs $build (the native build), $smpi (the SMPI
# build) and $here (bench/).

# N DIR WINDOW LOG CMD...: CMD on N processes here (oversubscribed: the UCX progress shim),
# recorded by libcolltune_record.so into DIR (its MPI_Pcontrol window WINDOW); nothing when
# DIR already holds a trace. False when the run failed (DIR then holds no trace list).
record_trace() {
  local n=$1 dir=$2 window=$3 log=$4
  shift 4
  [ -s "$dir/traces" ] && return 0
  rm -rf "$dir"
  mkdir -p "$dir"
  timeout 1200 mpiexec.mpich -n "$n" env \
    LD_PRELOAD="$build/tests/libcolltune_test_ucxshim.so:$build/libcolltune_record.so" \
    COLLTUNE_RECORD="$dir" COLLTUNE_RECORD_WINDOW="$window" "$@" >"$log" 2>&1 ||
    { rm -f "$dir/traces"; return 1; }
}

# KIND N SEED DIR: platform-gen.py's platform with every host at 1 Gflop/s (a replayed
# computation takes the CPU time recorded here), exported as SMPI_PLATFORM.
replay_platform() {
  "$here/../scripts/platform-gen.py" --hosts "$2" --kind "$1" --seed "$3" --out "$4" >/dev/null
  sed -i 's/speed="[^"]*f"/speed="1e+09f"/' "$4/platform.xml"
  export SMPI_PLATFORM=$4
}

# The replays' protocol: messages under 64 KiB leave their sender at once, larger ones wait for
# their receive (MPICH's rendezvous). Tables are calibrated under it too, as colltune-calibrate
# runs under the MPI it serves; CAL_PROTOCOL= calibrates with every send detached
# (smpi-exec.sh's own setting, the tables of results before 2026-11-29).
replay_protocol="--cfg=smpi/send-is-detached-thresh:65536"

# N TABLE BUDGET LOG: colltune-calibrate under SMPI on $SMPI_PLATFORM, unless TABLE exists.
calibrated_table() {
  [ -s "$2" ] && return 0
  SMPI_EXTRA_CFG="${SMPI_EXTRA_CFG:-} ${CAL_PROTOCOL-$replay_protocol}" \
    "$here/../tests/smpi/smpi-exec.sh" -n "$1" "$smpi/tests/smpi/smpi_colltune_calibrate" \
    --output "$2" --budget "$3" >"$4" 2>&1
}

# N TRACES [CFG...]: SMPI's replay of a trace list on $SMPI_PLATFORM, its simulated seconds
# (messages under 64 KiB leave their sender at once; CFG: more settings, e.g. computation).
replayed_seconds() {
  local n=$1 traces=$2
  shift 2
  SMPI_EXTRA_CFG="$* $replay_protocol --log=smpi_replay.thresh:info" \
    "$here/../tests/smpi/smpi-exec.sh" -n "$n" -replay "$traces" 2>&1 |
    sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' | tail -1
}

# DIR TABLE: the recorded run in DIR forecast by colltune-predict replay on TABLE (its
# computation as recorded, SMPI's eager size), seconds.
trace_forecast() {
  "$build/colltune-predict" replay "$1" --table "$2" --eager 65535 --format csv |
    awk -F, 'NR==2{print $3}'
}

# DIR: the most any rank of a recorded run computed, seconds.
recorded_compute() {
  for f in "$1"/rank-*.ti; do awk '$2 == "compute" {s += $3} END {print s / 1e9}' "$f"; done |
    sort -g | tail -1
}

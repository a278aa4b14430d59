#!/usr/bin/env bash
# The colltune demo, about 5 minutes (part 2 as root):
#  1. This machine at np 2: calibrate it, then an unmodified MPI program natively and with
#     LD_PRELOAD=libcolltune.so in alternating, randomized order. At 2 processes every algorithm
#     is one message, so colltune keeps MPICH's own: what shows is the cost of interception.
#  2. An emulated heterogeneous cluster (scripts/hetcluster: 8 hosts in network namespaces,
#     shaped TCP links, real MPICH): calibrate it, then the same program natively and preloaded,
#     alternating in random order; every decision with the gain its table predicted and the
#     speed-up measured (median, min..max over rounds).
# ROUNDS (5), DEMO_DIR (build/demo), HET_BUDGET (calibration seconds on the cluster, 90).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
[ -x build/bench/bench_demo_app ] && [ -x build/colltune-calibrate ] || scripts/setup.sh
work=${DEMO_DIR:-build/demo}
rounds=${ROUNDS:-5}
mkdir -p "$work"
work=$(cd "$work" && pwd)
app=$src/build/bench/bench_demo_app
lib=$src/build/libcolltune.so
export COLLTUNE_CONFIG=none COLLTUNE_CALIBRATE=never

# alternate NAME NATIVE_CMD... :: PRELOADED_CMD...: ROUNDS rounds, each in a random order; rows
# to $work/NAME-native.txt and $work/NAME-colltune.txt; the first preloaded run is verbose.
alternate() {
  local name=$1; shift
  local native=() pre=()
  while [ "$1" != :: ]; do native+=("$1"); shift; done
  shift
  pre=("$@")
  : >"$work/$name-native.txt"; : >"$work/$name-colltune.txt"
  COLLTUNE_VERBOSE=1 "${pre[@]}" >/dev/null 2>"$work/$name-log.txt"
  for i in $(seq "$rounds"); do
    if [ $((RANDOM % 2)) = 0 ]; then order="native colltune"; else order="colltune native"; fi
    for which in $order; do
      if [ $which = native ]; then "${native[@]}" >>"$work/$name-native.txt"
      else "${pre[@]}" >>"$work/$name-colltune.txt"; fi
    done
    echo "  round $i of $rounds: $order"
  done
}

echo "== 1. this machine, 2 processes"
mpiexec -n 2 build/colltune-calibrate --budget "${BUDGET:-10}" --output "$work/vm.yaml" \
  --report "$work/vm-report.txt" | grep -E '^[0-9]/5|cut by|^  [a-z]+ \[' || true
sizes=16,4096,65536,1048576
alternate vm mpiexec -n 2 "$app" --sizes $sizes :: \
  env COLLTUNE_MODEL="$work/vm.yaml" mpiexec -n 2 env LD_PRELOAD="$lib" "$app" --sizes $sizes
python3 bench/demo-summary.py --native "$work/vm-native.txt" --colltune "$work/vm-colltune.txt" \
  --log "$work/vm-log.txt" --info build/colltune-info --table "$work/vm.yaml" --csv "$work/vm.csv"
echo

echo "== 2. an emulated heterogeneous cluster: 8 hosts (config/hetcluster/8hosts.yaml)"
why=""
[ "$(id -u)" = 0 ] || why="needs root (network namespaces)"
[ -z "$why" ] && { [ -x build/colltune-nfq-delay ] || why="colltune-nfq-delay not built"; }
if [ -n "$why" ]; then
  echo "skipped: $why"
  exit 0
fi
het=scripts/hetcluster
trap '"$het" down >/dev/null 2>&1 || true' EXIT
"$het" up config/hetcluster/8hosts.yaml --build build >/dev/null
echo "calibrating the cluster (budget ${HET_BUDGET:-90} s)"
"$het" run --no-preload -- build/colltune-calibrate --budget "${HET_BUDGET:-90}" \
  --output "$work/het.yaml" --report "$work/het-report.txt" |
  grep -E '^[0-9]/5|cut by|^  h[0-9]: |^  [a-z]+ \[' || true
sizes=1024,16384,65536
alternate het "$het" run --no-preload -- "$app" --sizes $sizes --roots 0,7 --batch-ms 40 :: \
  env COLLTUNE_MODEL="$work/het.yaml" "$het" run -- "$app" --sizes $sizes --roots 0,7 --batch-ms 40
python3 bench/demo-summary.py --native "$work/het-native.txt" --colltune "$work/het-colltune.txt" \
  --log "$work/het-log.txt" --info build/colltune-info --table "$work/het.yaml" --csv "$work/het.csv"
echo "(files in $work; the decisions as colltune logged them: $work/het-log.txt)"

#!/usr/bin/env bash
# The colltune demo on this machine (np 2 by default):
#  1. calibrates it: colltune-calibrate measures every algorithm and the LMO model, validates
#     the model on held-out sizes and writes the model table (decisions with predicted times);
#  2. runs an unmodified MPI program without colltune, then with LD_PRELOAD=libcolltune.so and
#     that table, printing each decision colltune made and the speed against native MPICH.
set -euo pipefail
cd "$(dirname "$0")/.."
np=${NP:-2}
work=${DEMO_DIR:-build/demo}
mkdir -p "$work"
[ -x build/bench/bench_demo_app ] || scripts/setup.sh
export COLLTUNE_CONFIG=none COLLTUNE_CALIBRATE=never
echo "== 1. calibrating this machine (np $np): mpiexec -n $np colltune-calibrate"
mpiexec -n "$np" build/colltune-calibrate --budget "${BUDGET:-10}" --output "$work/model.yaml" \
  --report "$work/report.txt"
echo
rounds=${ROUNDS:-3}
echo "== 2. the application without and with LD_PRELOAD=libcolltune.so, alternating, $rounds rounds"
: >"$work/native.txt"; : >"$work/colltune.txt"
for i in $(seq "$rounds"); do
  mpiexec -n "$np" build/bench/bench_demo_app >>"$work/native.txt"
  COLLTUNE_MODEL="$work/model.yaml" \
    mpiexec -n "$np" env LD_PRELOAD="$PWD/build/libcolltune.so" build/bench/bench_demo_app \
    >>"$work/colltune.txt"
done
echo
echo "== 3. the decisions colltune made, and its statistics (an untimed run)"
COLLTUNE_MODEL="$work/model.yaml" COLLTUNE_VERBOSE=1 COLLTUNE_STATS=1 \
  mpiexec -n "$np" env LD_PRELOAD="$PWD/build/libcolltune.so" build/bench/bench_demo_app \
  2>&1 | grep '^colltune'
echo
echo "== speed against native MPICH: median over rounds (time native / time colltune; > 1 is faster)"
med() { sort -k1,1 -k2,2n -k3,3g "$1" | awk '{k=$1" "$2; c[k]++; v[k,c[k]]=$3} END{for(k in c) print k, v[k,int((c[k]+1)/2)]}' | sort; }
printf '%-8s %9s %12s %12s %8s\n' op bytes native_us colltune_us speedup
join -j1 <(med "$work/native.txt" | awk '{print $1"_"$2, $3}') \
         <(med "$work/colltune.txt" | awk '{print $1"_"$2, $3}') |
  sort -t_ -k1,1 -k2n | awk '{split($1,k,"_"); printf "%-8s %9s %12.2f %12.2f %8.2f\n", k[1], k[2], $2, $3, $2/$3}'

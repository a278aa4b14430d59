#!/usr/bin/env bash
# The Jacobi stencil (bench/apps/jacobi.c) or the master-worker program (APP=mw,
# bench/apps/master_worker.c) at 1024 processes where MPI timings are exact
# (docs/app-models.md "1024 processes"): a platform of HOSTS hosts repeating the BASE hosts of
# platform-gen.py's star (seed SEED, --repeat; hosts at 1 Gflop/s so that a replayed
# computation takes its flops / 1e9 s), SimGrid SMPI replaying the run as ground truth (with
# and without crosstraffic), against colltune-predict: the same trace replayed (`replay`, rank
# r on identity r mod BASE) and the hand model (config/apps/jacobi.yaml or master-worker.yaml,
# `app`, nodes beyond the table's identities repeating them), both on a table calibrated under
# SMPI on the BASE hosts alone. 1024 processes cannot be recorded on this 2-core, 24 GiB host, so the trace is
# written here as libcolltune_record.so writes the program's timed region (record-check.py's
# format; checked against a recording of 4 ranks by `GEN_CHECK=1`): per iteration MPI_Sendrecv
# down then up (8 N bytes), the update's 5 N N / P flops at RATE flops/s, every CHECK
# iterations an 8-byte MPI_Allreduce; master-worker: per round MPI_Scatter of CHUNK bytes from
# rank 0, the workers' WORK flops at RATE, MPI_Gather of CHUNK / 8 (SMPI then runs MPICH's
# bcast, scatter and gather, in the calibration and the replays, as the forecasts price them).
# SMPI's allreduce is recursive doubling (smpi/allreduce:rdb,
# MPICH's algorithm at 8 bytes, as the forecasts price it; SimGrid's default took 1.15 ms a call
# on 1024 homogeneous hosts where those rounds take about 0.06 ms, and its `mpich` selector
# aborts in replays here).
#   bench/app-smpi-1024.sh BUILD BUILD_SMPI OUT   Env: HOSTS (1024), BASE (64), SEED (61), KIND
#   (hetero), APP (jacobi), SIZES ("4096 16384"; mw: CHUNK:WORK, "4096:2e7 65536:2e6"), ITERS
#   (100; mw: the rounds, 10), CHECK (10), RATE (3e9), BUDGET (40), TABLE (a table of the BASE
#   hosts: skips the calibration)
set -euo pipefail
build=$(realpath "$1") smpi=$(realpath "$2") out=$3
mkdir -p "$out"
out=$(realpath "$out")
here=$(cd "$(dirname "$0")" && pwd)
n=${HOSTS:-1024} base=${BASE:-64} seed=${SEED:-61} kind=${KIND:-hetero}
app=${APP:-jacobi}
case $app in
  jacobi) sizes=${SIZES:-"4096 16384"} iters=${ITERS:-100} coll="" ;;
  mw) sizes=${SIZES:-"4096:2e7 65536:2e6"} iters=${ITERS:-10}
    coll="--cfg=smpi/bcast:mpich --cfg=smpi/scatter:mpich --cfg=smpi/gather:mpich" ;;
  *) echo "app-smpi-1024: APP is jacobi or mw, not '$app'" >&2; exit 2 ;;
esac
check=${CHECK:-10} rate=${RATE:-3e9}
budget=${BUDGET:-40}
predict=$build/colltune-predict
# shellcheck source=bench/smpi-replay-lib.sh
. "$here/smpi-replay-lib.sh"
gen() {  # DIR P N: jacobi.c's timed region as the recorder writes it
  python3 - "$1" "$2" "$3" "$iters" "$check" "$rate" <<'PY'
import os, sys
d, P, N, iters, check, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
os.makedirs(d, exist_ok=True)
B, flops = 8 * N, 5 * N * (N // P) / rate * 1e9  # a trace's flops: 1e9 a second
with open(os.path.join(d, "traces"), "w") as lst:
    for r in range(P):
        lines = [f"{r} init", f"{r} barrier"]
        for it in range(iters):
            if r > 0: lines.append(f"{r} irecv {r - 1} 1 {B}")
            if r < P - 1: lines.append(f"{r} send {r + 1} 1 {B}")
            if r > 0: lines.append(f"{r} wait {r - 1} {r} 1")
            if r < P - 1: lines.append(f"{r} irecv {r + 1} 2 {B}")
            if r > 0: lines.append(f"{r} send {r - 1} 2 {B}")
            if r < P - 1: lines.append(f"{r} wait {r + 1} {r} 2")
            lines.append(f"{r} compute {flops:.0f}")
            if (it + 1) % check == 0: lines.append(f"{r} allreduce 8 0")
        lines.append(f"{r} finalize")
        path = os.path.join(d, f"rank-{r}.ti")
        open(path, "w").write("\n".join(lines) + "\n")
        lst.write(path + "\n")
PY
}
gen_mw() {  # DIR P CHUNK:WORK: master_worker.c's timed region as the recorder writes it
  python3 - "$1" "$2" "${3%:*}" "${3#*:}" "$iters" "$rate" <<'PY'
import os, sys
d, P, C, W, rounds, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
os.makedirs(d, exist_ok=True)
flops = W / rate * 1e9  # a trace's flops: 1e9 a second
with open(os.path.join(d, "traces"), "w") as lst:
    for r in range(P):
        lines = [f"{r} init", f"{r} barrier"]
        for _ in range(rounds):
            lines.append(f"{r} scatter {C} {C} 0")
            if r != 0: lines.append(f"{r} compute {flops:.0f}")
            lines.append(f"{r} gather {C // 8} {C // 8} 0")
        lines.append(f"{r} finalize")
        path = os.path.join(d, f"rank-{r}.ti")
        open(path, "w").write("\n".join(lines) + "\n")
        lst.write(path + "\n")
PY
}
if [ "${GEN_CHECK:-0}" = 1 ]; then  # the generator against a recording of 4 ranks
  rm -rf "$out/check-rec" "$out/check-gen"
  prog=("$build/bench/app_master_worker" "$iters" 4096 1e6)
  [ "$app" = mw ] || prog=("$build/bench/app_jacobi" 512 "$iters" "$check")
  mpiexec.mpich -n 4 env LD_PRELOAD="$build/tests/libcolltune_test_ucxshim.so:$build/libcolltune_record.so" \
    COLLTUNE_RECORD="$out/check-rec" COLLTUNE_RECORD_WINDOW=1 "${prog[@]}" >/dev/null
  if [ "$app" = jacobi ]; then gen "$out/check-gen" 4 512; else gen_mw "$out/check-gen" 4 4096:1e6; fi
  for r in 0 1 2 3; do
    diff <(grep -v '^#' "$out/check-rec/rank-$r.ti" | awk '$2 != "compute"') \
      <(awk '$2 != "compute"' "$out/check-gen/rank-$r.ti") >/dev/null ||
      { echo "generated rank $r differs from the recording" >&2; exit 1; }
  done
  echo "generator: every message and collective as recorded ($app, 4 ranks)"
fi
replay_platform "$kind" "$base" "$seed" "$out/platforms/$kind$base"
table=${TABLE:-$out/table-$kind$base.yaml}
SMPI_EXTRA_CFG=$coll calibrated_table "$base" "$table" "$budget" "$out/calibrate-$kind$base.log"
"$here/../scripts/platform-gen.py" --hosts "$base" --kind "$kind" --seed "$seed" --repeat "$n" \
  --out "$out/platforms/$kind$n" >/dev/null
sed -i 's/speed="[^"]*f"/speed="1e+09f"/' "$out/platforms/$kind$n/platform.xml"
export SMPI_PLATFORM=$out/platforms/$kind$n
members=$(python3 -c "import sys; n, b = int(sys.argv[1]), int(sys.argv[2]); print(','.join(f'h{k % b}' for k in range(n)))" "$n" "$base")
echo "hosts,platform,N,smpi_s,smpi_nocross_s,trace_s,model_s,smpi_wall_s" >"$out/smpi.csv"
for N in $sizes; do  # N: Jacobi's N, or master-worker's CHUNK:WORK
  dir=$out/traces/$app-${N//:/-}
  rm -rf "$dir"
  if [ "$app" = jacobi ]; then
    gen "$dir" "$n" "$N"
    model=(jacobi.yaml --var N="$N" --var iters="$iters" --var check="$check")
  else
    gen_mw "$dir" "$n" "$N"
    model=(master-worker.yaml --var rounds="$iters" --var chunk="${N%:*}" --var work="${N#*:}")
  fi
  t0=$(date +%s)
  rep=$(replayed_seconds "$n" "$dir/traces" --cfg=smpi/simulate-computation:yes --cfg=smpi/allreduce:rdb $coll)
  wall=$(($(date +%s) - t0))
  nox=$(replayed_seconds "$n" "$dir/traces" --cfg=smpi/simulate-computation:yes --cfg=smpi/allreduce:rdb \
    $coll --cfg=network/crosstraffic:0)
  tf=$("$predict" replay "$dir" --table "$table" --members "$members" --eager 65535 --format csv |
    awk -F, 'NR==2{print $3}')
  fm=$("$predict" app "$here/../config/apps/${model[0]}" "${model[@]:1}" --table "$table" -n "$n" \
    --per-node 1 --flops-rate "$rate" --eager 65535 --mpich --format csv | awk -F, 'NR==2{print $5}')
  echo "$n,$kind$n,$N,$rep,$nox,$tf,$fm,$wall" | tee -a "$out/smpi.csv"
done

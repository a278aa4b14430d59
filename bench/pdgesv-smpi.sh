#!/usr/bin/env bash
# PDGESV (bench/apps/pdgesv.c) where MPI timings are exact (docs/app-models.md "pdgesv"):
# recorded here once per case on HOSTS processes (oversubscribed with the UCX progress shim:
# the trace is time-independent), replayed by SimGrid SMPI on star and rack platforms
# (platform-gen.py, seed SEED, hosts at 1 Gflop/s so that a replayed computation takes the CPU
# time recorded here) as the ground truth, and forecast on a table calibrated on that platform
# under SMPI: by the trace (colltune-predict replay) and by the hand model
# (config/apps/pdgesv.yaml, its costs measured on one process here at N 1536, held out).
# Messages below 64 KiB leave their sender at once in SMPI: --eager 65535.
# Usage: bench/pdgesv-smpi.sh BUILD BUILD_SMPI OUT   Env: HOSTS (16), KINDS ("hetero racks"),
#   SIZES ("1024 2048"), BUDGET (10), SEED (23: the platforms' seed; 61 never used to write the
#   model)
set -euo pipefail
build=$(realpath "$1") smpi=$(realpath "$2") out=$3
mkdir -p "$out"
out=$(realpath "$out")
here=$(cd "$(dirname "$0")" && pwd)
n=${HOSTS:-16} kinds=${KINDS:-"hetero racks"} sizes=${SIZES:-"1024 2048"} budget=${BUDGET:-10} seed=${SEED:-23}
predict=$build/colltune-predict pdg=$build/bench/app_pdgesv
export OPENBLAS_NUM_THREADS=1
# shellcheck source=bench/smpi-replay-lib.sh
. "$here/smpi-replay-lib.sh"
# The model's costs: three single-process solves at N 1536, their kernels timed.
runs=()
for i in 1 2 3; do
  rm -f "$out/blas-$i".*
  line=$(mpiexec.mpich -n 1 env COLLTUNE_BLAS_TIMER="$out/blas-$i" \
    LD_PRELOAD="$build/bench/libcolltune_blas_timer.so" "$pdg" 1536 64 1 1 | tail -1)
  runs+=("$(echo "$line" | awk '{print $6 + $8}'):$out/blas-$i")
done
read -r r3 r2 sw < <("$here/pdgesv-rates.py" 1536 64 "${runs[@]}")
echo "costs on one process: level 3 $r3, panel $r2 flops/s, row exchanges $sw s per element" |
  tee "$out/rates.txt"
echo "hosts,platform,params,smpi_s,trace_s,model_s" >"$out/smpi.csv"
for N in $sizes; do
  for p in 1 "$n"; do
    record_trace "$n" "$out/traces/N$N-p$p" 2 "$out/traces/N$N-p$p.log" "$pdg" "$N" 64 "$p" \
      $((n / p)) || { echo "recording N $N p $p failed" >&2; exit 1; }
  done
done
for kind in $kinds; do
  replay_platform "$kind" "$n" "$seed" "$out/platforms/$kind$n"
  table=$out/table-$kind$n.yaml
  calibrated_table "$n" "$table" "$budget" "$out/calibrate-$kind$n.log"
  for N in $sizes; do
    for p in 1 "$n"; do
      dir=$out/traces/N$N-p$p
      rep=$(replayed_seconds "$n" "$dir/traces" --cfg=smpi/simulate-computation:yes)
      tf=$(trace_forecast "$dir" "$table")
      fm=$("$predict" app "$here/../config/apps/pdgesv.yaml" --table "$table" -n "$n" \
        --per-node 1 --flops-rate "$r3" --eager 65535 --mpich --var N="$N" --var p="$p" \
        --var panel_rate="$r2" --var swap_s="$sw" --format csv | awk -F, 'NR==2{print $5}')
      echo "$n,$kind$n,N=$N p=$p,$rep,$tf,$fm" | tee -a "$out/smpi.csv"
    done
  done
done
python3 - "$out/smpi.csv" <<'PY' | tee "$out/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| platform | cases | trace | model |")
print("|---|---|---|---|")
for p in sorted({r["platform"] for r in rows}) + ["all"]:
    rs = [r for r in rows if p in ("all", r["platform"])]
    def err(col):
        e = [abs(float(r[col]) / float(r["smpi_s"]) - 1) * 100 for r in rs]
        return f"{statistics.median(e):.1f}% / {max(e):.1f}%"
    print(f"| {p} | {len(rs)} | {err('trace_s')} | {err('model_s')} |")
PY

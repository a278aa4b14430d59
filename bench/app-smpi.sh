#!/usr/bin/env bash
# colltune-predict app and replay at 16-64 processes, where MPI timings are exact
# (docs/app-models.md "At scale"): the two programs of bench/apps run here once per case under
# libcolltune_record.so (real MPICH, oversubscribed with the UCX progress shim: timings
# meaningless, the trace time-independent), each trace is replayed by SimGrid SMPI on star and
# rack platforms (platform-gen.py, seed 23, host speed 1 Gflop/s so a replayed computation
# takes the CPU time recorded here) as the ground truth, and forecast on a table calibrated on
# that platform under SMPI three ways: the hand model (config/apps, its compute rate from a
# recording at a size no case uses), the trace (replay), the trace turned into a model.
# Messages below 64 KiB leave their sender at once in SMPI, in the replays and the calibration
# alike (smpi-replay-lib.sh): --eager 65535. SMPI's time is taken
# twice: as configured (tests/smpi/smpi-exec.sh) and without SimGrid's model of TCP's reverse
# traffic (network/crosstraffic:0), which makes a slow host that sends and receives at once pay
# up to a whole message more per exchange than real MPICH does (docs/app-models.md,
# "Full-duplex exchanges").
# SMPI_COLL: SimGrid's bcast, scatter and gather for the calibration and the replays alike
# (default: SimGrid's own; `mpich` for MPICH's algorithms, as bench/model-trees.sh calibrates:
# the 256-process run reuses its table, docs/app-models.md; SimGrid 3.32's replay aborts with
# the whole MPICH selector, in its allreduce).
# Usage: bench/app-smpi.sh BUILD BUILD_SMPI OUT   Env: HOSTS (default 16), KINDS, BUDGET (10),
#   SMPI_COLL
set -euo pipefail
build=$(realpath "$1") smpi=$(realpath "$2") out=$3
mkdir -p "$out"
out=$(realpath "$out")
here=$(cd "$(dirname "$0")" && pwd)
hosts=${HOSTS:-16} kinds=${KINDS:-"homo hetero racks"} budget=${BUDGET:-10}
coll=${SMPI_COLL:+--cfg=smpi/bcast:$SMPI_COLL --cfg=smpi/scatter:$SMPI_COLL --cfg=smpi/gather:$SMPI_COLL}
predict=$build/colltune-predict
# shellcheck source=bench/smpi-replay-lib.sh
. "$here/smpi-replay-lib.sh"
record() {  # N DIR CMD...: the programs' timed region is their first MPI_Pcontrol window
  local n=$1 dir=$2
  shift 2
  record_trace "$n" "$dir" 1 "$dir/run.log" "$@"
}
echo "hosts,platform,app,params,smpi_s,model_s,trace_s,tomodel_s,smpi_nox_s" >"$out/smpi.csv"
for n in $hosts; do
  # Compute rates (model flops per recorded second) from recordings at sizes no case uses,
  # each the median of RATE_RUNS (3) recordings; Jacobi's at each of JAC_RATE_N (1280 3072)
  # with its working set, 16 N^2 / n bytes a process (--flops-rate F@W,...).
  runs=${RATE_RUNS:-3} rj="" all=""
  for jn in ${JAC_RATE_N:-1280 3072}; do
    v=()
    for i in $(seq "$runs"); do
      record "$n" "$out/traces/$n/rate-jacobi-$jn-$i" "$build/bench/app_jacobi" "$jn" 20 10
      v+=("$(python3 -c "print(5 * $jn * $jn / $n * 20 / $(recorded_compute "$out/traces/$n/rate-jacobi-$jn-$i"))")")
    done
    f=$(python3 -c 'import sys, statistics; print(statistics.median(map(float, sys.argv[1:])))' "${v[@]}")
    rj="$rj${rj:+,}$f@$((16 * jn * jn / n))" all="$all ${v[*]} |"
  done
  v=()
  for i in $(seq "$runs"); do
    record "$n" "$out/traces/$n/rate-mw-$i" "$build/bench/app_master_worker" 5 4096 1e7
    v+=("$(python3 -c "print(1e7 * 5 / $(recorded_compute "$out/traces/$n/rate-mw-$i"))")")
  done
  rm=$(python3 -c 'import sys, statistics; print(statistics.median(map(float, sys.argv[1:])))' "${v[@]}")
  echo "np $n rates (median of$all ${v[*]}): jacobi $rj, master-worker $rm flops per recorded second" |
    tee -a "$out/rates.txt"
  cases=("jacobi:N=2048:iters=50:check=10" "jacobi:N=4096:iters=20:check=10"
         "mw:rounds=10:chunk=16384:work=2e7" "mw:rounds=10:chunk=262144:work=2e6")
  for c in "${cases[@]}"; do
    IFS=: read -r app a b d <<<"$c"
    dir=$out/traces/$n/${c//[:=]/-}
    if [ "$app" = jacobi ]; then
      record "$n" "$dir" "$build/bench/app_jacobi" "${a#*=}" "${b#*=}" "${d#*=}"
    else
      record "$n" "$dir" "$build/bench/app_master_worker" "${a#*=}" "${b#*=}" "${d#*=}"
    fi
  done
  for kind in $kinds; do
    replay_platform "$kind" "$n" 23 "$out/platforms/$kind$n"
    table=$out/table-$kind$n.yaml
    SMPI_EXTRA_CFG=$coll calibrated_table "$n" "$table" "$budget" "$out/calibrate-$kind$n.log"
    for c in "${cases[@]}"; do
      IFS=: read -r app a b d <<<"$c"
      dir=$out/traces/$n/${c//[:=]/-}
      [ -s "$dir/traces" ] || continue
      rep=$(replayed_seconds "$n" "$dir/traces" --cfg=smpi/simulate-computation:yes $coll)
      nox=$(replayed_seconds "$n" "$dir/traces" --cfg=smpi/simulate-computation:yes $coll \
        --cfg=network/crosstraffic:0)
      model=$here/../config/apps/jacobi.yaml rate=$rj
      [ "$app" = mw ] && model=$here/../config/apps/master-worker.yaml rate=$rm
      fm=$("$predict" app "$model" --table "$table" -n "$n" --per-node 1 --flops-rate "$rate" \
             --eager 65535 --mpich --var "$a" --var "$b" --var "$d" --format csv | awk -F, 'NR==2{print $5}')
      tf=$(trace_forecast "$dir" "$table")
      tm=refused
      if "$predict" replay "$dir" --to-model "$dir/model.yaml" 2>/dev/null; then
        tm=$("$predict" app "$dir/model.yaml" --table "$table" -n "$n" --per-node 1 --eager 65535 \
               --mpich --format csv | awk -F, 'NR==2{print $5}')
      fi
      echo "$n,$kind$n,$app,$a $b $d,$rep,$fm,$tf,$tm,$nox" | tee -a "$out/smpi.csv"
    done
  done
done
python3 - "$out/smpi.csv" <<'PY' | tee "$out/summary.txt"
import csv, statistics, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
by = defaultdict(list)
for r in rows:
    for key in (r["platform"], "all"):
        by[key].append(r)
for truth, title in (("smpi_s", "SMPI as configured"),
                     ("smpi_nox_s", "SMPI without crosstraffic")):
    print(f"against {title}: |error| median / max")
    print("| platform | cases | model | trace | trace -> model |")
    print("|---|---|---|---|---|")
    for p, rs in sorted(by.items()):
        def err(col):
            e = [abs(float(r[col]) / float(r[truth]) - 1) * 100 for r in rs
                 if r[col] != "refused"]
            return f"{statistics.median(e):.1f}% / {max(e):.1f}%" + (
                f" ({len(rs) - len(e)} refused)" if len(e) < len(rs) else "")
        print(f"| {p} | {len(rs)} | {err('model_s')} | {err('trace_s')} | {err('tomodel_s')} |")
    print()
PY

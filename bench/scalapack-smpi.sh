#!/usr/bin/env bash
# colltune-predict's routine forecasts at 16-256 processes, where MPI timings are exact
# (docs/forecast.md "At scale"): unmodified ScaLAPACK PDGEMM and PDTRSM run here once per grid
# under libcolltune_record.so (real MPICH, oversubscribed with the UCX progress shim: timings
# meaningless, the trace time-independent: every message and each computation's CPU time), then
# each trace is replayed by SimGrid SMPI on star and rack platforms of N hosts (platform-gen.py,
# host speed set to 1 Gflop/s so a replayed computation takes the CPU time recorded here), and
# forecast by colltune-predict routine from a table colltune-calibrate measured on that
# platform under SMPI and a computation model benchmarked here. The replay keeps SMPI's own
# protocol threshold (64 KiB: a larger message holds its sender until it arrived and starts when
# the receiver is there, as MPICH's rendezvous; smaller ones leave their sender at once) and the
# forecast takes the same: SMPI sends eagerly what is below 65536 bytes, --eager names the
# largest eager size, 65535.
# Usage: bench/scalapack-smpi.sh BUILD BUILD_SMPI OUT
# Env: HOSTS (default "16"), KINDS (default "homo hetero racks"), SEED (default 23, a seed no
#   design used), SIZES (PDGEMM, default "2048 4096"; empty: none), BLOCKS (default "32 128"),
#   TRSM (default "LLN RUN"; empty: none), TRSM_SIZES (default "2048"), BUDGET (calibration,
#   simulated s; default 10), COMP (reuse a computation model), GRIDS (e.g. "8x32 16x16";
#   default every grid of each N).
set -euo pipefail
build=$(realpath "$1") smpi=$(realpath "$2") out=$3
mkdir -p "$out"
out=$(realpath "$out")
here=$(cd "$(dirname "$0")" && pwd)
hosts=${HOSTS:-16} kinds=${KINDS:-"homo hetero racks"} seed=${SEED:-23}
sizes=${SIZES-"2048 4096"} blocks=${BLOCKS:-"32 128"} trsm=${TRSM-"LLN RUN"}
trsm_sizes=${TRSM_SIZES:-2048} budget=${BUDGET:-10}
driver=$build/bench/scalapack_driver predict=$build/colltune-predict
# shellcheck source=bench/smpi-replay-lib.sh
. "$here/smpi-replay-lib.sh"
export OPENBLAS_NUM_THREADS=1  # the recorder times the calling thread's computation
if [ -z "${COMP:-}" ]; then
  "$predict" benchmark --output "$out/comp.yaml" >"$out/benchmark.log" 2>&1
  COMP=$out/comp.yaml
fi
grids_of() {  # every p x q = n, or those of GRIDS that have n processes
  local n=$1 p g
  if [ -n "${GRIDS:-}" ]; then
    for g in $GRIDS; do ((${g%x*} * ${g#*x} == n)) && echo "$g"; done
    return 0
  fi
  for ((p = 1; p <= n; p++)); do ((n % p == 0)) && echo "${p}x$((n / p))"; done
}
# The forecast's communication alone: the same computation model with every time a billionth.
python3 - "$COMP" "$out/comp-zero.yaml" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
for k in d["kernels"].values():
    k["coef"] = [c * 1e-9 for c in k["coef"]]
open(sys.argv[2], "w").write(yaml.safe_dump(d))
PY
echo "hosts,platform,routine,form,M,N,K,R,grid,replayed_s,forecast_s,error,recorded_compute_s,forecast_compute_s,replayed_comm_s,forecast_comm_s,trace_forecast_s" >"$out/smpi.csv"
for n in $hosts; do
  # 1. One trace per case and grid: the second MPI_Pcontrol window (the first timed call).
  cases=()
  for s in $sizes; do for r in $blocks; do cases+=("pdgemm:$s:$s:$s:$r"); done; done
  for s in $trsm_sizes; do for f in $trsm; do cases+=("pdtrsm:$f:$s:$s:64"); done; done
  for c in "${cases[@]}"; do
    for g in $(grids_of "$n"); do
      dir=$out/traces/$n/${c//:/-}-$g
      record_trace "$n" "$dir" 2 "$dir/driver.log" "$driver" --grid "$g" --reps 1 --seconds 0 "$c" ||
        echo "scalapack-smpi: recording $c on $g failed (see $dir/driver.log)" >&2
    done
  done
  for kind in $kinds; do
    replay_platform "$kind" "$n" "$seed" "$out/platforms/$kind$n"  # one computation model
    table=$out/table-$kind$n.yaml
    calibrated_table "$n" "$table" "$budget" "$out/calibrate-$kind$n.log"
    for c in "${cases[@]}"; do
      IFS=: read -r routine a b d e f <<<"$c"
      if [ "$routine" = pdgemm ]; then form=- M=$a N=$b K=$d R=$e; sz=$M,$N,$K; fa=()
      else form=$a M=$b N=$d K=- R=$e; sz=$M,$N; fa=(--form "$form"); fi
      for g in $(grids_of "$n"); do
        dir=$out/traces/$n/${c//:/-}-$g
        [ -s "$dir/traces" ] || continue
        args=(routine --table "$table" --routine "$routine" "${fa[@]}" --sizes "$sz" --block "$R"
              --grid "$g" --eager 65535 --format csv)
        row=$("$predict" "${args[@]}" --model "$COMP" 2>/dev/null | sed -n '2p') || true
        [ -n "$row" ] || continue  # a variant the forecast does not model
        fc=$(cut -d, -f4 <<<"$row") fcomp=$(cut -d, -f5 <<<"$row")
        fcomm=$("$predict" "${args[@]}" --model "$out/comp-zero.yaml" | sed -n '2p' | cut -d, -f4)
        rcomp=$(recorded_compute "$dir")
        rep=$(replayed_seconds "$n" "$dir/traces" --cfg=smpi/simulate-computation:yes) || true
        [ -n "$rep" ] || { echo "scalapack-smpi: replay of $dir failed" >&2; continue; }
        rcomm=$(replayed_seconds "$n" "$dir/traces") || true
        # The trace itself forecast by colltune-predict replay (its computation as recorded).
        tf=$(trace_forecast "$dir" "$table")
        err=$(python3 -c "print(f'{($fc - $rep) / $rep:.4f}')")
        echo "$n,$kind$n,$routine,$form,$M,$N,$K,$R,$g,$rep,$fc,$err,$rcomp,$fcomp,$rcomm,$fcomm,$tf" |
          tee -a "$out/smpi.csv"
      done
    done
  done
done
python3 "$here/scalapack-smpi-summary.py" "$out/smpi.csv" | tee "$out/summary.txt"

#!/usr/bin/env bash
# The Jacobi stencil's halo exchange alone (bench/apps/halo_chain.c: 5 processes in a chain,
# 10 iterations of MPI_Sendrecv down then up, 16 KiB between every pair but the last two, L
# bytes between those), with a slow host inside the chain: what exchanging with both
# neighbours at once costs on real MPICH, under SimGrid SMPI with and without its TCP
# crosstraffic model, and in colltune-predict's replay (docs/app-models.md, "Full-duplex
# exchanges"). L = 1, 4096, 16384.
#   bed:  the hetcluster bed config/hetcluster/chain5.yaml (as root): calibrated (30 s), each L
#         run 7 times (the median), recorded once and replayed on the bed's table (every
#         message eager: the bed runs UCX with UCX_RNDV_THRESH=inf);
#   smpi: platform-gen.py's hetero star of 16 hosts, seed 23, calibrated under SMPI (10 s); the
#         same pattern written as a time-independent trace, replayed by SMPI (messages under
#         64 KiB leave their sender at once) and by colltune-predict on the first 5 hosts.
# Usage: bench/halo-chain.sh BUILD BUILD_SMPI OUT [bed|smpi|both (default)]
set -euo pipefail
build=$(realpath "$1") smpi=$(realpath "$2") out=$3 which=${4:-both}
mkdir -p "$out"
out=$(realpath "$out")
here=$(cd "$(dirname "$0")" && pwd)
predict=$build/colltune-predict
sizes="1 4096 16384"
if [ "$which" != smpi ]; then
  "$here/../scripts/hetcluster" up "$here/../config/hetcluster/chain5.yaml" --build "$build" >/dev/null
  trap '"$here/../scripts/hetcluster" down >/dev/null' EXIT
  "$here/../scripts/hetcluster" run --no-preload -- "$build/colltune-calibrate" --budget 30 \
    --output "$out/bed-table.yaml" >"$out/bed-calibrate.log" 2>&1
  echo "L,measured_median_s,measured_min_s,measured_max_s,replay_s" >"$out/bed.csv"
  for l in $sizes; do
    "$here/../scripts/hetcluster" run --no-preload -- "$build/bench/app_halo_chain" 10 16384 "$l" 7 \
      >"$out/bed-run-$l.log" 2>&1
    read -r med lo hi < <(awk '/^halo_chain/ {print $6}' "$out/bed-run-$l.log" | sort -g |
      awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)], a[1], a[NR]}')
    dir=$out/bed-trace-$l
    rm -rf "$dir"
    mkdir -p "$dir"
    "$here/../scripts/hetcluster" run --no-preload --preload "$build/libcolltune_record.so" -- \
      env COLLTUNE_RECORD="$dir" COLLTUNE_RECORD_WINDOW=1 "$build/bench/app_halo_chain" 10 16384 \
      "$l" 1 >"$dir/run.log" 2>&1
    rep=$("$predict" replay "$dir" --table "$out/bed-table.yaml" --eager inf --format csv |
      awk -F, 'NR==2{print $3}')
    echo "$l,$med,$lo,$hi,$rep" | tee -a "$out/bed.csv"
  done
fi
if [ "$which" != bed ]; then
  # shellcheck source=bench/smpi-replay-lib.sh
  . "$here/smpi-replay-lib.sh"
  plat=$out/platforms/hetero16
  "$here/../scripts/platform-gen.py" --hosts 16 --kind hetero --seed 23 --out "$plat" >/dev/null
  export SMPI_PLATFORM=$plat
  calibrated_table 16 "$out/smpi-table.yaml" 10 "$out/smpi-calibrate.log"
  echo "L,smpi_s,smpi_no_crosstraffic_s,replay_s" >"$out/smpi.csv"
  for l in $sizes; do
    dir=$out/smpi-trace-$l
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 - "$dir" "$l" <<'PY'
import sys
d, last, n, m = sys.argv[1], int(sys.argv[2]), 5, 16384
size = lambda a, b: last if max(a, b) == n - 1 else m
with open(f"{d}/traces", "w") as tl:
    for r in range(n):
        tl.write(f"{d}/rank-{r}.ti\n")
        with open(f"{d}/rank-{r}.ti", "w") as o:
            o.write(f"{r} init\n")
            for _ in range(10):
                up, down = r - 1, r + 1
                if up >= 0: o.write(f"{r} irecv {up} 1 {size(up, r)}\n")
                if down < n: o.write(f"{r} send {down} 1 {size(r, down)}\n")
                if up >= 0: o.write(f"{r} wait {up} {r} 1\n")
                if down < n: o.write(f"{r} irecv {down} 2 {size(r, down)}\n")
                if up >= 0: o.write(f"{r} send {up} 2 {size(r, up)}\n")
                if down < n: o.write(f"{r} wait {down} {r} 2\n")
PY
    a=$(replayed_seconds 5 "$dir/traces")
    b=$(replayed_seconds 5 "$dir/traces" --cfg=network/crosstraffic:0)
    rep=$("$predict" replay "$dir" --table "$out/smpi-table.yaml" --eager 65535 --format csv |
      awk -F, 'NR==2{print $3}')
    echo "$l,$a,$b,$rep" | tee -a "$out/smpi.csv"
  done
fi

#!/usr/bin/env bash
# Selection-quality harness on SimGrid SMPI: for each platform x op x size x root, the time of
# every candidate (native = SMPI's default selection, linear, binomial) and of MPICH's own
# selection (smpi/coll-selector:mpich), to a CSV, then a summary: best per case, and how often
# each fixed choice is best and its regret (time / best).
#   bench/selection-quality.sh BUILD_SMPI_DIR OUT_DIR [HOSTS...]   (default hosts: 16 64 256)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd) out=$2
shift 2
if [ $# -gt 0 ]; then hosts=("$@"); else hosts=(16 64 256); fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/selection.csv
echo "label,np,op,bytes,root,algorithm,seconds" >"$csv"
bench=$build/tests/smpi/smpi_bench_algorithms
for n in "${hosts[@]}"; do
  for kind in homo hetero; do
    plat=$out/platforms/$kind$n
    "$here/../scripts/platform-gen.py" --hosts "$n" --kind "$kind" --seed 11 --out "$plat"
    roots="0,$((n / 2)),$((n - 1))"
    sizes=1024,65536,1048576
    for sel in default mpich; do
      extra=""
      [ "$sel" = mpich ] && extra="--cfg=smpi/coll-selector:mpich"
      echo "== $kind$n, native = $sel selection" >&2
      # 64 MiB shared-malloc blocks: 1 MiB blocks exceed vm.max_map_count at 256 ranks.
      SMPI_PLATFORM=$plat SMPI_EXTRA_CFG="$extra --cfg=smpi/reduce:binomial --cfg=smpi/shared-malloc-blocksize:67108864" \
        "$here/../tests/smpi/smpi-exec.sh" -n "$n" "$bench" --reps 1 --sizes "$sizes" \
        --roots "$roots" --csv "$csv.$sel" --label "$kind$n" >/dev/null
    done
    # native under the MPICH selector becomes the candidate "mpich"
    awk -F, -v OFS=, '$6 == "native" {$6 = "mpich"; print}' "$csv.mpich" >>"$csv"
    cat "$csv.default" >>"$csv"
    rm -f "$csv.mpich" "$csv.default"
  done
done
python3 "$here/selection-summary.py" "$csv" | tee "$out/summary.txt"

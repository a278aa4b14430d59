#!/usr/bin/env bash
# Selection quality of calibrated colltune on SimGrid SMPI, with MPICH's selection as native
# (smpi/coll-selector:mpich). Per platform (the star clusters of bench/selection-quality.sh,
# which do not follow LMO: flows share each host's link): colltune-calibrate on all ranks, then
# bench/algorithms times every candidate (native = MPICH's selection, linear, binomial) with
# window timing on three communicators: all ranks ("world", the calibrated one), the first
# half and all ranks in reversed order (not calibrated), and records the candidate the model
# picks for each case. Summary (bench/selection-calibrated-summary.py): regret of colltune's
# pick against the best candidate per case and its speed-up over MPICH's selection.
#   bench/selection-calibrated.sh BUILD_SMPI_DIR OUT_DIR [HOSTS...]   (default hosts: 16 64)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd) out=$2
shift 2
if [ $# -gt 0 ]; then hosts=("$@"); else hosts=(16 64); fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/selection-calibrated.csv
echo "label,np,op,bytes,root,algorithm,seconds" >"$csv"
export SMPI_EXTRA_CFG="--cfg=smpi/coll-selector:mpich --cfg=smpi/reduce:binomial --cfg=smpi/shared-malloc-blocksize:67108864"
for n in "${hosts[@]}"; do
  for kind in homo hetero; do
    plat=$out/platforms/$kind$n
    "$here/../scripts/platform-gen.py" --hosts "$n" --kind "$kind" --seed 11 --out "$plat" >/dev/null
    export SMPI_PLATFORM=$plat
    table=$out/table-$kind$n.yaml
    echo "== $kind$n: calibrating" >&2
    "$here/../tests/smpi/smpi-exec.sh" -n "$n" "$build/tests/smpi/smpi_colltune_calibrate" \
      --output "$table" > "$out/calibrate-$kind$n.log"
    grep "done in" "$out/calibrate-$kind$n.log" >&2
    for comm in world half reversed; do
      m=$n
      [ "$comm" = half ] && m=$((n / 2))
      echo "== $kind$n $comm" >&2
      "$here/../tests/smpi/smpi-exec.sh" -n "$n" "$build/tests/smpi/smpi_bench_algorithms" \
        --reps 1 --timing window --comm "$comm" --model "$table" \
        --sizes 1024,16384,65536,262144,1048576 --roots "0,$((m / 2)),$((m - 1))" \
        --csv "$csv" --label "$kind$n-$comm" >/dev/null
    done
  done
done
python3 "$here/selection-calibrated-summary.py" "$csv" | tee "$out/summary.txt"

#!/usr/bin/env bash
# colltune-bench -> CSV (two timing methods) -> scripts/plot-bench -> PNG files that are PNGs.
#   bench-plot-test.sh COLLTUNE_BENCH SOURCE_DIR
set -euo pipefail
bench=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for m in max root; do
  "${MPIEXEC:-mpiexec}" -n 2 "$bench" --op gather --sizes 0:4096:1024 --timing $m --max-reps 10 \
    --algorithms native,linear,binomial --csv "$dir/$m.csv" >/dev/null
done
{ head -1 "$dir/max.csv"; tail -q -n +2 "$dir/max.csv" "$dir/root.csv"; } >"$dir/all.csv"
[ "$(wc -l <"$dir/all.csv")" = 31 ] || { echo "FAIL: expected 30 rows"; exit 1; }  # 5 sizes x 3 x 2
"$src/scripts/plot-bench" "$dir/all.csv" | tee "$dir/list"
[ "$(wc -l <"$dir/list")" = 5 ] || { echo "FAIL: expected 2 + 3 plots"; exit 1; }
while read -r png; do
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "FAIL: $png is not a PNG"; exit 1; }
  [ "$(stat -c %s "$png")" -gt 5000 ] || { echo "FAIL: $png is too small to hold a plot"; exit 1; }
done <"$dir/list"
msg=$("$src/scripts/plot-bench" /nonexistent.csv 2>&1) && { echo "FAIL: a missing CSV succeeded"; exit 1; }
case "$msg" in
  "plot-bench: /nonexistent.csv"*) ;;
  *) echo "FAIL: no clear error for a missing CSV: $msg"; exit 1 ;;
esac
echo "bench-plot: PASS"

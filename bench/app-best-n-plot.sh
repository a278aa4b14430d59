#!/usr/bin/env bash
# The README's plot of colltune-predict app --best-n: forecast time and the chance that a node
# fails during the run against N, for the Jacobi model on the MERPSYS paper's Galera+ node
# (docs/app-models.md). Usage: bench/app-best-n-plot.sh BUILD OUT.png
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) png=$2
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
"$build/colltune-predict" app "$src/config/apps/jacobi.yaml" --node "$src/config/nodes/galera-plus.yaml" \
  --costs merpsys --best-n 1:131072 --per-node 12 --var N=20000 --var iters=2000 \
  --objective expected --checkpoint 60 --format csv >"$csv"
cat "$csv"
best=$(awk -F, 'NR>1 && $12 == "true" {print $1}' "$csv")
gnuplot <<GP
set terminal pngcairo size 900,520 font ",11"
set output "$png"
set datafile separator ","
set logscale x 2
set logscale y 10
set logscale y2 10
set format x "2^{%L}"
set xlabel "processes N (12 per Galera+ node)"
set ylabel "forecast time, s"
set y2label "chance that a node fails during the run"
set ytics nomirror
set y2tics
set key top center
set title "Jacobi 20000^2, 2000 iterations, Galera+ (MERPSYS): best N = $best by expected time"
plot "$csv" every ::1 using 1:5 with linespoints lw 2 title "time", \
     "$csv" every ::1 using 1:9 with linespoints lw 2 dt 2 title "expected time with failures", \
     "$csv" every ::1 using 1:(1-\$8) axes x1y2 with linespoints lw 2 title "1 - success (right)"
GP
echo "wrote $png"

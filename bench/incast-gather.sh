#!/usr/bin/env bash
# Gather escalations on the hetcluster bed (docs/model-trees.md, "Escalations on the bed"): the
# 8 hosts of config/hetcluster/8hosts-incast.yaml with queues of QUEUE packets, calibrated
# (BUDGET seconds), then RUNS runs of bench/algorithms on gather at medium
# sizes, root 0, every registry candidate of gather; `split` forced from uniform costs (8 KiB
# segments; no --model). With M1=BYTES, also RUNS runs with the calibrated table's M1 set to
# BYTES by hand (a what-if: split's segments as calibration would size them had it measured
# escalations from BYTES) and that table's predictions. As root; the bed goes down on exit.
#   bench/incast-gather.sh BUILD OUT QUEUE [BUDGET (300)] [RUNS (3)] [M1=BYTES]
# Writes OUT/table.yaml, report.txt, calibrate.txt, forced-split.txt and, with M1,
# table-whatif-m1-BYTES.yaml, whatif-m1-BYTES.txt, whatif-m1-BYTES-predicted.csv.
set -euo pipefail
if [ $# -lt 3 ] || [ $# -gt 6 ]; then
  echo "usage: bench/incast-gather.sh BUILD OUT QUEUE [BUDGET (300)] [RUNS (3)] [M1=BYTES]" >&2
  exit 2
fi
[ "$(id -u)" = 0 ] || { echo "incast-gather: needs root (network namespaces)" >&2; exit 2; }
build=$(cd "$1" && pwd) out=$2 queue=$3 budget=${4:-300} runs=${5:-3} whatif=${6:-}
case "$queue" in ''|*[!0-9]*) echo "incast-gather: QUEUE: '$queue' (valid: packets, 2..100000)" >&2; exit 2;; esac
m1=
if [ -n "$whatif" ]; then
  m1=${whatif#M1=}
  case "$whatif:$m1" in M1=*:*[!0-9]*|M1=*: |[!M]*) echo "incast-gather: '$whatif' (valid: M1=BYTES)" >&2; exit 2;; esac
fi
src=$(cd "$(dirname "$0")/.." && pwd)
het=$src/scripts/hetcluster
bench=$build/bench/bench_algorithms
for x in "$build/colltune-calibrate" "$bench" "$build/colltune-predict" "$build/colltune-nfq-delay"; do
  [ -x "$x" ] || { echo "incast-gather: $x not built" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
spec=$out/spec.yaml
sed "s/queue_packets: [0-9]*/queue_packets: $queue/" "$src/config/hetcluster/8hosts-incast.yaml" >"$spec"
export COLLTUNE_CONFIG=none COLLTUNE_CALIBRATE=never
unset COLLTUNE_IDENTITY
trap '"$het" down >/dev/null 2>&1 || true' EXIT
"$het" up "$spec" --build "$build"
echo "== calibrating (budget $budget s)" >&2
"$het" run --no-preload -- "$build/colltune-calibrate" --budget "$budget" \
  --output "$out/table.yaml" --report "$out/report.txt" >"$out/calibrate.txt"
grep "thresholds" "$out/report.txt" >&2
sizes=8192,16384,32768,65536,131072
: >"$out/forced-split.txt"
for i in $(seq "$runs"); do
  echo "== forced run $i of $runs" >&2
  "$het" run --no-preload -- "$bench" --ops gather --sizes "$sizes" --reps 11 --roots 0 |
    grep '^gather' | sed "s/^/run$i /" | tee -a "$out/forced-split.txt"
done
if [ -n "$m1" ]; then
  t=$out/table-whatif-m1-$m1.yaml
  sed "s/^    M1: \[.*\]/    M1: [$m1, 0]/" "$out/table.yaml" >"$t"
  : >"$out/whatif-m1-$m1.txt"
  for i in $(seq "$runs"); do
    echo "== what-if run $i of $runs (M1 = $m1 B)" >&2
    "$het" run --no-preload -- "$bench" --ops gather --sizes "$sizes" --reps 11 --roots 0 \
      --model "$t" | grep '^gather' | sed "s/^/run$i /" | tee -a "$out/whatif-m1-$m1.txt"
  done
  # split is no candidate without a sweep of its own (registry: decided false): every
  # algorithm's prediction is asked for by name.
  for a in native linear binomial split; do
    "$build/colltune-predict" coll --table "$t" --op gather --root 0 --bytes "$sizes" \
      --algorithm "$a" --format csv
  done | awk 'NR == 1 || !/^op,/' >"$out/whatif-m1-$m1-predicted.csv"
fi

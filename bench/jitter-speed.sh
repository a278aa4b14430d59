#!/usr/bin/env bash
# colltune-jitter's simulation speed (docs/jitter.md): a trace collected here (or TRACE), then
# 1K, 64K and 1M tasks x 100 phases of 1 ms with a binary-tree barrier, unsynchronized starts;
# prints task-phases per second and the wall time of each (target: 1M x 100 in at most 10 s).
#   bench/jitter-speed.sh BUILD_DIR OUT_DIR [TRACE]
set -euo pipefail
build=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
trace=${3:-}
if [ -z "$trace" ]; then
  "$build/colltune-jitter" collect --duration 5 --cores 0 --output "$out/here" >/dev/null
  trace=$out/here-core0.trace
fi
"$build/colltune-jitter" summary "$trace"
"$build/colltune-jitter" simulate --trace "$trace" --tasks 1024,65536,1048576 --phases 100 \
  --reps 1 --quantum-us 1000 --csv "$out/jitter-speed.csv"

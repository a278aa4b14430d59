#!/usr/bin/env bash
# Mitigations side by side (docs/jitter.md): one trace, unsynchronized, synchronized and
# co-scheduled starts, 1 to 1M tasks (powers of two), 100 phases of 1 ms, binary-tree barrier,
# 3 repetitions each; CSV and a gnuplot PNG with one curve per mode.
#   bench/jitter-mitigation.sh BUILD_DIR OUT_DIR TRACE [extra simulate options]
set -euo pipefail
build=$(cd "$1" && pwd) out=$2 trace=$3
shift 3
mkdir -p "$out"
"$build/colltune-jitter" simulate --trace "$trace" --tasks 1:1048576 --phases 100 --reps 3 \
  --quantum-us 1000 --mode unsync,sync,cosched --high-us 9500 --low-us 500 \
  --csv "$out/jitter-mitigation.csv" --plot "$out/jitter-mitigation.png" "$@"

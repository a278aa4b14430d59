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
# The same at ten times the events (a synthetic trace: 1.3% noise in about 394K events over
# 10 s, one every 25 us, seed 3): the simulator's cost should not follow the events crossed.
python3 - "$trace" "$out/dense.trace" <<'PY'
import random, sys
random.seed(3)
head = [l for l in open(sys.argv[1]).read().split("\n") if l.startswith("#")]
hz = float(next(l.split(":")[1] for l in head if l.startswith("# hz:")))
rows, total = [], 0
while total < 10 * hz:
    g, j = int(random.expovariate(1 / 65000)), int(random.expovariate(1 / 650)) + 180
    rows.append(f"{j} {g}")
    total += g + j
open(sys.argv[2], "w").write("\n".join(head) + "\n" + "\n".join(rows) + "\n")
PY
"$build/colltune-jitter" summary "$out/dense.trace" | head -1
"$build/colltune-jitter" simulate --trace "$out/dense.trace" --tasks 1048576 --phases 100 \
  --reps 1 --quantum-us 1000 --csv "$out/jitter-speed-dense.csv"

#!/usr/bin/env bash
# colltune-jitter against a real program on this machine (docs/jitter.md): a trace of each core
# collected here, then bench_jitter_bsp (compute phases of QUANTUM_US and a binary-tree barrier)
# at np 1 and 2, one rank per core, and colltune-jitter's prediction for 1 and 2 tasks on one
# node from core 0's trace; prints both slowdowns and their difference.
#   bench/jitter-real.sh BUILD_DIR OUT_DIR [PHASES] [QUANTUM_US]
set -euo pipefail
build=$(cd "$1" && pwd) out=$2 phases=${3:-3000} q=${4:-1000}
mkdir -p "$out"
"$build/colltune-jitter" collect --duration 10 --output "$out/real" | grep -E "noise|wrote"
for np in 1 2; do
  measured=$(mpiexec -n "$np" -bind-to core "$build/bench/bench_jitter_bsp" "$phases" "$q")
  echo "measured:  $measured"
  m=$(echo "$measured" | sed 's/.*slowdown //')
  predicted=$("$build/colltune-jitter" simulate --trace "$out/real-core0.trace" --tasks "$np" \
    --tasks-per-node 2 --phases "$phases" --quantum-us "$q" --reps 20 --shm-send-ns 300 \
    --shm-recv-ns 300 --shm-wire-ns 200 | tail -1)
  echo "predicted: $predicted"
  p=$(echo "$predicted" | awk '{print $4}')
  python3 -c "print('np $np: measured slowdown $m, predicted $p, difference %+.2f%%' % (100 * ($p / $m - 1)))"
done

#!/usr/bin/env bash
# All-pairs roundtrips (colltune-bench --op p2p-all), parallel rounds against one pair at a time,
# on the simulated platforms of build-smpi (exact, noise-free: both modes return the same pair
# times, so equal accuracy at equal repetitions). Besides the measured speed-up it prints the
# best any schedule can reach: a process takes part in one pair at a time, so the run lasts at
# least max_i sum_j T_ij, while one pair at a time takes sum_{i<j} T_ij (T_ij: the pair's
# roundtrip series, from the platform's ground truth).
#   bench/p2p-all.sh BUILD_SMPI [BYTES] [REPS] [PLATFORM...]
# MIN_EFFICIENCY=F (environment): exit 1 when a speed-up is below F times the best possible.
set -euo pipefail
build=$(realpath "${1:?usage: p2p-all.sh BUILD_SMPI [BYTES] [REPS] [PLATFORM...]}")
bytes=${2:-4096}
reps=${3:-100}
shift $(($# < 3 ? $# : 3))
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(homo8 hetero8 homo16 hetero16)
src=$(cd "$(dirname "$0")/.." && pwd)
echo "| platform | parallel (s) | sequential (s) | speed-up | best possible | parallel / its lower bound |"
echo "|---|---|---|---|---|---|"
for p in "${platforms[@]}"; do
  dir=$build/tests/smpi/platforms/$p
  n=$(wc -l < "$dir/hostfile")
  t=()
  for mode in "" --sequential; do
    t+=("$(SMPI_PLATFORM=$dir "$src/tests/smpi/smpi-exec.sh" -n "$n" \
           "$build/tests/smpi/smpi_colltune_bench" --op p2p-all --sizes "$bytes" \
           --min-reps "$reps" --max-reps "$reps" $mode |
           sed -n 's/^# benchmark time: \([0-9.e+-]*\) s.*/\1/p')")
  done
  PYTHONPATH=$src/tests/smpi python3 - "$dir/truth.yaml" "$bytes" "$reps" "$p" "${t[0]}" "${t[1]}" <<'EOF'
import os, sys
import smpi_truth
truth, m, reps, name, par, seq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], \
    float(sys.argv[5]), float(sys.argv[6])
h, envelope = smpi_truth.load(truth)
n = len(h)
rt = {(i, j): reps * 2 * smpi_truth.one_way(h, i, j, m, envelope)
      for i in range(n) for j in range(i + 1, n)}
total = sum(rt.values())
per = max(sum(v for k, v in rt.items() if i in k) for i in range(n))
print(f"| {name} | {par:.4f} | {seq:.4f} | {seq / par:.2f} | {total / per:.2f} | {par / per:.3f} |")
need = float(os.environ.get("MIN_EFFICIENCY", "0"))
if seq / par < need * total / per:
    print(f"BELOW BOUND: {name}: speed-up {seq / par:.3f} < {need} x {total / per:.3f}")
    sys.exit(1)
EOF
done

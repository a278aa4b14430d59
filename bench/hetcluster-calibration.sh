#!/usr/bin/env bash
# Calibration on the 8-host hetcluster bed (real MPICH between emulated hosts) with a budget
# long enough for the sweeps to pass 64 KiB, checked against the bed's ground truth: link
# per-byte times, fixed delays, held-out prediction error from 64 KiB; wall time. As root.
#   bench/hetcluster-calibration.sh BUILD OUT [BUDGET_SECONDS (300)]
# Writes OUT/hetcluster8-table.yaml, -calibrate.txt (progress, parameters, report),
# -check.txt (check-calibration.py), -report.png; about BUDGET * 0.7 s.
set -euo pipefail
build=$(cd "$1" && pwd) out=$2 budget=${3:-300}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
het=$src/scripts/hetcluster
trap '"$het" down >/dev/null' EXIT
"$het" up "$src/config/hetcluster/8hosts.yaml" --build "$build"
state=${HETCLUSTER_STATE:-/run/colltune-hetcluster}
start=$(date +%s.%N)
"$het" run --no-preload -- "$build/colltune-calibrate" --output "$out/hetcluster8-table.yaml" \
  --budget "$budget" --report "$out/hetcluster8-report.txt" | tee "$out/hetcluster8-calibrate.txt"
echo "wall time of mpiexec colltune-calibrate: $(echo "$(date +%s.%N) - $start" | bc) s" |
  tee -a "$out/hetcluster8-calibrate.txt"
python3 "$src/tests/hetcluster/check-calibration.py" "$state/truth.yaml" \
  "$out/hetcluster8-table.yaml" | tee "$out/hetcluster8-check.txt"

#!/usr/bin/env bash
# Evidence for the model-built collectives on the 8-host hetcluster bed (config/hetcluster/
# 8hosts.yaml: real MPICH between emulated hosts, shaped TCP links), the real-network
# counterpart of bench/model-trees.sh. As root. Brings the bed up (down again on exit),
# calibrates it (colltune-calibrate, BUDGET seconds), then RUNS runs of bench/algorithms on
# all 8 ranks with the calibrated table: per case every registry candidate (native = MPICH's
# own selection, linear and binomial the fixed ones, ecef, model_linear the
# trees built from the model), repetitions rotating through the candidates (max timing:
# median over 11 repetitions of the max over ranks), and colltune's pick per case. Cases are
# off the calibration's grid and partly off its roots: sizes 1500, 24000, 90000 bytes (the
# calibration measures 2^(k/2)), roots 0, 3 and 7 (the calibration uses 0 and n-1 = 7; 3 is
# new). Summary (bench/model-trees-summary.py --hetcluster, into OUT/het8-summary.txt and per
# case OUT/het8-cases.csv): per case the median and min..max over runs, speed-up over MPICH,
# gain over the best fixed candidate, and distance to a lower bound from the bed's ground truth.
#   [SPEC=config/hetcluster/8hosts.yaml] [SIZES=1500,24000,90000] [TABLE=FILE] \
#   bench/model-trees-hetcluster.sh BUILD OUT [BUDGET_SECONDS (90)] [RUNS (3)]
# Writes OUT/het8-table.yaml, -report.txt, -calibrate.txt (calibration progress), -truth.yaml
# (the bed's ground truth), het8.csv (rows of every run, labels het8-run1..RUNS), het8-runK.txt
# (each run's own table), het8-summary.txt, het8-cases.csv. Cost: the calibration (its budget,
# BUDGET s) plus RUNS runs of 27 cases x 4-5 candidates x 13 repetitions (2 warm-up); the
# ground truth's lower bounds alone sum to 55 s per run, so expect about 2 minutes per run
# (estimated, not measured): about 8 minutes with the defaults.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 4 ]; then
  echo "usage: bench/model-trees-hetcluster.sh BUILD OUT [BUDGET_SECONDS (90)] [RUNS (3)]" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "model-trees-hetcluster: needs root (network namespaces)" >&2
  exit 2
fi
build=$(cd "$1" && pwd) out=$2 budget=${3:-90} runs=${4:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
bench=$build/bench/bench_algorithms
for x in "$build/colltune-calibrate" "$bench" "$build/colltune-nfq-delay"; do
  [ -x "$x" ] || { echo "model-trees-hetcluster: $x not built" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
het=$src/scripts/hetcluster
state=${HETCLUSTER_STATE:-/run/colltune-hetcluster}
# No configuration, no calibration at startup; each rank's identity is its host's name
# (hetcluster run sets COLLTUNE_IDENTITY unless it is already set: it must not be).
export COLLTUNE_CONFIG=none COLLTUNE_CALIBRATE=never
unset COLLTUNE_IDENTITY
trap '"$het" down >/dev/null 2>&1 || true' EXIT
"$het" up "${SPEC:-$src/config/hetcluster/8hosts.yaml}" --build "$build"
if [ -n "${TABLE:-}" ]; then  # calibrated before, on the same SPEC
  cp "$TABLE" "$out/het8-table.yaml"
else
  echo "== calibrating the bed (budget $budget s)" >&2
  "$het" run --no-preload -- "$build/colltune-calibrate" --budget "$budget" \
    --output "$out/het8-table.yaml" --report "$out/het8-report.txt" | tee "$out/het8-calibrate.txt"
fi
cp "$state/truth.yaml" "$out/het8-truth.yaml"
csv=$out/het8.csv
echo "label,np,op,bytes,root,algorithm,seconds" >"$csv"
for i in $(seq "$runs"); do
  echo "== run $i of $runs" >&2
  "$het" run --no-preload -- "$bench" --reps 11 --timing max --model "$out/het8-table.yaml" \
    --sizes "${SIZES:-1500,24000,90000}" --roots 0,3,7 --csv "$csv" --label "het8-run$i" >"$out/het8-run$i.txt"
done
python3 "$src/bench/model-trees-summary.py" --hetcluster "$csv" "$out/het8-truth.yaml" |
  tee "$out/het8-summary.txt"

#!/usr/bin/env bash
# Validates colltune-predict's routine forecasts against unmodified ScaLAPACK (docs/forecast.md):
# times PDGEMM and PDTRSM (one call of each of FAST's four cases) on every grid of GRIDS with
# bench/scalapack_driver, then forecasts each case from a table calibrated here and a computation
# model benchmarked here, and writes the errors and the best-grid agreement.
# Usage: bench/scalapack.sh BUILD OUT [GRIDS]    (GRIDS default "1x1 1x2 2x1": np <= 2 runs at
#   real speed here; 3-4 processes oversubscribe the 2 cores and run with the UCX progress shim)
# Env: TABLE, COMP (reuse a table / computation models, space-separated), SIZES (default "512 1024 2048 4096"),
#   BLOCKS (default "32 64 128"), BUDGET (seconds of timing per case, default 1).
# Never beside other jobs: the timings are the evidence.
set -euo pipefail
build=$(realpath "$1") out=$2
grids=${3:-"1x1 1x2 2x1"}
sizes=${SIZES:-"512 1024 2048 4096"} blocks=${BLOCKS:-"32 64 128"}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
driver=$build/bench/scalapack_driver
[ -x "$driver" ] || { echo "scalapack.sh: $driver missing (install libscalapack-mpich-dev, rebuild)" >&2; exit 2; }
export OPENBLAS_NUM_THREADS=1
if [ -z "${TABLE:-}" ]; then
  mpiexec.mpich -n 2 "$build/colltune-calibrate" --budget 20 --output "$out/table.yaml" >"$out/calibrate.log" 2>&1
  TABLE=$out/table.yaml
fi
# Computation models at 1 process and at one per core (neighbours running the same kernels).
comps=()
if [ -z "${COMP:-}" ]; then
  for occ in 1 "$(nproc)"; do
    "$build/colltune-predict" benchmark --occupancy "$occ" --output "$out/comp-$occ.yaml" \
      >"$out/benchmark-$occ.log" 2>&1
    comps+=(--comp "$out/comp-$occ.yaml")
  done
else
  for c in $COMP; do comps+=(--comp "$c"); done
fi
cases=()
for n in $sizes; do
  for r in $blocks; do
    cases+=("pdgemm:$n:$n:$n:$r")
    for c in LUN RUN LLN RLN; do cases+=("pdtrsm:$c:$n:$n:$r"); done  # FAST's cases 1-4
  done
done
: >"$out/measured.txt"
for g in $grids; do
  np=$(( ${g%x*} * ${g#*x} ))
  shim=()
  [ "$np" -gt 2 ] && shim=(env LD_PRELOAD="$build/tests/libcolltune_test_ucxshim.so")
  echo "grid $g: ${#cases[@]} cases" >&2
  timeout 3000 mpiexec.mpich -n "$np" "${shim[@]}" "$driver" --grid "$g" --seconds "${BUDGET:-1}" \
    "${cases[@]}" | tee -a "$out/measured.txt" >&2
done
# One host: every process of every grid on the table's (first) identity.
host=$(python3 -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))['model']['identities'][0])" "$TABLE")
python3 "$here/scalapack-compare.py" --host "$host" --predict "$build/colltune-predict" --table "$TABLE" \
  "${comps[@]}" --plot "$out/forecast" "$out/measured.txt" | tee "$out/summary.txt"

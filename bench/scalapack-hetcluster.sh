#!/usr/bin/env bash
# Unmodified ScaLAPACK on the hetcluster bed (4 and 8 emulated hosts, real MPICH over shaped
# TCP, one process per host) against colltune-predict's forecasts from the bed's calibrated
# table (docs/forecast.md). As root; never beside other jobs (the bed's links are timed).
# Usage: bench/scalapack-hetcluster.sh BUILD OUT [TABLE]
#   TABLE: the bed's calibrated table (default bench/results/model-trees-hetcluster8-chain/
#   het8-table.yaml); env COMP (computation models, default tests/data/comp-vm.yaml: the bed's
#   hosts are this VM), SIZES (default "512 1024"), BLOCKS (default 64), ROUTINES (default
#   "pdgemm pdtrsm"), GRIDS4 and GRIDS8 (the grids on 4 and 8 hosts, default every one).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) out=$2
table=${3:-$src/bench/results/model-trees-hetcluster8-chain/het8-table.yaml}
sizes=${SIZES:-"512 1024"} blocks=${BLOCKS:-64}
mkdir -p "$out"
het=$src/scripts/hetcluster
driver=$build/bench/scalapack_driver
[ -x "$driver" ] || { echo "scalapack-hetcluster.sh: $driver missing" >&2; exit 2; }
trap '"$het" down >/dev/null' EXIT
# ROUTINES (default "pdgemm pdtrsm"): which to time.
cases_for() {
  local out=()
  for n in $sizes; do
    for r in $blocks; do
      case " ${ROUTINES:-pdgemm pdtrsm} " in *" pdgemm "*) out+=("pdgemm:$n:$n:$n:$r") ;; esac
      case " ${ROUTINES:-pdgemm pdtrsm} " in
        *" pdtrsm "*) for c in LUN RUN LLN RLN; do out+=("pdtrsm:$c:$n:$n:$r"); done ;;
      esac
    done
  done
  echo "${out[@]}"
}
: >"$out/measured.txt"
for hosts in 4 8; do
  "$het" up "$src/config/hetcluster/${hosts}hosts.yaml" --build "$build" >/dev/null
  grids=${GRIDS4:-"1x4 2x2 4x1"}
  [ "$hosts" = 8 ] && grids=${GRIDS8:-"1x8 2x4 4x2 8x1"}
  for g in $grids; do
    echo "$hosts hosts, grid $g" >&2
    # shellcheck disable=SC2046
    timeout 1800 "$het" run --no-preload -- env OPENBLAS_NUM_THREADS=1 "$driver" --grid "$g" \
      --seconds 0 $(cases_for "$g") | tee -a "$out/measured.txt" >&2
  done
  "$het" down >/dev/null
done
comps=()
for c in ${COMP:-$src/tests/data/comp-vm.yaml}; do comps+=(--comp "$c"); done
# The bed runs UCX with UCX_RNDV_THRESH=inf (scripts/hetcluster): every message is eager.
python3 "$src/bench/scalapack-compare.py" --predict "$build/colltune-predict" --table "$table" \
  --eager inf "${comps[@]}" --plot "$out/forecast" "$out/measured.txt" | tee "$out/summary.txt"

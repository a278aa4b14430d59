#!/usr/bin/env bash
# What a model table costs every process in MPI_Init (docs/calibration.md, "Tables of many
# identities"): resident memory after MPI_Init, its peak, and the wall time of the whole run,
# np 1, without libcolltune.so, preloaded without a table, and preloaded with each TABLE
# (its platform need not be this one: the table is loaded and checked either way).
# Usage: bench/table-memory.sh BUILD TABLE...
set -euo pipefail
build=$(realpath "$1")
shift
run() {  # LABEL ENV...
  local label=$1 t0 out
  shift
  t0=$(date +%s.%N)
  out=$(env COLLTUNE_CONFIG=none "$@" mpiexec.mpich -n 1 "$build/bench/init_rss" 2>/dev/null |
    grep '^init_rss')
  echo "$label ${out#init_rss } wall_s $(echo "$(date +%s.%N) - $t0" | bc)"
}
run "native"
run "preloaded, no table" LD_PRELOAD="$build/libcolltune.so" COLLTUNE_MODEL=none
for t in "$@"; do
  run "$(basename "$t") ($(stat -c %s "$t") bytes)" LD_PRELOAD="$build/libcolltune.so" \
    COLLTUNE_MODEL="$(realpath "$t")"
done

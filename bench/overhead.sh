#!/usr/bin/env bash
# Interception overhead at np 2, in ns per MPI_Bcast call (0 and 8 bytes), three ways, run
# interleaved for ROUNDS rounds (median reported):
#   none     no preload (MPICH alone)
#   forced   LD_PRELOAD, COLLTUNE_BCAST_ALGORITHM=native (wrapper short-circuit to PMPI)
#   lookup   LD_PRELOAD, auto, a rule that resolves to native: the full cached per-call path
#   model    LD_PRELOAD, a calibrated model table (margin 10: every decision native): the
#            model-driven per-call path (decisions per root, cached)
#   recorder libcolltune_record.so preloaded without COLLTUNE_RECORD (docs/recording.md): its
#            pass-through when not recording
# Usage: bench/overhead.sh BUILD_DIR [ROUNDS] [CALLS]
set -eu
build=${1:-build} rounds=${2:-5} calls=${3:-200000}
lib=$build/libcolltune.so prog=$build/bench/bench_overhead
here=$(cd "$(dirname "$0")" && pwd)
export COLLTUNE_CALIBRATE=never
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpiexec -n 2 "$build/colltune-calibrate" --quick --budget 2 --output "$tmp/model.yaml" >/dev/null
sed -i 's/^  margin: .*/  margin: 10/' "$tmp/model.yaml"
modes="none forced lookup model recorder"
declare -A r0 r8
for i in $(seq "$rounds"); do
  for mode in $modes; do
    case $mode in
      none) out=$(mpiexec -n 2 "$prog" "$calls") ;;
      forced) out=$(COLLTUNE_CONFIG=none COLLTUNE_BCAST_ALGORITHM=native \
                    mpiexec -n 2 env LD_PRELOAD="$lib" "$prog" "$calls") ;;
      lookup) out=$(COLLTUNE_CONFIG="$here/overhead-rules.yaml" \
                    mpiexec -n 2 env LD_PRELOAD="$lib" "$prog" "$calls") ;;
      model) out=$(COLLTUNE_CONFIG=none COLLTUNE_MODEL="$tmp/model.yaml" \
                   mpiexec -n 2 env LD_PRELOAD="$lib" "$prog" "$calls") ;;
      recorder) out=$(env -u COLLTUNE_RECORD \
                      mpiexec -n 2 env LD_PRELOAD="$build/libcolltune_record.so" "$prog" "$calls") ;;
    esac
    r0[$mode]+="$(echo "$out" | awk '/bcast_0B_ns/{print $2}') "
    r8[$mode]+="$(echo "$out" | awk '/bcast_8B_ns/{print $2}') "
  done
done
med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
printf '%-8s %12s %12s %14s %14s\n' mode 0B_ns/call 8B_ns/call added_0B_ns added_8B_ns
b0=$(echo "${r0[none]}" | med) b8=$(echo "${r8[none]}" | med)
for mode in $modes; do
  m0=$(echo "${r0[$mode]}" | med) m8=$(echo "${r8[$mode]}" | med)
  printf '%-8s %12.1f %12.1f %14.1f %14.1f\n' "$mode" "$m0" "$m8" \
    "$(echo "$m0 - $b0" | bc -l)" "$(echo "$m8 - $b8" | bc -l)"
done

#!/usr/bin/env bash
# colltune against every bcast, scatter and gather algorithm and every MPI's selection that
# SimGrid implements, on clusters of multi-core nodes (scripts/cluster-gen.py).
#
# Per platform (KIND:NODES:CORES) and network model (exact: the settings of
# tests/smpi/smpi-exec.sh; default: SimGrid's own SMPI model, its bandwidth and latency factors
# and its eager threshold): colltune-calibrate as a first launch does it (--quick, the first
# launch's default budget of 3 s; CALIBRATION=full: the command's defaults, 10 s and the built
# trees' own sweeps, about 15x the wall time), MPICH's selection as native; then bench/algorithms --model times colltune's candidates and records its pick per case;
# then one run per SimGrid algorithm (--cfg=smpi/OP:NAME) and per selector
# (--cfg=smpi/coll-selector:NAME) times MPI_Bcast/Scatter/Gather as that algorithm. Window
# timing, one repetition (SMPI is deterministic). Summary: bench/zoo-summary.py.
#
#   bench/zoo.sh BUILD_SMPI_DIR OUT_DIR [KIND:NODES:CORES ...]
#   MODELS="exact default" SIZES=1024,... CALIBRATION=first-launch|full (environment)
# Default platforms: flat:8:8 two-gen:8:16 fat-tree:16:8 flat:16:16.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd) out=$2
shift 2
if [ $# -gt 0 ]; then plats=("$@"); else plats=(flat:8:8 two-gen:8:16 fat-tree:16:8 flat:16:16); fi
models=${MODELS:-exact default}
case ${CALIBRATION:-first-launch} in
  first-launch) calibrate=(--quick --budget 3) ;;
  full) calibrate=() ;;
  *) echo "zoo: CALIBRATION=$CALIBRATION: valid: first-launch, full" >&2; exit 2 ;;
esac
sizes=${SIZES:-1024,8192,65536,524288}
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/zoo.csv
[ -f "$csv" ] || echo "label,np,op,bytes,root,algorithm,seconds" >"$csv"
exec_smpi() { "$here/../tests/smpi/smpi-exec.sh" "$@"; }
algos() {  # SimGrid's algorithms of op $1 (its own list), selectors and "automatic" aside
  SMPI_EXTRA_CFG="--cfg=smpi/$1:none-such" exec_smpi -n 2 "$build/tests/smpi/smpi_bench_algorithms" \
    --reps 1 --sizes 1 --ops "$1" 2>&1 | grep -o 'Valid algorithms: .*' | sed 's/Valid algorithms: //; s/\.$//' |
    tr ',' '\n' | tr -d ' ' | grep -v -x -E 'default|automatic|mpich|ompi|mvapich2|impi'
}
base="--cfg=smpi/reduce:binomial --cfg=smpi/shared-malloc-blocksize:67108864"
for model in $models; do
  case $model in
    exact) net="" ;;
    default) net="--cfg=network/model:SMPI --cfg=smpi/send-is-detached-thresh:65536" ;;
    *) echo "zoo: model $model: valid: exact, default" >&2; exit 2 ;;
  esac
  for spec in "${plats[@]}"; do
    IFS=: read -r kind nodes cores <<<"$spec"
    label=$kind-${nodes}x$cores-$model
    plat=$out/platforms/$kind-${nodes}x$cores
    np=$("$here/../scripts/cluster-gen.py" --nodes "$nodes" --cores "$cores" --kind "$kind" --out "$plat")
    export SMPI_PLATFORM=$plat
    roots="0,$((np / 3)),$((np - 1))"
    table=$out/table-$label.yaml
    if [ ! -f "$table" ]; then
      echo "== $label ($np processes): calibrating" >&2
      start=$SECONDS
      SMPI_EXTRA_CFG="--cfg=smpi/coll-selector:mpich $base $net" exec_smpi -n "$np" \
        "$build/tests/smpi/smpi_colltune_calibrate" ${calibrate[@]+"${calibrate[@]}"} \
        --output "$table" >"$out/calibrate-$label.log" 2>&1
      echo "  $(grep "done in" "$out/calibrate-$label.log") ($((SECONDS - start)) s wall)" >&2
    fi
    if grep -q "^$label," "$csv"; then continue; fi  # measured by an earlier run
    rows=$out/rows-$label.csv
    : >"$rows"
    echo "== $label: colltune" >&2
    SMPI_EXTRA_CFG="--cfg=smpi/coll-selector:mpich $base $net" exec_smpi -n "$np" \
      "$build/tests/smpi/smpi_bench_algorithms" --reps 1 --timing window --model "$table" \
      --sizes "$sizes" --roots "$roots" --csv "$rows" --label "$label" >"$out/colltune-$label.txt"
    one() {  # $1: name in the CSV, $2: op, $3: SimGrid settings. Where SimGrid crashes (some
      # of its algorithms do at some roots), each root alone, so that the others are kept.
      local tmp=$out/one-$label.csv r
      for r in "$roots" ${roots//,/ }; do
        : >"$tmp"
        if SMPI_EXTRA_CFG="$3 $base $net" exec_smpi -n "$np" "$build/tests/smpi/smpi_bench_algorithms" \
          --reps 1 --timing window --algorithms native --sizes "$sizes" --roots "$r" \
          --ops "$2" --csv "$tmp" --label "$label" >/dev/null 2>"$out/one-$label.err"; then
          { grep ",native," "$tmp" || true; } | sed "s/,native,/,$1,/" >>"$rows"
          [ "$r" = "$roots" ] && return 0
        else
          echo "  $1 $2 roots $r failed: $(grep -v '^ *->' "$out/one-$label.err" | tail -1)" >&2
        fi
      done
    }
    for sel in mpich ompi mvapich2 impi default; do
      echo "== $label: selector $sel" >&2
      for op in bcast scatter gather; do
        one "selector:$sel" "$op" "--cfg=smpi/coll-selector:$sel"
      done
    done
    for op in bcast scatter gather; do
      for a in $(algos "$op"); do
        echo "== $label: $op $a" >&2
        one "simgrid:$a" "$op" "--cfg=smpi/coll-selector:mpich --cfg=smpi/$op:$a"
      done
    done
    cat "$rows" >>"$csv"
  done
done
python3 "$here/zoo-summary.py" "$csv" | tee "$out/summary.txt"

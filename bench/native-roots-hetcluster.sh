#!/usr/bin/env bash
# MPICH's own bcast at every root of the 8-host hetcluster bed, beside what a calibrated table
# predicts there: which algorithm MPICH runs (its selection, the same with the device's
# collectives off, and scatter + recursive-doubling allgather forced) and how far the model of
# native is from it at roots calibration never swept. As root; brings the bed up and down.
#   [SPEC=config/hetcluster/8hosts.yaml] [SIZES=24000,90000] \
#   bench/native-roots-hetcluster.sh BUILD OUT [TABLE]
# Writes OUT/roots.csv (label,np,op,bytes,root,algorithm,seconds; labels auto, devnone,
# forced, auto2: every candidate, 11 repetitions, max timing), OUT/LABEL.txt, and with TABLE
# OUT/predicted.csv (colltune-info --predict at every root). About 4 minutes.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: bench/native-roots-hetcluster.sh BUILD OUT [TABLE]" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "native-roots-hetcluster: needs root (network namespaces)" >&2
  exit 2
fi
build=$(cd "$1" && pwd) out=$2 table=${3:-}
src=$(cd "$(dirname "$0")/.." && pwd)
bench=$build/bench/bench_algorithms
for x in "$bench" "$build/colltune-info" "$build/colltune-nfq-delay"; do
  [ -x "$x" ] || { echo "native-roots-hetcluster: $x not built" >&2; exit 2; }
done
[ -z "$table" ] || [ -f "$table" ] || { echo "native-roots-hetcluster: $table: no such file" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
sizes=${SIZES:-24000,90000}
het=$src/scripts/hetcluster
export COLLTUNE_CONFIG=none COLLTUNE_CALIBRATE=never
unset COLLTUNE_IDENTITY
trap '"$het" down >/dev/null 2>&1 || true' EXIT
"$het" up "${SPEC:-$src/config/hetcluster/8hosts.yaml}" --build "$build" >/dev/null
echo "label,np,op,bytes,root,algorithm,seconds" >"$out/roots.csv"
run() {  # LABEL [VAR=VALUE...]: one pass over every root, MPICH's settings from the environment
  local label=$1
  shift
  echo "== $label $*" >&2
  env "$@" "$het" run --no-preload -- "$bench" --reps 11 --timing max --ops bcast \
    --sizes "$sizes" --roots 0,1,2,3,4,5,6,7 --csv "$out/roots.csv" --label "$label" \
    ${table:+--model "$table"} >"$out/$label.txt"
}
run auto
run devnone MPIR_CVAR_DEVICE_COLLECTIVES=none
run forced MPIR_CVAR_DEVICE_COLLECTIVES=none \
  MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_recursive_doubling_allgather
run auto2
if [ -n "$table" ]; then
  cp "$table" "$out/table.yaml"
  echo "op,bytes,root,algorithm,predicted_s,picked" >"$out/predicted.csv"
  for root in 0 1 2 3 4 5 6 7; do
    "$build/colltune-info" --predict "$table" bcast "$root" "$sizes" | tail -n +2 >>"$out/predicted.csv"
  done
fi
# Per size and root: native under each label, chain (the built pipeline), and the prediction.
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import collections, csv, os, sys
out = sys.argv[1]
meas = collections.defaultdict(dict)
for r in csv.DictReader(open(os.path.join(out, "roots.csv"))):
    meas[(int(r["bytes"]), int(r["root"]))][(r["label"], r["algorithm"])] = float(r["seconds"]) * 1e3
pred = {}
if os.path.exists(os.path.join(out, "predicted.csv")):
    for r in csv.DictReader(open(os.path.join(out, "predicted.csv"))):
        if r["algorithm"] == "native":
            pred[(int(r["bytes"]), int(r["root"]))] = float(r["predicted_s"]) * 1e3
labels = ["auto", "devnone", "forced", "auto2"]
print("bytes root  native ms: " + " ".join(f"{l:>7}" for l in labels) + "   chain  predicted")
for key in sorted(meas):
    m = meas[key]
    cells = " ".join(f"{m.get((l, 'native'), float('nan')):7.1f}" for l in labels)
    print(f"{key[0]:5} {key[1]:4}             {cells} {m.get(('auto', 'chain'), float('nan')):7.1f}"
          f" {pred.get(key, float('nan')):9.1f}")
PY

#!/usr/bin/env bash
# What preloading colltune changes in ScaLAPACK's PDGESV on the hetcluster bed: RUNS pairs of
# runs, native (MPICH alone) and colltune (libcolltune.so with TABLE, COLLTUNE_MODEL)
# alternating, one verbose preloaded run after them for the decisions and the stats
# (docs/app-models.md "Two-dimensional grids"). As root.
#   bench/pdgesv-preload-hetcluster.sh BUILD OUT TABLE HOSTS GRID N [RUNS (3)]
set -euo pipefail
export OPENBLAS_NUM_THREADS=1
if [ $# -lt 6 ]; then
  echo "usage: bench/pdgesv-preload-hetcluster.sh BUILD OUT TABLE HOSTS GRID N [RUNS]" >&2
  exit 2
fi
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) out=$2 hosts=$4 g=$5 N=$6 runs=${7:-3}
table=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
mkdir -p "$out"
het=$src/scripts/hetcluster pdg=$build/bench/app_pdgesv
p=${g%x*} q=${g#*x}
f=$out/preload-bed$hosts-$g-N$N.txt
trap '"$het" down >/dev/null 2>&1 || true' EXIT
"$het" up "$src/config/hetcluster/${hosts}hosts.yaml" --build "$build" >/dev/null
{
  echo "# bed, $hosts hosts, PDGESV N $N NB 64 on $g, alternating runs; native: hetcluster run"
  echo "# --no-preload; colltune: COLLTUNE_MODEL=$table hetcluster run"
  echo "# fields: pdgesv N NB p q seconds error warmup_seconds"
} >"$f"
for _ in $(seq "$runs"); do
  echo "native $("$het" run --no-preload -- "$pdg" "$N" 64 "$p" "$q" | tail -1)" >>"$f"
  echo "colltune $(COLLTUNE_MODEL="$table" "$het" run -- "$pdg" "$N" 64 "$p" "$q" | tail -1)" >>"$f"
done
echo "# COLLTUNE_VERBOSE=1 COLLTUNE_STATS=1, one more preloaded run (counts of lines):" >>"$f"
COLLTUNE_MODEL="$table" COLLTUNE_VERBOSE=1 COLLTUNE_STATS=1 "$het" run -- "$pdg" "$N" 64 "$p" "$q" 2>&1 |
  grep '^colltune:' | sort | uniq -c | sort -rn >>"$f" || true
python3 - "$f" <<'PY' | tee -a "$f"
import statistics, sys
t = {"native": [], "colltune": []}
for l in open(sys.argv[1]):
    w = l.split()
    if w and w[0] in t and len(w) > 6:
        t[w[0]].append(float(w[6]))
n, c = statistics.median(t["native"]), statistics.median(t["colltune"])
print(f"# native median {n:.3f} s ({min(t['native']):.3f}-{max(t['native']):.3f}), colltune "
      f"{c:.3f} s ({min(t['colltune']):.3f}-{max(t['colltune']):.3f}): {n / c:.3f}x")
PY

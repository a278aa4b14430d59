#!/usr/bin/env bash
# ScaLAPACK's PDGESV (bench/apps/pdgesv.c) on two-dimensional process grids of the hetcluster
# bed (real MPICH between emulated hosts, shaped TCP), forecast from a recorded run against the
# measured time (docs/app-models.md "Two-dimensional grids"). On a p x q grid BLACS's row and
# column broadcasts and combines are collectives on communicators of part of the processes;
# the recorder writes them as `ACTION@K` (docs/recording.md) and `colltune-predict replay`
# prices each on its members. Per case: RUNS runs of the program (the timed solve: median, min,
# max), one recorded run (window 2, the timed solve), the replay on TABLE with MPICH's
# collectives and with colltune's. As root.
#   bench/pdgesv-grids-hetcluster.sh BUILD OUT TABLE    Env: SIZES ("1024 2048"), RUNS (3),
#   GRIDS4 ("2x2"), GRIDS8 ("2x4 4x2"), LINKS (a links file the replay takes: --links),
#   SHARED_CORES (the cores the bed's processes share: --shared-cores)
set -euo pipefail
export OPENBLAS_NUM_THREADS=1  # one core per process
if [ $# -ne 3 ]; then
  echo "usage: bench/pdgesv-grids-hetcluster.sh BUILD OUT TABLE" >&2
  exit 2
fi
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) out=$2
table=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
mkdir -p "$out"
out=$(cd "$out" && pwd)
het=$src/scripts/hetcluster pdg=$build/bench/app_pdgesv rec=$build/libcolltune_record.so
sizes=${SIZES:-"1024 2048"} runs=${RUNS:-3}
links=()
[ -z "${LINKS:-}" ] || links=(--links "$(realpath "$LINKS")")
[ -z "${SHARED_CORES:-}" ] || links+=(--shared-cores "$SHARED_CORES")
csv=$out/cases.csv
echo "platform,np,grid,N,measured_median,measured_min,measured_max,trace_mpich,trace_colltune" >"$csv"
trap '"$het" down >/dev/null 2>&1 || true' EXIT
for hosts in 4 8; do
  "$het" up "$src/config/hetcluster/${hosts}hosts.yaml" --build "$build" >/dev/null
  grids=${GRIDS4:-2x2}
  [ "$hosts" = 8 ] && grids=${GRIDS8:-"2x4 4x2"}
  for g in $grids; do
    p=${g%x*} q=${g#*x}
    for N in $sizes; do
      times=()
      for _ in $(seq "$runs"); do
        times+=("$("$het" run --no-preload -- "$pdg" "$N" 64 "$p" "$q" | tail -1 | awk '{print $6}')")
      done
      read -r med lo hi < <(python3 -c 'import sys,statistics as s; v=sorted(map(float,sys.argv[1:])); print(s.median(v), v[0], v[-1])' "${times[@]}")
      dir=$out/trace-bed$hosts-$g-N$N
      rm -rf "$dir"
      COLLTUNE_RECORD="$dir" COLLTUNE_RECORD_WINDOW=2 "$het" run --no-preload --preload "$rec" -- \
        "$pdg" "$N" 64 "$p" "$q" >/dev/null
      t=$("$build/colltune-predict" replay "$dir" --table "$table" --eager inf "${links[@]}" --format csv |
        awk -F, 'NR>1{printf "%s%s", (NR>2 ? "," : ""), $3}')
      echo "bed$hosts,$hosts,$g,$N,$med,$lo,$hi,$t" | tee -a "$csv"
    done
  done
  "$het" down >/dev/null
done
python3 - "$csv" <<'PY' | tee "$out/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| platform | grid | N | measured, s (min-max) | trace (MPICH's collectives), s | error |")
print("|---|---|---|---|---|---|")
errs = {}
for r in rows:
    e = float(r["trace_mpich"]) / float(r["measured_median"]) - 1
    errs.setdefault(r["platform"], []).append(abs(e))
    print(f"| {r['platform']} | {r['grid']} | {r['N']} | {float(r['measured_median']):.3f} "
          f"({float(r['measured_min']):.3f}-{float(r['measured_max']):.3f}) | "
          f"{float(r['trace_mpich']):.3f} | {100 * e:+.1f}% |")
for p, e in sorted(errs.items()) + [("all", [x for v in errs.values() for x in v])]:
    print(f"{p}: |error| median {100 * statistics.median(e):.1f}%, max {100 * max(e):.1f}% ({len(e)} cases)")
PY

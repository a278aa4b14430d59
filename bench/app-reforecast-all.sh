#!/usr/bin/env bash
# Every bed run kept (bench/results/forecast/inbox-2026-11-29/README.txt lists them, and the
# held-out runs after it: bed-inbox-, bed-calls-, bed-trees-2026-11-29, workingset-2026-11-29/bed, bed-pieces-2026-11-29) forecast
# again by BUILD on the shipped 8-host table and the held-out links, into OUT/RUN.csv, and the
# |error| median / max over all of them (the trace's and the hand model's) into OUT/summary.txt.
#   bench/app-reforecast-all.sh BUILD OUT      (seconds; unpacks the runs not committed as folders)
# TABLE=FILE replaces the shipped table.
set -eu
build=$1 out=$2
src=$(cd "$(dirname "$0")/.." && pwd)
r=$src/bench/results/forecast
T=${TABLE:-$src/bench/results/model-trees-hetcluster8-shipped/het8-table.yaml}
L=$r/small-messages-hetcluster-2026-11-29/heldout-links/links.yaml
mkdir -p "$out/runs/bedinbox" "$out/runs/bedcalls" "$out/runs/bedtrees" "$out/runs/bedws" "$out/runs/bedpk"
tar xJf "$r/inbox-2026-11-29/bed-runs.tar.xz" -C "$out/runs"
tar xJf "$r/bed-inbox-2026-11-29/traces.tar.xz" -C "$out/runs/bedinbox"
cp "$r"/bed-inbox-2026-11-29/{cases.csv,rates.txt,node-bed4.yaml,node-bed8.yaml} "$out/runs/bedinbox/"
tar xJf "$r/bed-calls-2026-11-29/traces.tar.xz" -C "$out/runs/bedcalls"
cp "$r"/bed-calls-2026-11-29/{cases.csv,rates.txt,node-bed4.yaml,node-bed8.yaml} "$out/runs/bedcalls/"
tar xJf "$r/bed-trees-2026-11-29/traces.tar.xz" -C "$out/runs/bedtrees"
cp "$r"/bed-trees-2026-11-29/{cases.csv,rates.txt,node-bed4.yaml,node-bed8.yaml} "$out/runs/bedtrees/"
tar xJf "$r/workingset-2026-11-29/bed/traces.tar.xz" -C "$out/runs/bedws"
cp "$r"/workingset-2026-11-29/bed/{cases.csv,rates.txt,node-bed4.yaml,node-bed8.yaml} "$out/runs/bedws/"
tar xJf "$r/bed-pieces-2026-11-29/traces.tar.xz" -C "$out/runs/bedpk"
cp "$r"/bed-pieces-2026-11-29/{cases.csv,rates.txt,node-bed4.yaml,node-bed8.yaml} "$out/runs/bedpk/"
# RUN FOLDER SHARED_CORES (0: wall-clock recordings, no sharing)
while read -r name dir cores; do
  c=()
  [ "$cores" = 0 ] || c=(--shared-cores "$cores")
  "$src/bench/app-reforecast.py" "$build" "$dir" "$T" --links "$L" "${c[@]}" --out "$out/$name.csv" >/dev/null
done <<RUNS
bednew $r/bed-new-sizes-2026-11-29 0
wall1 $out/runs/wall1 0
wall2 $out/runs/wall2 0
cpu1 $out/runs/cpu1 2
bed26 $r/app-validation-2026-11-26/bed 2
val-bed $out/runs/val-bed 2
val-bed2 $out/runs/val-bed2 2
pdg1792 $out/runs/pdg1792 2
bedinbox $out/runs/bedinbox 0
bedcalls $out/runs/bedcalls 0
bedtrees $out/runs/bedtrees 0
bedws $out/runs/bedws 0
bedpk $out/runs/bedpk 0
RUNS
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import csv, statistics, sys, pathlib
rows = []
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.csv")):
    for r in csv.DictReader(open(f)):
        r["run"] = f.stem
        rows.append(r)
def err(r, k):
    return 100 * (float(r[k]) / float(r["measured"]) - 1)
for k in ("model", "trace"):
    for app in ("all", "jacobi", "mw", "pdgesv"):
        e = [abs(err(r, k)) for r in rows if app in ("all", r["app"])]
        print(f"{k:12} {app:7} {len(e):3} cases  median {statistics.median(e):5.1f}%  max {max(e):5.1f}%")
    for grid in ("p=1", "p=P"):  # PDGESV on 1 x P, and on P x 1
        e = [err(r, k) for r in rows if r["app"] == "pdgesv" and (r["params"].endswith(" p=1")) == (grid == "p=1")]
        print(f"{k:12} pdgesv {grid} {len(e):3} cases  signed median {statistics.median(e):+5.1f}%  range {min(e):+5.1f}..{max(e):+5.1f}%")
# By protocol: the hand model's rates one run's (before bed-new-sizes) or the median of three;
# the trace recorded on the CPU clock (replayed with shared cores) or on the wall clock.
RATES3 = {"bednew", "bedinbox", "bedcalls", "bedtrees", "bedws", "bedpk"}
WALL = RATES3 | {"wall1", "wall2"}
for k, now in (("model", RATES3), ("trace", WALL)):
    for label, keep in (("as run since", True), ("before", False)):
        e = [abs(err(r, k)) for r in rows if (r["run"] in now) == keep]
        print(f"{k:12} protocol {label:12} {len(e):3} cases  median {statistics.median(e):5.1f}%  max {max(e):5.1f}%")
# The same case measured in more than one run: how far the bed's measurements of it spread.
same = {}
for r in rows:
    same.setdefault((r["platform"], r["app"], r["params"]), []).append(r)
for key, rs in same.items():
    if len(rs) > 1:
        m = [float(r["measured"]) for r in rs]
        runs = " ".join(f'{r["run"]}:{float(r["measured"]):.3f}' for r in rs)
        print(f"same case {' '.join(key):48} measured spread {100 * (max(m) / min(m) - 1):5.1f}%  {runs}")
for r in rows:
    print(f'{r["run"]:9} {r["platform"]} {r["app"]:7} {r["params"]:30} model {err(r, "model"):+6.1f}% trace {err(r, "trace"):+6.1f}%')
PY

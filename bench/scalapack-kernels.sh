#!/usr/bin/env bash
# What the kernels of unmodified PDGEMM cost inside it and by themselves, at the same moment:
# bench/scalapack_driver runs PDGEMM (N x N x N, block R) on each grid with
# libcolltune_blas_timer.so preloaded (every dgemm and PBLAS copy timed by shape), then
# dgemm_alone times the grid's main dgemm shape alone and as many at once as the grid has
# processes, with fresh panels per call as PBLAS gives them. Separates a forecast's error into
# its kernels (benchmark against in place), PBLAS's copies, and the rest (messages and waits).
#   bench/scalapack-kernels.sh BUILD OUT [GRIDS ("1x1 1x2 2x1")]   env N (2048), R (64), REPS (8)
# Writes OUT/kernels-GRID.PID (per process: routine m n k calls seconds), OUT/driver.txt,
# OUT/alone.txt and OUT/summary.txt. Never beside other jobs: the timings are the evidence.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: bench/scalapack-kernels.sh BUILD OUT [GRIDS]" >&2
  exit 2
fi
build=$(realpath "$1") out=$2
grids=${3:-"1x1 1x2 2x1"}
n=${N:-2048} r=${R:-64} reps=${REPS:-8}
driver=$build/bench/scalapack_driver timer=$build/bench/libcolltune_blas_timer.so
alone=$build/bench/dgemm_alone
for x in "$driver" "$timer" "$alone"; do
  [ -e "$x" ] || { echo "scalapack-kernels.sh: $x missing (libscalapack-mpich-dev, rebuild)" >&2; exit 2; }
done
mkdir -p "$out"
out=$(realpath "$out")
export OPENBLAS_NUM_THREADS=1
: >"$out/driver.txt"
: >"$out/alone.txt"
for g in $grids; do
  np=$((${g%x*} * ${g#*x}))
  [ "$np" -le "$(nproc)" ] || { echo "scalapack-kernels.sh: $g needs $np cores" >&2; exit 2; }
  rm -f "$out/kernels-$g".*
  mpiexec.mpich -n "$np" env LD_PRELOAD="$timer" COLLTUNE_BLAS_TIMER="$out/kernels-$g" \
    "$driver" --grid "$g" --reps "$reps" --seconds 1000 "pdgemm:$n:$n:$n:$r" | tee -a "$out/driver.txt"
  # The shape with the most time on the first process, alone and np at once.
  read -r m nn k calls <<<"$(sort -k6 -g -r "$(ls "$out/kernels-$g".* | head -1)" |
    awk '$1 == "dgemm" { print $2, $3, $4, $5; exit }')"
  echo "$g alone 1 $("$alone" "$m" "$nn" "$k" "$calls" fresh)" | tee -a "$out/alone.txt"
  if [ "$np" -gt 1 ]; then
    for i in $(seq "$np"); do "$alone" "$m" "$nn" "$k" "$calls" fresh >"$out/alone-$g-$i.txt" & done
    wait
    for i in $(seq "$np"); do echo "$g alone $np $(cat "$out/alone-$g-$i.txt")"; done | tee -a "$out/alone.txt"
    rm -f "$out/alone-$g"-*.txt
  fi
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import collections, glob, os, re, sys
out = sys.argv[1]
routine, ran = {}, {}
for line in open(os.path.join(out, "driver.txt")):
    m = re.search(r"grid=(\S+) .* median_s=(\S+) .*reps=(\d+)", line)
    if m:
        routine[m.group(1)] = float(m.group(2))
        ran[m.group(1)] = int(m.group(3)) + 1  # the driver's warm-up call, then its reps
alone = collections.defaultdict(list)
for line in open(os.path.join(out, "alone.txt")):
    g, _, np_, m, n, k, s = line.split()
    alone[(g, int(np_))].append(float(s))
print("per PDGEMM call (the driver's median; kernels and copies: the mean over its calls, warm-up\n"
      "included, of the process with the most dgemm time), seconds; dgemm per call of its main shape")
print(f"{'grid':5} {'routine':>9} {'dgemm':>9} {'copies':>9} {'rest':>9}   {'in place':>9} {'alone':>9} {'all at once':>11}")
for g in routine:
    dg, cp, main = 0.0, 0.0, None
    for path in glob.glob(os.path.join(out, f"kernels-{g}.*")):
        d = c = 0.0
        best = None
        for line in open(path):
            name, m, n, k, ncalls, s = line.split()
            if name == "dgemm":
                d += float(s)
                if best is None or float(s) > best[1]:
                    best = (int(ncalls), float(s))
            elif name.startswith("dmm") or name == "dlacpy":
                c += float(s)
        if d / ran[g] > dg:
            dg, cp, main = d / ran[g], c / ran[g], best
    place = main[1] / main[0] if main else float("nan")
    a1 = alone.get((g, 1), [float("nan")])[0]
    np_ = max(k[1] for k in alone if k[0] == g)
    together = max(alone[(g, np_)]) if np_ > 1 else float("nan")
    print(f"{g:5} {routine[g]:9.4f} {dg:9.4f} {cp:9.4f} {routine[g] - dg - cp:9.4f}   "
          f"{place:9.6f} {a1:9.6f} {together:11.6f}")
PY

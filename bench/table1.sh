#!/usr/bin/env bash
# Table 1 of the MPIBlib paper (docs/benchmarking.md) on our test beds: native scatter and gather over 0..100 KiB in
# 1 KiB steps, one repetition each, under global, max and root timing. Prints the benchmark's
# own time per method and each method's agreement with global timing; writes the CSVs to OUT.
#   bench/table1.sh smpi BUILD_SMPI OUT        simulated 16-host heterogeneous cluster
#   bench/table1.sh hetcluster BUILD OUT       8 emulated hosts, real MPICH (root; brings the
#                                              bed up from config/hetcluster/8hosts.yaml and down)
set -euo pipefail
bed=${1:?usage: table1.sh smpi|hetcluster BUILD OUT}
build=$(realpath "${2:?build folder}")
out=${3:?output folder}
mkdir -p "$out"
out=$(realpath "$out")
src=$(cd "$(dirname "$0")/.." && pwd)
sweep=(--algorithms native --sizes 0:102400:1024 --min-reps 1 --max-reps 1)

case $bed in
  smpi)
    plat=$build/tests/smpi/platforms/hetero16
    run() { SMPI_PLATFORM=$plat "$src/tests/smpi/smpi-exec.sh" -n 16 \
              "$build/tests/smpi/smpi_colltune_bench" "$@"; } ;;
  hetcluster)
    "$src/scripts/hetcluster" up "$src/config/hetcluster/8hosts.yaml" --build "$build" >/dev/null
    trap '"$src/scripts/hetcluster" down >/dev/null' EXIT
    run() { "$src/scripts/hetcluster" run --no-preload -- "$build/bench/colltune-bench" "$@"; } ;;
  *) echo "table1.sh: unknown bed '$bed' (smpi, hetcluster)" >&2; exit 2 ;;
esac

for op in scatter gather; do
  for t in global max root; do
    start=$(date +%s.%N)
    run --op "$op" "${sweep[@]}" --timing "$t" --csv "$out/$op-$t.csv" > "$out/$op-$t.txt"
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    bt=$(sed -n 's/^# benchmark time: \([0-9.e+-]*\) s.*/\1/p' "$out/$op-$t.txt")
    printf '%s %s %s %.1f\n' "$op" "$t" "$bt" "$wall" >> "$out/times.txt.tmp"
  done
done
mv "$out/times.txt.tmp" "$out/times.txt"

python3 - "$out" <<'EOF'
import csv, statistics, sys
out = sys.argv[1]
def load(op, t):
    return {int(r["bytes"]): float(r["mean_s"]) for r in csv.DictReader(open(f"{out}/{op}-{t}.csv"))}
rows = {}
for line in open(f"{out}/times.txt"):
    op, t, bt, wall = line.split()
    rows[(op, t)] = (float(bt), float(wall))
# The method's own cost: benchmark time minus the time the 101 operations took (their sum as
# global timing measured it, the same operations under every method).
print("| timing | scatter: benchmark time (s) | gather | scatter: method's own cost (s) | gather "
      "| scatter: wall incl. launch (s) | gather |")
print("|---|---|---|---|---|---|---|")
for t in ("global", "max", "root"):
    s, g = rows[("scatter", t)], rows[("gather", t)]
    so = s[0] - sum(load("scatter", "global").values())
    go = g[0] - sum(load("gather", "global").values())
    print(f"| {t} | {s[0]:.3f} | {g[0]:.3f} | {so:.3f} | {go:.3f} | {s[1]:.1f} | {g[1]:.1f} |")
print()
print("Agreement with global timing, sizes > 0 (relative difference):")
print("| | median | 90th percentile | largest | sum of times (s) |")
print("|---|---|---|---|---|")
for op in ("scatter", "gather"):
    g = load(op, "global")
    print(f"| {op}, global | | | | {sum(g.values()):.4f} |")
    for t in ("max", "root"):
        m = load(op, t)
        d = sorted(abs(m[b] - g[b]) / g[b] for b in g if b > 0)
        p90 = d[int(0.9 * (len(d) - 1))]
        print(f"| {op}, {t} | {statistics.median(d) * 100:.1f}% | {p90 * 100:.1f}% | "
              f"{d[-1] * 100:.1f}% | {sum(m.values()):.4f} |")
EOF

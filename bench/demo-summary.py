#!/usr/bin/env python3
"""Speed of an unmodified application with colltune against native MPICH, from alternating runs.

  demo-summary.py --native N.txt --colltune C.txt [--log VERBOSE.txt --info COLLTUNE_INFO
                  --table TABLE] [--csv OUT.csv]

N.txt and C.txt hold bench_demo_app's rows "op bytes root us" of every round, one round after
the other (same rows in the same order each round). For every (op, bytes, root): the decision
colltune made (from the COLLTUNE_VERBOSE=1 log), the gain the table predicted for it (native /
chosen, colltune-info --predict) and the measured speed-up native / colltune per round: min,
median, max. Where colltune ran native, the ratio is the cost of interception plus noise.
"""
import argparse
import csv
import re
import statistics
import subprocess
import sys


def rows(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) != 4:
            continue
        out.setdefault((f[0], int(f[1]), int(f[2])), []).append(float(f[3]))
    return out


def decisions(path):
    """(op, root) -> [(lo, hi, algorithm)] from the verbose log of MPI_COMM_WORLD."""
    d = {}
    pat = re.compile(r"colltune: (bcast|scatter|gather) on MPI_COMM_WORLD\([^)]*\), bytes "
                     r"\[(\d+), (\d+|max)\](?:, root (\d+))?: (\w+) \((.*)\)$")
    for line in open(path):
        m = pat.search(line.strip())
        if m:
            hi = float("inf") if m.group(3) == "max" else int(m.group(3))
            root = int(m.group(4)) if m.group(4) else -1
            d.setdefault((m.group(1), root), []).append((int(m.group(2)), hi, m.group(5)))
    return d


def chosen(dec, op, root, nbytes):
    for key in ((op, root), (op, -1)):
        for lo, hi, alg in dec.get(key, []):
            if lo <= nbytes <= hi:
                return alg
    return "?"


def predicted(info, table, op, root, sizes):
    """(bytes, algorithm) -> predicted seconds."""
    out = subprocess.run([info, "--predict", table, op, str(root), ",".join(map(str, sizes))],
                         capture_output=True, text=True, check=True).stdout
    p = {}
    for r in csv.reader(out.splitlines()):
        if len(r) >= 5 and r[0] == op:
            p[(int(r[1]), r[3])] = float(r[4])
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", required=True)
    ap.add_argument("--colltune", required=True)
    ap.add_argument("--log")
    ap.add_argument("--info")
    ap.add_argument("--table")
    ap.add_argument("--csv")
    a = ap.parse_args()
    nat, col = rows(a.native), rows(a.colltune)
    dec = decisions(a.log) if a.log else {}
    pred = {}
    if a.info and a.table:
        for op, root in sorted({(k[0], k[2]) for k in nat}):
            sizes = sorted({k[1] for k in nat if k[0] == op and k[2] == root})
            pred[(op, root)] = predicted(a.info, a.table, op, root, sizes)
    table = []
    print("%-8s %8s %4s %-9s %10s %10s %10s %9s  %s" %
          ("op", "bytes", "root", "decision", "native_us", "ours_us", "predicted", "measured",
           "min..max over rounds"))
    for key in sorted(nat, key=lambda k: (["bcast", "scatter", "gather"].index(k[0]), k[2], k[1])):
        if key not in col:
            continue
        n, c = nat[key], col[key]
        k = min(len(n), len(c))
        ratios = [n[i] / c[i] for i in range(k) if c[i] > 0]
        alg = chosen(dec, key[0], key[2], key[1])
        p = pred.get((key[0], key[2]), {})
        gain = ""
        if (key[1], "native") in p and (key[1], alg) in p and p[(key[1], alg)] > 0:
            gain = "%.2fx" % (p[(key[1], "native")] / p[(key[1], alg)])
        med = statistics.median(ratios)
        print("%-8s %8d %4d %-9s %10.1f %10.1f %10s %8.2fx  %.2f..%.2f" %
              (key[0], key[1], key[2], alg, statistics.median(n), statistics.median(c), gain, med,
               min(ratios), max(ratios)))
        table.append([key[0], key[1], key[2], alg, statistics.median(n), statistics.median(c),
                      gain, med, min(ratios), max(ratios), k])
    tuned = [r for r in table if r[3] not in ("native", "?")]
    kept = [r for r in table if r[3] == "native"]
    if kept:
        med = statistics.median([r[7] for r in kept])
        print("where colltune kept native (%d cases): native / preloaded median %.3f, cases "
              "%.2f..%.2f (the cost of interception and noise)" %
              (len(kept), med, min(r[7] for r in kept), max(r[7] for r in kept)))
    if tuned:
        print("where colltune chose another algorithm (%d cases): measured speed-up median %.2fx "
              "(%.2f..%.2f)" % (len(tuned), statistics.median([r[7] for r in tuned]),
                                min(r[7] for r in tuned), max(r[7] for r in tuned)))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["op", "bytes", "root", "decision", "native_us", "colltune_us",
                        "predicted_gain", "measured_median", "measured_min", "measured_max",
                        "rounds"])
            w.writerows(table)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The summary of a bench/scalapack-smpi.sh CSV (docs/forecast.md "At scale"): per platform and
routine the forecast's median and maximum error against SMPI's replay, its computation and its
communication alone against the recorded ones, colltune-predict replay's error on the same
trace, and how often the grid forecast fastest is replayed within 5% of the fastest.
Usage: scalapack-smpi-summary.py SMPI.csv"""
import csv, statistics, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
by = defaultdict(list)
for r in rows:
    by[(r["platform"], r["routine"])].append(abs(float(r["error"])) * 100)
trace = defaultdict(list)
for r in rows:
    trace[(r["platform"], r["routine"])].append(
        abs(float(r["trace_forecast_s"]) - float(r["replayed_s"])) / float(r["replayed_s"]) * 100)
parts = defaultdict(lambda: ([], []))
for r in rows:
    f = lambda a, b: (float(r[a]) - float(r[b])) / float(r[b]) * 100
    parts[(r["platform"], r["routine"])][0].append(f("forecast_compute_s", "recorded_compute_s"))
    parts[(r["platform"], r["routine"])][1].append(f("forecast_comm_s", "replayed_comm_s"))
print("| platform | routine | cases | median |error| | max |error| | computation: forecast vs recorded, median | communication alone: forecast vs replayed, median | the trace replayed by colltune-predict: median / max |error| |")
print("|---|---|---|---|---|---|---|---|")
for (p, rt), e in sorted(by.items()):
    c, m = parts[(p, rt)]
    t = trace[(p, rt)]
    print(f"| {p} | {rt} | {len(e)} | {statistics.median(e):.1f}% | {max(e):.1f}% | "
          f"{statistics.median(c):+.1f}% | {statistics.median(m):+.1f}% | "
          f"{statistics.median(t):.1f}% / {max(t):.1f}% |")
# Best grid: per platform and case, is the forecast's fastest grid the replay's (or within 5%)?
groups = defaultdict(list)
for r in rows:
    groups[(r["platform"], r["routine"], r["form"], r["M"], r["N"], r["K"], r["R"])].append(r)
agree = total = 0
for k, g in groups.items():
    if len(g) < 2:
        continue
    best = min(float(r["replayed_s"]) for r in g)
    pick = min(g, key=lambda r: float(r["forecast_s"]))
    total += 1
    agree += float(pick["replayed_s"]) <= 1.05 * best
print(f"best grid within 5% of the replayed best: {agree} of {total}")

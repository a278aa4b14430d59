#!/usr/bin/env python3
"""Summary of a selection-quality CSV (label,np,op,bytes,root,algorithm,seconds): per case
(platform, op, bytes, root) the best candidate, then for each fixed choice how often it is best
(within 1%) and its regret time/best (geometric mean and worst, with the worst case)."""
import collections
import csv
import math
import sys

cases = collections.defaultdict(dict)
for row in csv.DictReader(open(sys.argv[1])):
    key = (row["label"], row["op"], int(row["bytes"]), int(row["root"]))
    cases[key][row["algorithm"]] = float(row["seconds"])
algos = sorted({a for c in cases.values() for a in c})
print(f"{len(cases)} cases (platform x op x bytes x root); candidates: {', '.join(algos)}")
print(f"{'choice':10} {'best in':>9} {'geo-mean regret':>16} {'worst regret':>13}  worst case")
for a in algos:
    best_count, logs, worst, worst_key = 0, [], 0.0, None
    for key, t in cases.items():
        if a not in t:
            continue
        best = min(t.values())
        r = t[a] / best
        best_count += r <= 1.01
        logs.append(math.log(r))
        if r > worst:
            worst, worst_key = r, key
    n = len(logs)
    print(f"{a:10} {best_count:4d}/{n:<4d} {math.exp(sum(logs) / n):16.3f} {worst:13.2f}  "
          f"{worst_key[0]} {worst_key[1]} {worst_key[2]} B root {worst_key[3]}")
oracle = collections.Counter(min(t, key=t.get) for t in cases.values())
print("oracle (best per case) picks: " + ", ".join(f"{a} {oracle[a]}" for a in algos))

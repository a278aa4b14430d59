#!/usr/bin/env python3
"""Summary of bench/selection-calibrated.sh: per case (label, op, bytes, root) the best of
native (MPICH's selection), linear and binomial, colltune's pick, its regret (time / best) and
its speed-up over native; geometric means and worst case, per communicator kind and overall.

  selection-calibrated-summary.py CSV"""
import collections
import math
import sys

cases = collections.defaultdict(dict)
for line in open(sys.argv[1]).read().splitlines()[1:]:
    label, np_, op, b, root, alg, sec = line.split(",")
    cases[(label, op, int(b), int(root))][alg] = float(sec)

groups = collections.defaultdict(list)
for (label, op, b, root), t in sorted(cases.items()):
    pick = [a for a in t if a.startswith("colltune:")]
    if not pick:
        continue
    best = min(v for a, v in t.items() if not a.startswith("colltune:"))
    mine = t[pick[0]]
    regret, speedup = mine / best, t["native"] / mine
    comm = label.rsplit("-", 1)[1]
    for g in (comm, "all"):
        groups[g].append((regret, speedup, t["native"] / best, f"{label} {op} {b} B root {root}",
                          pick[0].split(":")[1]))

print(f"{'communicators':<14} {'cases':>5} {'regret geo':>10} {'worst':>7} {'speed-up geo':>12} "
      f"{'best possible':>13}  worst case")
for g in ("world", "half", "reversed", "all"):
    rows = groups.get(g)
    if not rows:
        continue
    geo = lambda k: math.exp(sum(math.log(r[k]) for r in rows) / len(rows))
    worst = max(rows, key=lambda r: r[0])
    print(f"{g:<14} {len(rows):>5} {geo(0):>10.3f} {worst[0]:>7.3f} {geo(1):>11.3f}x "
          f"{geo(2):>12.3f}x  {worst[3]} ({worst[4]})")

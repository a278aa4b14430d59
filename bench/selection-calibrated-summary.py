#!/usr/bin/env python3
"""Summary of bench/selection-calibrated.sh: per case (label, op, bytes, root) the best of
native (MPICH's selection), linear and binomial, colltune's pick, its regret (time / best) and
its speed-up over native; geometric means and worst case, per communicator kind and overall.

  selection-calibrated-summary.py CSV [--check GEO WORST]

--check: exit 1, naming the bound, when the overall geometric-mean regret exceeds GEO or the
worst regret exceeds WORST (ctest smpi_selection_regret_16)."""
import collections
import math
import sys

if len(sys.argv) not in (2, 5) or (len(sys.argv) == 5 and sys.argv[2] != "--check"):
    print("usage: selection-calibrated-summary.py CSV [--check GEO WORST]", file=sys.stderr)
    sys.exit(2)

cases = collections.defaultdict(dict)
for line in open(sys.argv[1]).read().splitlines()[1:]:
    label, np_, op, b, root, alg, sec = line.split(",")
    cases[(label, op, int(b), int(root))][alg] = float(sec)

groups = collections.defaultdict(list)
for (label, op, b, root), t in sorted(cases.items()):
    pick = [a for a in t if a.startswith("colltune:")]
    if not pick:
        continue
    # The fixed candidates (model-built trees: bench/model-trees-summary.py).
    best = min(v for a, v in t.items() if a in ("native", "linear", "binomial"))
    mine = t[pick[0]]
    regret, speedup = mine / best, t["native"] / mine
    comm = label.rsplit("-", 1)[1]
    for g in (comm, "all"):
        groups[g].append((regret, speedup, t["native"] / best, f"{label} {op} {b} B root {root}",
                          pick[0].split(":")[1]))

def geo(rows, k):
    return math.exp(sum(math.log(r[k]) for r in rows) / len(rows))


def worst(rows):
    return max(rows, key=lambda r: r[0])


print(f"{'communicators':<14} {'cases':>5} {'regret geo':>10} {'worst':>7} {'speed-up geo':>12} "
      f"{'best possible':>13}  worst case")
for g in ("world", "half", "reversed", "all"):
    rows = groups.get(g)
    if not rows:
        continue
    w = worst(rows)
    print(f"{g:<14} {len(rows):>5} {geo(rows, 0):>10.3f} {w[0]:>7.3f} {geo(rows, 1):>11.3f}x "
          f"{geo(rows, 2):>12.3f}x  {w[3]} ({w[4]})")

if len(sys.argv) == 5:
    rows = groups.get("all", [])
    if not rows:
        sys.exit("selection-calibrated-summary: no case with colltune's pick in " + sys.argv[1])
    g, w = geo(rows, 0), worst(rows)
    bad = []
    if g > float(sys.argv[3]):
        bad.append(f"geometric-mean regret {g:.3f} > {sys.argv[3]}")
    if w[0] > float(sys.argv[4]):
        bad.append(f"worst regret {w[0]:.3f} > {sys.argv[4]} ({w[3]}, picked {w[4]})")
    print("FAIL: " + "; ".join(bad) if bad else
          f"ok: regret {g:.3f} (geometric) and {w[0]:.3f} (worst) within {sys.argv[3]} and {sys.argv[4]}")
    sys.exit(1 if bad else 0)

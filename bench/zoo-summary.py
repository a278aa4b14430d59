#!/usr/bin/env python3
"""Summary of bench/zoo.sh: colltune's pick against SimGrid's algorithms and MPI selectors.

Per platform (label) and op, over its cases (size x root), geometric means and worst cases of:
  pick/best   colltune's time over the fastest of SimGrid's algorithms and selectors per case
  vs SEL      SEL's time over colltune's (above 1: colltune is faster), for each selector
colltune's time is that of the algorithm a preloaded job ends on: the model's pick, or native
where verification (COLLTUNE_VERIFY, on by default) finds the pick not faster than native by
the table's margin (--margin, default 0.02); --pick: the model's pick as it is.
The targets of the benchmark (docs/node-aware.md) are checked at the end.

  zoo-summary.py zoo.csv [--cases] [--pick] [--margin 0.02]   (--cases: every case)
"""
import csv
import math
import sys
from collections import defaultdict

SELECTORS = ["mpich", "ompi", "mvapich2", "impi", "default"]


def geo(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: zoo-summary.py zoo.csv [--cases]")
    margin = float(sys.argv[sys.argv.index("--margin") + 1]) if "--margin" in sys.argv else 0.02
    verify = "--pick" not in sys.argv
    cases = defaultdict(dict)  # (label, op, bytes, root) -> algorithm -> seconds
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
            cases[(r["label"], r["op"], int(r["bytes"]), int(r["root"]))][r["algorithm"]] = \
                float(r["seconds"])
    groups = defaultdict(list)
    for key, t in cases.items():
        pick = [a for a in t if a.startswith("colltune:")]
        zoo = {a: s for a, s in t.items() if a.startswith(("simgrid:", "selector:"))}
        if not pick or not zoo:
            continue
        ours, name = t[pick[0]], pick[0][9:]
        if verify and name != "native" and "native" in t and not ours * (1 + margin) < t["native"]:
            ours, name = t["native"], "native (verified)"
        best_name = min(zoo, key=zoo.get)
        groups[(key[0], key[1])].append((key, ours, name, best_name, zoo))
    print("colltune: " + ("the verified outcome (margin %g)" % margin if verify else
                          "the model's pick (no verification)"))
    print()
    header = ("| platform | op | cases | pick/best geo | worst | " +
              " | ".join(f"vs {s}" for s in SELECTORS) + " |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    misses = []
    for (label, op), rows in sorted(groups.items()):
        ratios = [ours / zoo[b] for _, ours, _, b, zoo in rows]
        worst = max(range(len(rows)), key=lambda i: ratios[i])
        k, _, pick, best, _ = rows[worst]
        cells = [label, op, str(len(rows)), f"{geo(ratios):.3f}",
                 f"{ratios[worst]:.2f} ({k[2]} B root {k[3]}: {pick}, best {best.split(':')[1]})"]
        for s in SELECTORS:
            v = [zoo[f"selector:{s}"] / ours for _, ours, _, _, zoo in rows
                 if f"selector:{s}" in zoo]
            if not v:
                cells.append("-")
                continue
            g = geo(v)
            cells.append(f"{g:.2f}x ({min(v):.2f}-{max(v):.2f})")
            if g < 0.98:
                misses.append(f"{label} {op}: {g:.3f}x of {s}'s selection (target >= 0.98)")
        print("| " + " | ".join(cells) + " |")
        if geo(ratios) > 1.05:
            misses.append(f"{label} {op}: pick/best {geo(ratios):.3f} (target <= 1.05)")
        if ratios[worst] > 1.25:
            misses.append(f"{label} {op}: worst pick/best {ratios[worst]:.2f} (target <= 1.25)")
        mp = [zoo["selector:mpich"] / ours for _, ours, _, _, zoo in rows
              if "selector:mpich" in zoo]
        if op in ("bcast", "scatter") and mp and geo(mp) < 1.3:
            misses.append(f"{label} {op}: {geo(mp):.2f}x over MPICH's selection (target >= 1.3)")
    print()
    print("Targets missed:" if misses else "Every target met.")
    for m in misses:
        print("  " + m)
    if "--cases" in sys.argv:
        print()
        for (label, op), rows in sorted(groups.items()):
            for k, ours, pick, best, zoo in sorted(rows):
                print(f"{label} {op} {k[2]} B root {k[3]}: {pick} {ours * 1e6:.2f} us, "
                      f"best {best} {zoo[best] * 1e6:.2f} us, "
                      f"mpich {zoo.get('selector:mpich', float('nan')) * 1e6:.2f} us")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""How well the corrections carry to the roots calibration never swept (docs/model-trees.md,
"Corrections at roots never swept"): for each table-PLATFORM.yaml of a bench/model-trees.sh
result directory, the fixed algorithms' predictions (colltune-predict coll) on the calibrated
communicator ("world") against their measured times, mean |ln(predicted / measured)| per
algorithm at root 0 and at the other roots, with the table's corrections and without them.
  bench/other-root-corrections.py RESULT_DIR [BUILD_DIR (build)]"""
import collections
import csv
import io
import math
import os
import re
import subprocess
import sys
import tempfile


def without_corrections(table, out):
    skip = False
    with open(table) as f, open(out, "w") as g:
        for line in f:
            if re.match(r"^  (correction|correction_other_root|correction_roots):", line):
                skip = True
                continue
            if skip and re.match(r"^ {0,2}\S", line):
                skip = False
            if not skip:
                g.write(line)


def predict(cli, table, op, root, sizes):
    r = subprocess.run([cli, "coll", "--table", table, "--op", op, "--root", str(root), "--bytes",
                        ",".join(map(str, sizes)), "--format", "csv"],
                       capture_output=True, text=True, check=True)
    return {(int(row["bytes"]), row["algorithm"]): float(row["seconds"])
            for row in csv.DictReader(io.StringIO(r.stdout))}


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    d = sys.argv[1]
    cli = os.path.join(sys.argv[2] if len(sys.argv) == 3 else "build", "colltune-predict")
    tmp = tempfile.mkdtemp()
    print("platform  roots  algorithm  raw    corrected  cases")
    for name in sorted(f for f in os.listdir(d) if f.startswith("table-")):
        plat = name[len("table-"):-len(".yaml")]
        table = os.path.join(d, name)
        raw_table = os.path.join(tmp, name)
        without_corrections(table, raw_table)
        meas = collections.defaultdict(dict)
        for row in csv.DictReader(open(os.path.join(d, "model-trees.csv"))):
            if row["label"] == f"{plat}-world":
                meas[(row["op"], int(row["bytes"]), int(row["root"]))][row["algorithm"]] = \
                    float(row["seconds"])
        roots = sorted({k[2] for k in meas})
        sizes = sorted({k[1] for k in meas})
        acc = collections.defaultdict(lambda: [0.0, 0.0, 0])
        for op in ("bcast", "scatter", "gather"):
            for root in roots:
                pr = predict(cli, raw_table, op, root, sizes)
                pc = predict(cli, table, op, root, sizes)
                for alg in ("native", "linear", "binomial"):
                    for s in sizes:
                        m = meas[(op, s, root)].get(alg)
                        if m is None or (s, alg) not in pr or (s, alg) not in pc:
                            continue
                        a = acc[("0" if root == 0 else "other", alg)]
                        a[0] += abs(math.log(m / pr[(s, alg)]))
                        a[1] += abs(math.log(m / pc[(s, alg)]))
                        a[2] += 1
        for (roots_kind, alg), a in sorted(acc.items()):
            print(f"{plat:9} {roots_kind:6} {alg:9}  {a[0] / a[2]:.3f}  {a[1] / a[2]:.3f}"
                  f"      {a[2]}")


main()

#!/usr/bin/env python3
"""Prediction error at every root the selection benchmark measured, not only where calibration
validated (root 0, and native at the last rank): for each calibrated platform of a
bench/selection-calibrated.sh run, the measured time of native, linear and binomial on the
calibrated communicator (label *-world) at roots 0, n/2 and n-1, against what the table
predicts with the corrections the library uses (colltune-info --predict).

  other-root-validation.py RESULTS_DIR COLLTUNE_INFO [--algorithms A,B..] [--check MEDIAN MAX]

COLLTUNE_INFO: the command that runs colltune-info, split as a shell would (an SMPI build's
runs under tests/smpi/smpi-exec.sh -n 1, with SMPI_PLATFORM set to any platform).

Prints, per platform, algorithm and root, the median and maximum relative error over ops and
sizes (--algorithms: of those only, and one of them measured where the table does not predict
it, no candidate there, fails --check). --check: exit 1 when, for any platform, algorithm and root, the median error exceeds
MEDIAN or the maximum exceeds MAX (at roots n/2 and n-1 corrections are used where they were
not validated)."""
import argparse
import collections
import csv
import io
import os
import shlex
import statistics
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("info")
    ap.add_argument("--check", nargs=2, type=float, metavar=("MEDIAN", "MAX"))
    ap.add_argument("--algorithms", type=lambda v: set(v.split(",")))
    a = ap.parse_args()
    measured = collections.defaultdict(dict)  # (platform, n, op, root) -> {(alg, bytes): s}
    with open(os.path.join(a.results, "selection-calibrated.csv")) as f:
        for r in csv.DictReader(f):
            if not r["label"].endswith("-world") or ":" in r["algorithm"]:
                continue
            key = (r["label"][: -len("-world")], int(r["np"]), r["op"], int(r["root"]))
            measured[key][(r["algorithm"], int(r["bytes"]))] = float(r["seconds"])
    errors = collections.defaultdict(list)  # (platform, alg, root label) -> [relative error]
    missing = []  # cases of --algorithms the table does not predict
    for (plat, n, op, root), times in sorted(measured.items()):
        table = os.path.join(a.results, f"table-{plat}.yaml")
        sizes = sorted({b for _, b in times})
        cmd = shlex.split(a.info) + ["--predict", table, op, str(root), ",".join(map(str, sizes))]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        where = "0" if root == 0 else "n-1" if root == n - 1 else "middle"
        predicted = set()
        for p in csv.DictReader(io.StringIO(out)):
            k = (p["algorithm"], int(p["bytes"]))
            predicted.add(k)
            if k in times and (not a.algorithms or k[0] in a.algorithms):
                errors[(plat, p["algorithm"], where)].append(
                    abs(float(p["predicted_s"]) - times[k]) / times[k])
        if a.algorithms:  # one named but not predicted there is no candidate: not validated
            missing += [f"{plat} {alg} at {b} B root {root}: no prediction (no candidate)"
                        for alg, b in sorted(times) if alg in a.algorithms
                        and (alg, b) not in predicted]
    print(f"{'platform':10} {'algorithm':9} {'root':6} {'median':>8} {'max':>8} cases")
    bad = list(missing)
    for (plat, alg, where), e in sorted(errors.items()):
        med, mx = statistics.median(e), max(e)
        print(f"{plat:10} {alg:9} {where:6} {100 * med:7.2f}% {100 * mx:7.2f}% {len(e):5}")
        if a.check and (med > a.check[0] or mx > a.check[1]):
            bad.append(f"{plat} {alg} at root {where}: median {100 * med:.2f}% max {100 * mx:.2f}%")
    if a.check:
        if not errors:
            bad.append("no measurement to check")
        for b in bad:
            print("FAIL:", b)
        if not bad:
            what = ", ".join(sorted(a.algorithms)) if a.algorithms else "every algorithm"
            print(f"ok: {what} at every root within median {100 * a.check[0]:g}% and max "
                  f"{100 * a.check[1]:g}% on {', '.join(sorted({k[0] for k in errors}))}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

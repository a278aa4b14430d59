#!/usr/bin/env python3
"""Held-out accuracy of calibrated tables, per op and algorithm, against issue 21's targets.

  real-node-accuracy.py TABLE [TABLE...]

For every table (colltune-calibrate's validation.cases: op, algorithm, bytes, predicted s,
measured s) prints per op and algorithm: the worst factor max(pred/meas, meas/pred) over all
held-out sizes, the median relative error over all sizes and from 4 KiB, and a summary line
against the targets: within 2x everywhere, median within 15% from 4 KiB, median within 10%
over all sizes (the last for the 10 s budget). Also whether each table's decisions for its
communicator are all native (at 2 processes every algorithm is one message)."""
import statistics
import sys

import yaml


def main():
    worst_factor, med4k_worst, medall_worst = 0.0, 0.0, 0.0
    for path in sys.argv[1:]:
        t = yaml.safe_load(open(path))
        cases = t.get("validation", {}).get("cases", [])
        by = {}
        for c in cases:
            op, alg, m, pred, meas = c[0], c[1], float(c[2]), float(c[3]), float(c[4])
            by.setdefault((op, alg), []).append((m, pred, meas))
        print("== %s (%s)" % (path, "quick" if t["calibration"].get("quick") else "full"))
        print("%-8s %-18s %8s %10s %10s" % ("op", "algorithm", "worst_x", "med_all", "med_4KiB+"))
        for (op, alg), rows in sorted(by.items()):
            f = max(max(p / m_, m_ / p) for _, p, m_ in rows if p > 0 and m_ > 0)
            err = [abs(p - m_) / m_ for _, p, m_ in rows]
            big = [abs(p - m_) / m_ for s, p, m_ in rows if s >= 4096]
            ma, mb = statistics.median(err), statistics.median(big) if big else float("nan")
            worst_factor = max(worst_factor, f)
            medall_worst = max(medall_worst, ma)
            if big:
                med4k_worst = max(med4k_worst, mb)
            print("%-8s %-18s %8.2f %9.1f%% %9.1f%%" % (op, alg, f, 100 * ma, 100 * mb))
        algs = {b["algorithm"] for op in t.get("decisions", {}).values() for e in op
                for b in e["bytes"]}
        print("decisions for the calibrated communicator: %s" % ", ".join(sorted(algs)))
    print("summary: worst factor %.2f (target <= 2), worst median from 4 KiB %.1f%% (target 15%%),"
          " worst median over all sizes %.1f%% (10 s target 10%%)" %
          (worst_factor, 100 * med4k_worst, 100 * medall_worst))


if __name__ == "__main__":
    main()

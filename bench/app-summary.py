#!/usr/bin/env python3
"""Errors of colltune-predict app (hand model, LMO costs), replay (recorded trace) and app with
MERPSYS's fitted formulas against measured runs (bench/app-validation.sh's cases.csv; merpsys+rate: MERPSYS's communication formulas with
the application's measured compute rate instead of the formula's T_min): per
platform and application, the median and the largest |forecast / measured - 1| (MPICH's
collectives: the programs ran without colltune)."""
import csv
import statistics
import sys
from collections import defaultdict


def main(path):
    rows = list(csv.DictReader(open(path)))
    groups = defaultdict(list)
    for r in rows:
        groups[(r["platform"], r["app"])].append(r)
        groups[(r["platform"], "all")].append(r)
        groups[("all", "all")].append(r)
    print("%-8s %-7s %5s  %-20s  %-20s  %-20s  %-20s" % (
        "platform", "app", "cases", "model: median / max", "trace: median / max",
        "merpsys: median / max", "merpsys+rate"))
    for (plat, app), rs in sorted(groups.items()):
        def err(key):
            e = [abs(float(r[key]) / float(r["measured_median"]) - 1) for r in rs]
            return "%5.1f%% / %5.1f%%" % (100 * statistics.median(e), 100 * max(e))
        print("%-8s %-7s %5d  %-20s  %-20s  %-20s  %-20s" % (
            plat, app, len(rs), err("model_mpich"), err("trace_mpich"), err("model_merpsys"),
            err("merpsys_rate")))
    print()
    print("per case: platform app np params measured (min-max) model trace merpsys, seconds and error")
    for r in rows:
        m = float(r["measured_median"])
        print("%-6s %-7s %2s %-36s %.4f (%.4f-%.4f) model %.4f (%+.1f%%) trace %.4f (%+.1f%%) "
              "merpsys %.4f (%+.1f%%) merpsys+rate %.4f (%+.1f%%)" % (
                  r["platform"], r["app"], r["np"], r["params"], m, float(r["measured_min"]),
                  float(r["measured_max"]), float(r["model_mpich"]),
                  100 * (float(r["model_mpich"]) / m - 1), float(r["trace_mpich"]),
                  100 * (float(r["trace_mpich"]) / m - 1), float(r["model_merpsys"]),
                  100 * (float(r["model_merpsys"]) / m - 1), float(r["merpsys_rate"]),
                  100 * (float(r["merpsys_rate"]) / m - 1)))


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""PDGESV's hand model (config/apps/pdgesv.yaml) on the two-dimensional grids of measured bed runs.

    bench/pdgesv-grids-model.py BUILD CASES.csv RATES.txt TABLE [--links FILE] [--out CSV]

CASES.csv: bench/pdgesv-grids-hetcluster.sh's (platform, np, grid, N, measured median, min, max,
the trace's forecasts). RATES.txt: bench/app-validation.sh's (the PDGESV lines: level 3, panel
and row-exchange costs at np 4 and 8). Prints per case the model's and the trace's signed
errors, then their |error| median and maximum; writes the cases with the model's forecast.
"""
import argparse
import csv
import re
import statistics
import subprocess
import sys


def rates(path):
    out = {}
    for line in open(path):
        m = re.match(r"pdgesv, (\d+) single-process solves at once: level 3 ([0-9.e+-]+), "
                     r"panel ([0-9.e+-]+) flops/s, row exchanges ([0-9.e+-]+) s per element", line)
        if m:
            out[int(m.group(1))] = tuple(m.group(k) for k in (2, 3, 4))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("cases")
    ap.add_argument("rates")
    ap.add_argument("table")
    ap.add_argument("--links")
    ap.add_argument("--out")
    a = ap.parse_args()
    r = rates(a.rates)
    src = __file__.rsplit("/bench/", 1)[0]
    rows = list(csv.DictReader(open(a.cases)))
    out = []
    for c in rows:
        np_ = int(c["np"])
        p = c["grid"].split("x")[0]
        if np_ not in r:
            sys.exit(f"{a.rates}: no PDGESV rates at np {np_} (valid: {sorted(r)})")
        l3, panel, swap = r[np_]
        cmd = [f"{a.build}/colltune-predict", "app", f"{src}/config/apps/pdgesv.yaml", "--table",
               a.table, "-n", str(np_), "--flops-rate", l3, "--eager", "inf", "--var",
               f"N={c['N']}", "--var", "nb=64", "--var", f"p={p}", "--var", f"panel_rate={panel}",
               "--var", f"swap_s={swap}", "--format", "csv"]
        if a.links:
            cmd += ["--links", a.links]
        res = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
        model = float(next(csv.DictReader(res))["seconds"])
        meas = float(c["measured_median"])
        c["model_mpich"] = model
        out.append(c)
        print(f"{c['platform']} {c['grid']:4} N {c['N']:5} measured {meas:7.3f} model {model:7.3f} "
              f"({100 * (model / meas - 1):+5.1f}%) trace {float(c['trace_mpich']):7.3f} "
              f"({100 * (float(c['trace_mpich']) / meas - 1):+5.1f}%)")
    for k in ("model_mpich", "trace_mpich"):
        e = [abs(100 * (float(c[k]) / float(c["measured_median"]) - 1)) for c in out]
        print(f"{k.split('_')[0]:6} |error| median {statistics.median(e):.1f}% max {max(e):.1f}% "
              f"({len(e)} cases)")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
            w.writeheader()
            w.writerows(out)


if __name__ == "__main__":
    main()

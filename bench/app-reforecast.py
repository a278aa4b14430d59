#!/usr/bin/env python3
"""The forecasts of a bench/app-validation.sh run again, from its recorded traces and the hand
models with the run's measured compute rates, on TABLE and optionally a links file (--links:
links measured again after calibration, e.g. with their small-message hinge, docs/forecast.md
"Small messages"); errors against the run's measured medians.

    bench/app-reforecast.py BUILD RUN_DIR TABLE [--links FILE] [--shared-cores C] [--only P]
                            [--out CSV]

--shared-cores C: the replay shares C cores among all processes (the bed: its host's cores).
--only P: the cases of platform P alone (bed4, bed8, vm), e.g. with a table calibrated on it.
"""
import argparse
import csv
import re
import statistics
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent
MODELS = {"jacobi": "jacobi.yaml", "mw": "master-worker.yaml", "pdgesv": "pdgesv.yaml"}


def rates(run_dir):
    """Per process count: the run's measured compute rates."""
    out, np_ = {}, None
    for line in (run_dir / "rates.txt").read_text().splitlines():
        m = re.match(r"rates at np (\d+)(?: \(median of [^)]*\))?: jacobi (\S+) master-worker (\S+) flops/s",
                     line)
        if m:
            np_ = int(m[1])
            out.setdefault(np_, {}).update(jacobi=m[2], mw=m[3])
            continue
        m = re.match(r"pdgesv, (\d+) single.*level 3 (\S+), panel (\S+) flops/s, row exchanges (\S+) s", line)
        if m:
            out.setdefault(int(m[1]), {}).update(pdgesv=m[2], panel=m[3], swap=m[4])
    return out


def first_col(text, col):
    rows = list(csv.reader(text.splitlines()))
    return float(rows[1][col])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("run_dir")
    ap.add_argument("table")
    ap.add_argument("--links")
    ap.add_argument("--out")
    ap.add_argument("--shared-cores")
    ap.add_argument("--only", choices=["bed4", "bed8", "vm"])
    a = ap.parse_args()
    run_dir, predict = Path(a.run_dir), Path(a.build) / "colltune-predict"
    links = ["--links", a.links] if a.links else []
    r = rates(run_dir)
    rows = []
    for c in csv.DictReader(open(run_dir / "cases.csv")):
        plat, app, np_, params = c["platform"], c["app"], int(c["np"]), c["params"]
        if a.only and plat != a.only:
            continue
        vm = plat == "vm"
        eager = "inf" if not vm else ("8192" if app == "pdgesv" else "0")
        vars_ = [x for v in params.split() for x in ("--var", v)]
        rate = r[np_]
        extra = []
        if app == "pdgesv":
            extra = ["--var", f"panel_rate={rate['panel']}", "--var", f"swap_s={rate['swap']}"]
        model = subprocess.run(
            [predict, "app", SRC / "config/apps" / MODELS[app], "--table", a.table, "-n", str(np_),
             "--flops-rate", rate[app], "--eager", eager, *vars_, *extra, *links, "--format", "csv"],
            capture_output=True, text=True, check=True).stdout
        trace_dir = run_dir / ("trace-%s-%s-%d-%s" % (plat, app, np_, re.sub(r"[^a-zA-Z0-9]", "_", params + "\n")))
        cores = ["--shared-cores", a.shared_cores] if a.shared_cores and not vm else []
        trace = subprocess.run([predict, "replay", trace_dir, "--table", a.table, "--eager", eager,
                                *links, *cores, "--format", "csv"], capture_output=True, text=True, check=True).stdout
        meas = float(c["measured_median"])
        rows.append(dict(platform=plat, app=app, np=np_, params=params, measured=meas,
                         model=first_col(model, 4), trace=first_col(trace, 2)))
    w = csv.DictWriter(open(a.out, "w") if a.out else sys.stdout, fieldnames=list(rows[0]) + ["error_model", "error_trace"])
    w.writeheader()
    for x in rows:
        w.writerow({**x, "error_model": f"{100 * (x['model'] / x['measured'] - 1):+.1f}%",
                    "error_trace": f"{100 * (x['trace'] / x['measured'] - 1):+.1f}%"})
    groups = {}
    for x in rows:
        for key in (x["platform"], f"{x['platform']} {x['app']}", "all"):
            groups.setdefault(key, []).append(x)
    print("| cases | n | model: median / max |error| | trace: median / max |error| |", file=sys.stderr)
    print("|---|---|---|---|", file=sys.stderr)
    for key in sorted(groups):
        g = groups[key]
        em = [abs(x["model"] / x["measured"] - 1) * 100 for x in g]
        et = [abs(x["trace"] / x["measured"] - 1) * 100 for x in g]
        print(f"| {key} | {len(g)} | {statistics.median(em):.1f}% / {max(em):.1f}% | "
              f"{statistics.median(et):.1f}% / {max(et):.1f}% |", file=sys.stderr)


if __name__ == "__main__":
    main()

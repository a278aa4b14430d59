#!/usr/bin/env python3
"""Forecasts every case of a bench/scalapack-smpi.sh CSV again with today's colltune-predict,
against the same replayed times: SMPI's replay of a recorded trace is deterministic, so a
changed forecast model is judged without recording or replaying again. Writes OUT/smpi.csv
(the forecast, its error and its communication alone replaced; everything measured kept) and
OUT/summary.txt (scalapack-smpi-summary.py).
Usage: scalapack-smpi-reforecast.py PREDICT CSV TABLES COMP OUT
  TABLES: the calibrated tables with {platform} for the CSV's platform (e.g. DIR/table-{platform}.yaml);
  COMP: the computation model the CSV's run took; its communication alone scales every kernel
  by 1e-9, as scalapack-smpi.sh does. The eager size is SMPI's (65535), as there."""
import csv
import os
import subprocess
import sys

import yaml

predict, src, tables, comp, out = sys.argv[1:6]
os.makedirs(out, exist_ok=True)
zero = os.path.join(out, "comp-zero.yaml")
d = yaml.safe_load(open(comp))
for k in d["kernels"].values():
    k["coef"] = [c * 1e-9 for c in k["coef"]]
open(zero, "w").write(yaml.safe_dump(d))


def forecast(r, model):
    sizes = [r["M"], r["N"]] + ([r["K"]] if r["routine"] == "pdgemm" else [])
    args = [predict, "routine", "--table", tables.format(platform=r["platform"]), "--model", model,
            "--routine", r["routine"], "--sizes", ",".join(sizes), "--block", r["R"], "--grid",
            r["grid"], "--eager", "65535", "--format", "csv"]
    if r["routine"] == "pdtrsm":
        args += ["--form", r["form"]]
    row = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()[1]
    return row.split(",")


rows = list(csv.DictReader(open(src)))
for r in rows:
    f = forecast(r, comp)
    r["forecast_s"], r["forecast_compute_s"] = f[3], f[4]
    r["error"] = f"{(float(f[3]) - float(r['replayed_s'])) / float(r['replayed_s']):.4f}"
    r["forecast_comm_s"] = forecast(r, zero)[3]
with open(os.path.join(out, "smpi.csv"), "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
here = os.path.dirname(os.path.abspath(__file__))
summary = subprocess.run([sys.executable, os.path.join(here, "scalapack-smpi-summary.py"),
                          os.path.join(out, "smpi.csv")], capture_output=True, text=True,
                         check=True).stdout
open(os.path.join(out, "summary.txt"), "w").write(summary)
print(summary, end="")

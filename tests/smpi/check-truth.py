#!/usr/bin/env python3
"""Compares measured one-way times ("i j bytes seconds" lines) with a platform's ground truth
(truth.yaml of scripts/platform-gen.py). Exit 1 if any relative error exceeds --tolerance or
if fewer than --min-lines lines were measured.
  check-truth.py TRUTH MEASURED [--tolerance 1e-6] [--min-lines N] [--bench-csv]
--bench-csv: MEASURED is a colltune-bench CSV of p2p/p2p-all roundtrips (M bytes each way);
the one-way time compared is half the mean roundtrip."""
import argparse
import sys

import smpi_truth

p = argparse.ArgumentParser()
p.add_argument("truth")
p.add_argument("measured")
p.add_argument("--tolerance", type=float, default=1e-6)
p.add_argument("--min-lines", type=int, default=1)
p.add_argument("--bench-csv", action="store_true")
a = p.parse_args()
hosts, envelope = smpi_truth.load(a.truth)
def measurements():
    if a.bench_csv:
        import csv
        for r in csv.DictReader(open(a.measured)):
            if r["timing"] == "roundtrip":
                yield int(r["i"]), int(r["j"]), int(r["bytes"]), float(r["mean_s"]) / 2
        return
    for line in open(a.measured):
        f = line.split()
        if len(f) == 4 and f[0].isdigit():
            yield int(f[0]), int(f[1]), int(f[2]), float(f[3])


worst, count, bad = 0.0, 0, 0
for i, j, m, t in measurements():
    expect = smpi_truth.one_way(hosts, i, j, m, envelope)
    err = abs(t - expect) / expect
    worst, count = max(worst, err), count + 1
    if err > a.tolerance:
        bad += 1
        print(f"MISMATCH {i}->{j} {m} B: measured {t:.12e} s, ground truth {expect:.12e} s, "
              f"relative error {err:.3g}")
print(f"check-truth: {count} measurements, worst relative error {worst:.3g} "
      f"(tolerance {a.tolerance:g}): {count - bad} passed, {bad} failed")
sys.exit(0 if bad == 0 and count >= a.min_lines else 1)

#!/usr/bin/env python3
"""Compares hetcluster ping-pong one-way times ("i j bytes seconds", tests/mpi/p2p_truth.c) with
the ground truth STATE/truth.yaml of scripts/hetcluster: for M >= --min-bytes,
    expected(i, j, M) = measured(i, j, 0 B) + (M - burst_payload_bytes) * 8 / goodput_mbit(i, j)
(the 0-byte time carries the pair's added latency and the unshaped software path). Also checks
that the 0-byte time covers the added latency. Exit 1 on any relative error above --tolerance
(with --slower, that bound instead for measurements slower than the truth: a loaded machine
delays TCP, it never passes a shaped link faster).
  check-truth.py TRUTH MEASURED [--tolerance 0.03] [--slower S] [--min-bytes 65536]
                 [--min-lines N]"""
import argparse
import sys

import yaml

p = argparse.ArgumentParser()
p.add_argument("truth")
p.add_argument("measured")
p.add_argument("--tolerance", type=float, default=0.03)
p.add_argument("--slower", type=float, default=None)
p.add_argument("--min-bytes", type=int, default=65536)
p.add_argument("--min-lines", type=int, default=1)
a = p.parse_args()
truth = yaml.safe_load(open(a.truth))
pairs = {}
for q in truth["pairs"]:
    pairs[(q["a"], q["b"])] = pairs[(q["b"], q["a"])] = q
t = {}
for line in open(a.measured):
    f = line.split()
    if len(f) == 4 and f[0].isdigit():
        t[(int(f[0]), int(f[1]), int(f[2]))] = float(f[3])
checked, bad, worst = 0, 0, 0.0
for (i, j, m), v in sorted(t.items()):
    q = pairs[(i, j)]
    if m == 0 and v < q["latency_us"] * 1e-6:
        bad += 1
        print(f"MISMATCH {i}->{j} 0 B: {v * 1e6:.1f} us is below the added latency {q['latency_us']} us")
    if m < a.min_bytes or (i, j, 0) not in t:
        continue
    expect = t[(i, j, 0)] + max(0, m - truth["burst_payload_bytes"]) * 8 / (q["goodput_mbit"] * 1e6)
    err = abs(v - expect) / expect
    checked, worst = checked + 1, max(worst, err)
    status = "ok"
    if err > (a.slower if a.slower is not None and v > expect else a.tolerance):
        bad, status = bad + 1, "MISMATCH"
    print(f"{status:8} {i}->{j} {m:8d} B: measured {v * 1e3:9.3f} ms, ground truth "
          f"{expect * 1e3:9.3f} ms ({q['goodput_mbit']:g} Mbit/s goodput), error {err:.2%}")
print(f"check-truth: {checked} measurements >= {a.min_bytes} B, worst relative error "
      f"{worst:.2%} (tolerance {a.tolerance:.0%}"
      f"{'' if a.slower is None else f', {a.slower:.0%} slower'}): {checked - bad} passed, {bad} failed")
sys.exit(0 if bad == 0 and checked >= a.min_lines else 1)

#!/usr/bin/env python3
"""Compares a model table written by colltune-calibrate with the ground truth of an LMO
platform (scripts/platform-gen.py --kind lmo-*).

  check-calibration.py TRUTH TABLE [--tol 0.01] [--median 0.05] [--max 0.15] [--s-near BYTES]

Checks: every C_i, t_i and 1/beta_ij within --tol (relative) of the truth, each interval
widened by the 16-byte envelope's share containing it (the envelope, 16 inv_beta per message
and at most 0.013 us here, is not in the model: it biases C by up to that, and t and beta by
that over the experiments' M); the median and maximum held-out prediction error of every op
and algorithm at most --median and --max; with --s-near, the scatter threshold S within one
sweep step (a factor sqrt 2) of BYTES, else no S at all. Prints one line per check, then
"N passed, M failed".
"""
import argparse
import sys

import yaml


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("table")
    p.add_argument("--tol", type=float, default=0.01)
    p.add_argument("--median", type=float, default=0.05)
    p.add_argument("--max", type=float, default=0.15)
    p.add_argument("--s-near", type=float)
    a = p.parse_args()
    truth = yaml.safe_load(open(a.truth))
    # PyYAML reads numbers like 5e-06 (no dot) as strings.
    truth["C"] = [float(v) for v in truth["C"]]
    truth["t"] = [float(v) for v in truth["t"]]
    truth["inv_beta"] = [[float(v) for v in row] for row in truth["inv_beta"]]
    table = yaml.safe_load(open(a.table))
    model = table["model"]
    ids = model["identities"]
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("ok       " if ok else "MISMATCH ") + what)
        passed += ok
        failed += not ok

    envelope = 16 * max(max(r) for r in truth["inv_beta"])
    m = model["message_bytes"]
    index = [int(name.lstrip("h")) for name in ids]

    def compare(what, est, true, allowance):
        value, ci = est
        check(abs(value / true - 1) <= a.tol, f"{what} = {value:.6g}, truth {true:.6g}")
        check(abs(value - true) <= ci + allowance,
              f"{what} interval {ci:.3g} (+ envelope {allowance:.3g}) contains the truth")

    for k, i in enumerate(index):
        compare(f"C[h{i}]", model["C"][k], truth["C"][i], envelope)
        compare(f"t[h{i}]", model["t"][k], truth["t"][i], envelope / m)
        for l, j in enumerate(index):
            if l != k:
                compare(f"inv_beta[h{i},h{j}]", model["inv_beta"][k][l], truth["inv_beta"][i][j],
                        2 * envelope / m)
    s = model["thresholds"]["S"][0]
    s = float(s) if not isinstance(s, str) else float("inf")
    if a.s_near:
        # The regime change itself (calibration.scatter_break); S, the serialization the model
        # applies above it, only where serializing fits the sweeps (not across a switch that
        # makes sends cheaper).
        brk = float(table["calibration"]["scatter_break"])
        check(a.s_near / 2 ** 0.5 <= brk <= a.s_near * 2 ** 0.5,
              f"scatter sweep break {brk:.6g} within a sweep step of {a.s_near:.6g}")
    else:
        check(s == float("inf"), f"no scatter threshold (S = {s:.6g}) on a platform without one")
    for row in table["validation"]["summary"]:
        check(row["median"] <= a.median and row["max"] <= a.max,
              f"{row['op']} {row['algorithm']}: held-out error median {row['median']:.4f}"
              f" max {row['max']:.4f}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

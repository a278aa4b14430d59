#!/usr/bin/env python3
"""Compares a model table written by colltune-calibrate with the ground truth of an LMO
platform (scripts/platform-gen.py --kind lmo-*).

  check-calibration.py TRUTH TABLE [--c-tol 0.01] [--median 0.05]

Checks: every C_i within --c-tol (relative) of the truth, its interval widened by the 16-byte
envelope's share (16 inv_beta per message, at most 0.013 us here) containing it; the median
held-out prediction error of every op and algorithm at most --median. Prints one line per
check, then "N passed, M failed".
"""
import argparse
import sys

import yaml


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("table")
    p.add_argument("--c-tol", type=float, default=0.01)
    p.add_argument("--median", type=float, default=0.05)
    a = p.parse_args()
    truth = yaml.safe_load(open(a.truth))
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
    for k, name in enumerate(ids):
        i = int(name.lstrip("h"))
        c, ci = model["C"][k]
        true = truth["C"][i]
        check(abs(c / true - 1) <= a.c_tol, f"C[{name}] = {c:.6g}, truth {true:.6g}")
        check(abs(c - true) <= ci + envelope,
              f"C[{name}] interval {ci:.3g} (+ envelope {envelope:.3g}) contains the truth")
    for row in table["validation"]["summary"]:
        check(row["median"] <= a.median,
              f"{row['op']} {row['algorithm']}: median held-out error {row['median']:.4f}"
              f" (max {row['max']:.4f})")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

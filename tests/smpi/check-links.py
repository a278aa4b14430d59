#!/usr/bin/env python3
"""Compares every pair's per-byte time in a model table written by colltune-calibrate,
t_i + 1/beta_ij + t_j, with the ground truth of a rack or star platform of
scripts/platform-gen.py: 1 / min(bandwidth_i, bandwidth_j), and the uplink's bandwidth too
between racks.

  check-links.py TRUTH TABLE [--median 0.02] [--max 0.3]

Prints the ratio's median, 90th percentile and maximum over the pairs within racks and
across them, one line per check, then "N passed, M failed"."""
import argparse
import sys

import yaml

sys.path.insert(0, __import__("os").path.dirname(__file__))
import smpi_truth  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("table")
    p.add_argument("--median", type=float, default=0.02)
    p.add_argument("--max", type=float, default=0.3)
    a = p.parse_args()
    hosts, _ = smpi_truth.load(a.truth)
    truth = yaml.safe_load(open(a.truth))
    racks = int(truth.get("racks", 1))
    uplink = float(truth.get("uplink_bandwidth", float("inf")))
    model = yaml.safe_load(open(a.table))["model"]
    n = len(hosts)
    if len(model["t"]) != n:
        sys.exit(f"check-links: {a.table}: {len(model['t'])} identities, the truth has {n}")
    rack = [i * racks // n for i in range(n)]
    ratios = {"within racks": [], "across racks": []}
    for i in range(n):
        for j in range(i + 1, n):
            across = rack[i] != rack[j]
            bw = min(hosts[i][0], hosts[j][0], uplink if across else float("inf"))
            per_byte = model["t"][i][0] + model["inv_beta"][i][j][0] + model["t"][j][0]
            ratios["across racks" if across else "within racks"].append(per_byte * bw)
    passed = failed = 0
    for name, r in ratios.items():
        if not r:
            continue
        r.sort()
        med, p90, top = r[len(r) // 2], r[int(0.9 * (len(r) - 1))], max(r, key=lambda x: abs(x - 1))
        ok = abs(med - 1) <= a.median and abs(top - 1) <= a.max
        print(f"{'ok' if ok else 'MISMATCH'}: {name}, {len(r)} pairs: model / truth per byte "
              f"median {med:.3f}, p90 {p90:.3f}, worst {top:.3f} (allowed {a.median}, {a.max})")
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compares a model table written by colltune-calibrate on the hetcluster bed with the bed's
ground truth (STATE/truth.yaml of scripts/hetcluster).

  check-calibration.py TRUTH TABLE [--tol 0.05] [--pair-tol 0.08] [--c-tol-us 25]
                       [--min-bytes 65536] [--median 0.10]

The bed shapes each host's traffic in both directions (tbf at rate_i) and delays what a host
receives by delay_i; processors are identical. What the LMO model can show of it, checked:
- links: a message's per-byte time in the model, t_i + 1/beta_ij + t_j, against the truth's
  for a message of the experiments' M bytes, (M - burst_payload) / M * 8 / goodput(i, j), within
  --tol, for every ordered pair. (The model's t_i takes the sender's own shaping, which
  serializes its sends, so 1/beta_ij alone is min-rate minus both ends: printed, not checked.)
- fixed delays: C_i - mean(C) against (delay_i - mean(delay)) / 2 within --c-tol-us (a message
  pays half of each end's round trip delay in the model's C_i + C_j).
- prediction: the median relative error of the held-out cases of at least --min-bytes, per op
  and algorithm, at most --median (skipped, and said, when the sweeps stopped below).
Prints one line per check, then "N passed, M failed"; exit 1 on any failure.
"""
import argparse
import statistics
import sys

import yaml


def num(v):
    return float("inf") if isinstance(v, str) and v.lstrip("+").startswith(".inf") else float(v)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("table")
    p.add_argument("--tol", type=float, default=0.05)
    p.add_argument("--pair-tol", type=float, default=0.08)
    p.add_argument("--c-tol-us", type=float, default=25)
    p.add_argument("--min-bytes", type=float, default=65536)
    p.add_argument("--median", type=float, default=0.10)
    a = p.parse_args()
    truth = yaml.safe_load(open(a.truth))
    table = yaml.safe_load(open(a.table))
    model = table["model"]
    hosts = {h["name"]: h for h in truth["hosts"]}
    ids = model["identities"]
    missing = [i for i in ids if i not in hosts]
    if missing:
        sys.exit(f"check-calibration: identities {missing} are not hosts of {a.truth}")
    goodput = {}
    for q in truth["pairs"]:
        goodput[(q["a"], q["b"])] = goodput[(q["b"], q["a"])] = q["goodput_mbit"]
    index = {h["name"]: k for k, h in enumerate(truth["hosts"])}
    m = num(model["message_bytes"])
    burst = truth["burst_payload_bytes"]
    C = [num(c[0]) for c in model["C"]]
    t = [num(v[0]) for v in model["t"]]
    ib = [[num(v[0]) for v in row] for row in model["inv_beta"]]
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("ok       " if ok else "MISMATCH ") + what)
        passed += ok
        failed += not ok

    for k, name in enumerate(ids):
        own = 8 / (hosts[name]["rate_mbit"] * 1e6 * truth["mss_bytes"] / truth["wire_bytes_per_packet"])
        print(f"info     t[{name}] = {t[k] * 1e9:.1f} ns/B; its own shaping {own * 1e9:.1f} ns/B")
    errs = []
    for k, a_name in enumerate(ids):
        for l, b_name in enumerate(ids):
            if k == l:
                continue
            g = goodput[(index[a_name], index[b_name])]
            want = max(0.0, m - burst) / m * 8 / (g * 1e6)
            got = t[k] + ib[k][l] + t[l]
            if want <= 0:  # M within the shaper's burst: the experiments measured no shaping
                check(False, f"per-byte {a_name}->{b_name}: M = {m:g} bytes is within the "
                      f"burst ({burst:g} bytes), no truth to compare with")
                continue
            err = abs(got / want - 1)
            errs.append(err)
            check(err <= a.pair_tol, f"per-byte {a_name}->{b_name} = {got * 1e9:.1f} ns/B "
                  f"(1/beta {ib[k][l] * 1e9:.1f}), truth {want * 1e9:.1f} ns/B: {err:.2%}")
    if errs:
        check(statistics.median(errs) <= a.tol, f"per-byte times: median error "
              f"{statistics.median(errs):.2%}, max {max(errs):.2%} over {len(errs)} ordered pairs")
    d = [hosts[n]["delay_us"] for n in ids]
    mc, md = statistics.mean(C), statistics.mean(d)
    for k, name in enumerate(ids):
        got, want = (C[k] - mc) * 1e6, (d[k] - md) / 2
        check(abs(got - want) <= a.c_tol_us,
              f"C[{name}] - mean = {got:.1f} us, half its delay's share {want:.1f} us")
    large = {}
    for op, alg, size, pred, meas in table["validation"]["cases"]:
        if num(size) >= a.min_bytes:
            large.setdefault((op, alg), []).append(abs(num(pred) / num(meas) - 1))
    if not large:
        print(f"skipped  prediction from {a.min_bytes:g} bytes: the sweeps stopped below")
    for (op, alg), e in sorted(large.items()):
        med = statistics.median(e)
        check(med <= a.median, f"{op} {alg}: held-out error from {a.min_bytes:g} bytes median "
              f"{med:.2%} max {max(e):.2%} ({len(e)} sizes)")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

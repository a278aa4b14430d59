#!/usr/bin/env python3
"""Checks timing methods against the exact ground truth of a star platform whose root host has
a link faster than all others together (platform-gen.py --fast-host 0), so that no two flows of
a linear collective share a link. Input: the lines of tests/smpi/smpi_timing_truth (every rank
starts the operation at the same simulated instant T; times are relative to T).

SMPI's costs (CM02, detached sends; found by experiment, consistent with smpi_p2p_truth):
  wire(s, d, M) = L_s + L_d + (M + 16) / min(B_s, B_d)
  A message moves only once both sides are there: it starts at the later of the sender being
  ready and the receive being posted, and the receive completes wire + o_d after that start.
  MPI_Isend: the sender is ready at once and spends nothing; MPI_Send: the sender spends o_s,
  then is ready (detached: it returns then). Posting a receive costs nothing.
Linear collectives rooted at r (ranks p != r, n ranks; every receive posted at T):
  scatter, bcast: r Isends to all; p finishes at wire(r, p, M) + o_p; r at 0.
  gather: p Sends to r and finishes at o_p; r finishes at max_p (o_p + wire(p, r, M) + o_r).
Methods (value = what the method reports):
  max:    max_p finish_p;
  global: max_p finish_p (every rank starts at T; SMPI clocks agree, so the synchronized
          offsets must come out exactly 0);
  window: max_p finish_p (every rank starts at the instant the root announced; finishes are
          counted from each rank's own start);
  root:   the root's time until it received every confirmation (each p Sends an empty message
          when it finishes; r posts all receives when it finishes: confirmation p completes at
          max(finish_r, finish_p + o_p) + wire(p, r, 0) + o_r) minus its correction, the
          confirmation cost max_p (o_p + wire(p, r, 0) + o_r) measured by prepare(), which is
          checked too;
  tasks:  (bcast only) the task method of measure_bcast_tasks, max over i of the root's time
          until i's acknowledgement minus i's one-way empty-message time: max_p finish_p, as
          every receive is posted before the root starts (lines carry no per-rank finishes).
Each rank's finish is checked too. Exit 1 on any relative error above --tolerance.

  timing-truth.py TRUTH MEASURED [--tolerance 1e-6] [--min-lines N]"""
import argparse
import sys

import smpi_truth

p = argparse.ArgumentParser()
p.add_argument("truth")
p.add_argument("measured")
p.add_argument("--tolerance", type=float, default=1e-6)
p.add_argument("--min-lines", type=int, default=1)
a = p.parse_args()

hosts = smpi_truth.load(a.truth)[0]  # (B, L, o)


def wire(s, d, m):
    return hosts[s][1] + hosts[d][1] + (m + 16) / min(hosts[s][0], hosts[d][0])


def finishes(op, m, r, n):
    o = [h[2] for h in hosts]
    if m == 0:
        return [0.0] * n
    if op in ("scatter", "bcast"):
        return [0.0 if q == r else wire(r, q, m) + o[q] for q in range(n)]
    if op == "gather":
        f = [o[q] for q in range(n)]
        f[r] = max(o[q] + wire(q, r, m) + o[r] for q in range(n) if q != r)
        return f
    raise SystemExit(f"timing-truth: no ground truth for op {op}")


def root_confirmed(f, r, n):
    o = [h[2] for h in hosts]
    return max(max(f[r], f[q] + o[q]) + wire(q, r, 0) + o[r] for q in range(n) if q != r)


worst, count, bad, methods = 0.0, 0, 0, set()


def check(what, got, expect):
    global worst, count, bad
    err = abs(got - expect) / expect if expect else abs(got)
    worst, count = max(worst, err), count + 1
    if err > a.tolerance:
        bad += 1
        print(f"MISMATCH {what}: measured {got:.12e} s, ground truth {expect:.12e} s, "
              f"relative error {err:.3g}")


lines = 0
for line in open(a.measured):
    f = line.split()
    if len(f) == 7 and f[0] == "tasks" and f[1] == "bcast":
        m, r, value, n = int(f[3]), int(f[4]), float(f[5]), int(f[6])
        if m == 0:  # nothing to time: i's acknowledgement may leave before the root starts
            continue
        if f[2] != "linear":
            raise SystemExit(f"timing-truth: no ground truth for algorithm {f[2]}")
        lines += 1
        methods.add("tasks")
        true = max(finishes("bcast", m, r, n))
        check(f"tasks bcast {m} B root {r}: task method", value, true)
        print(f"tasks bcast {m} B root {r}: tasks = {value:.9e} s, true time {true:.9e} s")
        continue
    if len(f) < 8 or f[0] not in ("root", "max", "global", "window"):
        continue
    method, op, algo, m, r = f[0], f[1], f[2], int(f[3]), int(f[4])
    value, corr, fin = float(f[5]), float(f[6]), [float(x) for x in f[7:]]
    if algo != "linear":
        raise SystemExit(f"timing-truth: no ground truth for algorithm {algo}")
    n = len(fin)
    lines += 1
    methods.add(method)
    gt = finishes(op, m, r, n)
    tag = f"{method} {op} {m} B root {r}"
    for q in range(n):
        check(f"{tag}: rank {q} finish", fin[q], gt[q])
    if method in ("max", "global", "window"):
        check(f"{tag}: {method} timing", value, max(gt))
    else:
        cost = max(hosts[q][2] + wire(q, r, 0) + hosts[r][2] for q in range(n) if q != r)
        check(f"{tag}: root timing's confirmation cost", corr, cost)
        check(f"{tag}: root timing", value, root_confirmed(gt, r, n) - cost)
    print(f"{tag}: {method} = {value:.9e} s, true time {max(gt):.9e} s "
          f"({(value - max(gt)) / max(gt) * 100 if max(gt) else 0:+.2f}%)")

print(f"timing-truth: {lines} measurements ({', '.join(sorted(methods))}), {count} checks, "
      f"worst relative error {worst:.3g}, {count - bad} passed, {bad} failed")
sys.exit(1 if bad or lines < a.min_lines else 0)

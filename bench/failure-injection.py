#!/usr/bin/env python3
"""Failures injected into real runs, against the expected time colltune-predict gives
(docs/app-models.md "Failures, injected").

    bench/failure-injection.py BUILD OUT [--np 2] [--trials 60] [--load 0.7,1.5] [--seed S]
                               [-- PROGRAM ARGS...]   (default: BUILD/bench/app_jacobi 2048 300 10)

The program runs under mpiexec on this machine. Its failure-free time T0 (launch to exit, the
median of 7 runs) sets the failure rate: for each load X, lambda = X / (nodes T0) per node and
second, nodes = the processes (one per node, as `--per-node 1`). A trial runs the program until
one run ends before its failure: each run draws its failure time from an exponential law of
rate lambda nodes and is killed (the whole process group) when it comes first; the trial's time
is every finished run's wall time (launch to exit) and every killed run's time to its failure. The forecast is
`colltune-predict app` of a model that computes T0 seconds on the processes, with a node file
of that lambda (expected_s: from scratch, (e^(lambda nodes T0) - 1) / (lambda nodes)).
Writes OUT/trials.csv (every trial) and OUT/summary.txt (per load: mean and its standard
error, forecast, error; the mean count of runs against e^(lambda nodes T0)).
"""
import argparse
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent


def descendants(pid):
    """Every process below pid (Hydra starts its proxy and the ranks in sessions of their own,
    so the launcher's process group does not hold them)."""
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(d))
    out, stack = [], [pid]  # depth first
    while stack:
        for c in children.get(stack.pop(), []):
            out.append(c)
            stack.append(c)
    return out


def alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def run_once(cmd, timeout):
    """Wall time of one run and True, or the failure time `timeout` and False when the failure
    came first (every process of the run killed then, and gone before the next run)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        rc = p.wait(timeout=timeout)
        if rc != 0:
            sys.exit(f"failure-injection: '{' '.join(cmd)}' exited {rc} without a failure")
        return time.monotonic() - t0, True
    except subprocess.TimeoutExpired:
        tree = descendants(p.pid)
        for q in [p.pid] + tree:
            try:
                os.kill(q, signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.wait()
        deadline = time.monotonic() + 5
        while any(alive(q) for q in tree):
            if time.monotonic() > deadline:
                sys.exit(f"failure-injection: processes {tree} outlive their kill")
            time.sleep(0.01)
        return timeout, False


def forecast(build, out, np_, t0, lam):
    model = out / "compute-t0.yaml"
    model.write_text("colltune_app: 1\nname: failure-injection\ngroups:\n"
                     "  - {label: p, count: P}\nblocks:\n"
                     f"  - compute: {{seconds: {t0!r}}}\n")
    node_text = (SRC / "config/nodes/galera-plus.yaml").read_text()
    node_text, k = re.subn(r"(?m)^lambda:.*$", f"lambda: {lam!r}", node_text)
    if k != 1:
        sys.exit("failure-injection: config/nodes/galera-plus.yaml has no 'lambda:' line")
    node = out / f"node-lambda-{lam:.6g}.yaml"
    node.write_text(node_text)
    r = subprocess.run([str(build / "colltune-predict"), "app", str(model), "-n", str(np_),
                        "--per-node", "1", "--node", str(node), "--costs", "merpsys",
                        "--format", "csv"], check=True, capture_output=True, text=True)
    rows = [line.split(",") for line in r.stdout.splitlines()]
    head = rows[0]
    return float(rows[1][head.index("expected_s")]), float(rows[1][head.index("seconds")])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--load", default="0.7,1.5")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("program", nargs="*")
    a = ap.parse_args()
    build, out = Path(a.build).resolve(), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    prog = a.program or [str(build / "bench/app_jacobi"), "2048", "300", "10"]
    cmd = ["mpiexec.mpich", "-n", str(a.np)] + prog
    loads = [float(x) for x in a.load.split(",")]
    rng = random.Random(a.seed)

    free = [run_once(cmd, None)[0] for _ in range(7)]
    t0 = statistics.median(free)
    lines = [f"command: {' '.join(cmd)}",
             f"failure-free time T0 (median of 7, launch to exit): {t0:.4f} s "
             f"(min {min(free):.4f}, max {max(free):.4f})",
             f"nodes: {a.np} (one process each); trials per load: {a.trials}; seed {a.seed}", "",
             "load lambda*nodes*T0 | lambda /node/s | measured mean +- se (s) | forecast expected_s | error | runs per trial: mean, e^load"]
    trials = ["load,trial,seconds,runs"]
    for x in loads:
        lam = x / (a.np * t0)
        expected, seconds = forecast(build, out, a.np, t0, lam)
        if abs(seconds - t0) > 1e-6 * t0:
            sys.exit(f"failure-injection: the model's time {seconds} is not T0 {t0}")
        totals, runs = [], []
        for k in range(a.trials):
            total, n = 0.0, 0
            while True:
                wall, done = run_once(cmd, rng.expovariate(lam * a.np))
                total, n = total + wall, n + 1
                if done:
                    break
            totals.append(total)
            runs.append(n)
            trials.append(f"{x},{k},{total:.6f},{n}")
        m = statistics.mean(totals)
        se = statistics.stdev(totals) / math.sqrt(len(totals))
        lines.append(f"{x:g} | {lam:.4g} | {m:.4f} +- {se:.4f} | {expected:.4f} | "
                     f"{(expected / m - 1) * 100:+.1f}% | {statistics.mean(runs):.2f}, {math.exp(x):.2f}")
        print(lines[-1], flush=True)
    (out / "trials.csv").write_text("\n".join(trials) + "\n")
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

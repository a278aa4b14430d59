#!/usr/bin/env python3
"""colltune-jitter against SimGrid SMPI (docs/jitter.md).

  jitter-validate.py SMPI_EXEC PROGRAM TRACE [--hosts 16,64] [--modes unsync,sync,cosched]
                     [--phases 10] [--tol 0.02] [--seed 1] [--high 9500000] [--low 500000]

For every host count and start mode: starting points in the trace (unsync: one per host at
random; sync: one for all; cosched: a random high-priority window each, on the co-scheduled
trace that PROGRAM --coschedule writes), a platform whose hosts run at the trace's rate with a
speed profile that follows the trace from their starting point (speed ~0 during each jitter
event), and PROGRAM (tests/smpi/jitter_barrier.cpp) run on it and on the same platform without
profiles, small messages eager (smpi/async-small-thresh, as in the model). SMPI's slowdown
(with / without) against colltune-jitter's for the same starts, within --tol. Prints one line per case, then "N passed, M failed".
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile


def read_trace(path):
    hz, rows = None, []
    for line in open(path):
        line = line.strip()
        if line.startswith("#"):
            m = re.match(r"#\s*hz:\s*(\S+)", line)
            if m:
                hz = float(m.group(1))
            continue
        if line:
            j, g = line.split()
            rows.append((int(j), int(g)))
    events, x = [], 0
    for j, g in rows:
        if j > 0:
            events.append((x, x + j))
        x += j + g
    return hz, events, x


def profile(events, length, start, horizon):
    """Speed profile lines (seconds, factor) for a host that starts at `start` in the trace."""
    out, lap = ["0 1.0"], 0
    t_prev = 0.0
    lines = []
    while True:
        base = lap * length - start
        done = False
        for s, e in events:
            a, b = s + base, e + base
            if b <= 0:
                continue
            if a > horizon:
                done = True
                break
            lines.append((max(a, 0.0), 1e-9))
            lines.append((b, 1.0))
        if done or (lap + 1) * length - start > horizon:
            break
        lap += 1
    out = []
    for t, v in lines:
        if out and t <= t_prev:
            t = t_prev + 1e-3  # cycles; keep times increasing
        out.append((t, v))
        t_prev = t
    return out


def platform(folder, n, hz, wire, profiles):
    xml = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           '<platform version="4.1">', '  <zone id="star" routing="Cluster">']
    for i in range(n):
        attr = f' speed_file="h{i}.profile"' if profiles else ""
        xml.append(f'    <host id="h{i}" speed="{hz:.17g}f"{attr}/>')
        xml.append(f'    <link id="h{i}_link" sharing_policy="SPLITDUPLEX" bandwidth="1e12Bps" '
                   f'latency="{wire / 2 / hz:.17g}s"/>')
        xml.append(f'    <host_link id="h{i}" up="h{i}_link_UP" down="h{i}_link_DOWN"/>')
    xml += ["  </zone>", "</platform>"]
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, "platform.xml"), "w").write("\n".join(xml) + "\n")
    open(os.path.join(folder, "hostfile"), "w").write("".join(f"h{i}\n" for i in range(n)))
    if profiles:
        for i, p in enumerate(profiles):
            with open(os.path.join(folder, f"h{i}.profile"), "w") as f:
                for t, v in p:
                    f.write(f"{t / hz:.17g} {v}\n")


def run(exec_, prog, folder, n, args, need="smpi"):
    # Small messages leave at once (eager), as in the model: SMPI's default (async-small-thresh
    # 0) moves a message only once its receive is posted, which serializes a parent's children.
    env = dict(os.environ, SMPI_PLATFORM=folder,
               SMPI_EXTRA_CFG="--cfg=smpi/async-small-thresh:65536")
    out = subprocess.run([exec_, "-n", str(n), os.path.abspath(prog)] + args, env=env,
                         capture_output=True,
                         text=True, timeout=1800)
    vals = dict(re.findall(r"^(\S+) (\S+)$", out.stdout, re.M))
    if need not in vals:
        sys.exit(f"jitter-validate: {prog} failed:\n{out.stdout}\n{out.stderr}")
    return {k: float(v) for k, v in vals.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("smpi_exec")
    ap.add_argument("program")
    ap.add_argument("trace")
    ap.add_argument("--hosts", default="16,64")
    ap.add_argument("--modes", default="unsync,sync,cosched")
    ap.add_argument("--phases", type=int, default=10)
    ap.add_argument("--quantum", type=float, default=1e6)
    ap.add_argument("--tol", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--high", type=float, default=9.5e6)
    ap.add_argument("--low", type=float, default=5e5)
    a = ap.parse_args()
    a.trace = os.path.abspath(a.trace)
    work = tempfile.mkdtemp(prefix="jitter-validate-")
    send, recv, wire = 1000.0, 1000.0, 2000.0
    common = ["--phases", str(a.phases), "--quantum", str(a.quantum), "--send", str(send),
              "--recv", str(recv), "--wire", str(wire)]
    passed = failed = 0
    rng = random.Random(a.seed)
    for mode in a.modes.split(","):
        trace = a.trace
        windows = None
        if mode == "cosched":
            trace = os.path.join(work, "cosched.trace")
            hz0, _, _ = read_trace(a.trace)
            platform(os.path.join(work, "one"), 1, hz0, wire, None)
            run(a.smpi_exec, a.program, os.path.join(work, "one"), 1,
                ["--coschedule", a.trace, "--high", str(int(a.high)), "--low", str(int(a.low)),
                 "--out", trace], need="windows")
            windows = [float(x) for x in open(trace + ".windows")]
        hz, events, length = read_trace(trace)
        for n in [int(x) for x in a.hosts.split(",")]:
            if mode == "unsync":
                starts = [rng.uniform(0, length) for _ in range(n)]
            elif mode == "sync":
                starts = [rng.uniform(0, length)] * n
            else:
                starts = [rng.choice(windows) for _ in range(n)]
            horizon = 40 * a.phases * a.quantum
            folder = os.path.join(work, f"{mode}{n}")
            platform(folder, n, hz, wire, [profile(events, length, s, horizon) for s in starts])
            quiet = os.path.join(work, f"quiet{n}")
            platform(quiet, n, hz, wire, None)
            sfile = os.path.join(folder, "starts")
            open(sfile, "w").write("".join(f"{s:.17g}\n" for s in starts))
            j = run(a.smpi_exec, a.program, folder, n,
                    common + ["--trace", trace, "--starts", sfile])
            q = run(a.smpi_exec, a.program, quiet, n, common)
            smpi = j["smpi"] / q["smpi"]
            ours = j["colltune-jitter"] / j["colltune-jitter-quiet"]
            err = abs(ours / smpi - 1)
            ok = err <= a.tol
            passed += ok
            failed += not ok
            print(f"{'ok      ' if ok else 'MISMATCH'} {mode:8s} {n:5d} ranks: slowdown SMPI "
                  f"{smpi:.5f}, colltune-jitter {ours:.5f} ({100 * err:.2g}%); times "
                  f"{j['smpi']:.6g} s / {j['colltune-jitter']:.6g} s, quiet {q['smpi']:.6g} s / "
                  f"{j['colltune-jitter-quiet']:.6g} s")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

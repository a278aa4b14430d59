#!/usr/bin/env python3
"""Faults injected at random into preloaded runs (docs/faults.md): how many end cleanly, how
many hang, how many leave files behind.

    bench/fault-injection.py BUILD OUT [--runs 60] [--np 2,4,8] [--seed 1] [--timeout 60]

Each run starts tests' fault program (BUILD/tests/mpi_faults: bcast, scatter and gather at every
root under MPI_ERRORS_RETURN, every result checked) at a random np with the test-hook library
(BUILD/tests/libcolltune_testhooks.so), in a phase drawn at random:
  init         MPI_Init loads a cached table (first launch, the table calibrated beforehand)
  calibration  MPI_Init calibrates (COLLTUNE_CALIBRATE=always, budget 2 s)
  collective   the collectives, after MPI_Init (forced built trees: ecef, model_linear, split)
and one fault drawn at random, on a random rank:
  hook   a failure at a random injection point of the phase (COLLTUNE_TEST_FAIL_AT)
  alloc  every malloc of at least 64 B, 4 KiB or 1 MiB fails from a random time on
         (tests/support/fail_alloc.c: COLLTUNE_TEST_FAIL_ALLOC_*)
  kill   the rank gets SIGKILL at a random time
The same alloc or kill fault is also run without colltune (native): its hangs are MPICH's.
Outcomes: completed (exit 0, every result right), stopped (a non-zero exit: the error handler,
a killed rank, MPICH's own abort), wrong (exit 0 with a wrong result: never acceptable), hang (no
end within --timeout). Files left: temporaries (*.tmp.*) in the run's cache directory after a
clean follow-up run there. Writes OUT/runs.csv and OUT/summary.txt.
"""
import argparse
import csv
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POINTS = {
    "init": ["init.identities", "init.table", "init.setup"],
    "calibration": ["init.identities", "calibrate.measure", "init.calibrated"],
    "collective": ["comm.create", "comm.decide", "call.tree", "call.decide"],
}


def pids_of(prog, start):
    """The ranks (processes running prog started by this run), by /proc."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{d}/cmdline").read_bytes().split(b"\0")
            env = Path(f"/proc/{d}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].decode(errors="replace") == prog and f"FAULT_RUN={start}".encode() in env:
            rank = next((e[9:].decode() for e in env if e.startswith(b"PMI_RANK=")), None)
            out.append((int(d), rank))
    return out


def launch(a, app, np_, pre, env, kind, at, rank, i):
    """One run; returns (outcome, exit code, wall seconds, whether the kill happened)."""
    cmd = ["mpiexec", "-n", str(np_), "env", "LD_PRELOAD=" + ":".join(pre), app]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True, text=True)
    killed = False
    if kind == "kill":
        while p.poll() is None and time.monotonic() - t0 < a.timeout and not killed:
            if time.monotonic() - t0 >= at:
                for pid, r in pids_of(app, i):
                    if r == str(rank):
                        os.kill(pid, signal.SIGKILL)
                        killed = True
            time.sleep(0.01)
    try:
        out, _ = p.communicate(timeout=max(1, a.timeout - (time.monotonic() - t0)))
        rc, hang = p.returncode, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        for pid, _ in pids_of(app, i):
            os.kill(pid, signal.SIGKILL)
        out, _ = p.communicate()
        rc, hang = None, True
    wall = time.monotonic() - t0
    if hang:
        outcome = "hang"
    elif rc == 0 and f"faults np={np_}: 0 wrong" in out:
        outcome = "completed"
    elif rc == 0:
        outcome = "wrong"
    else:
        outcome = "stopped"
    return outcome, rc, wall, killed


def run_once(a, build, rng, i, base_cache):
    np_ = rng.choice(a.np)
    phase = rng.choice(list(POINTS))
    kind = rng.choice(["hook", "alloc", "kill"])
    rank = rng.randrange(np_)
    cache = Path(tempfile.mkdtemp(prefix="colltune-fault-"))
    if phase != "calibration" and base_cache.get(np_):
        shutil.copytree(base_cache[np_], cache, dirs_exist_ok=True)
    env = dict(os.environ, COLLTUNE_STATS="0", COLLTUNE_CACHE_DIR=str(cache),
               COLLTUNE_CALIBRATE_BUDGET="2", FAULT_RUN=str(i),
               COLLTUNE_CALIBRATE="always" if phase == "calibration" else "first-launch")
    if phase == "collective":
        env.update(COLLTUNE_BCAST_ALGORITHM="ecef", COLLTUNE_SCATTER_ALGORITHM="model_linear",
                   COLLTUNE_GATHER_ALGORITHM="split")
    pre = [str(build / "tests/libcolltune_testhooks.so")]
    if np_ > 2:
        pre.insert(0, str(build / "tests/libcolltune_test_ucxshim.so"))
    # Runs last about 0.3 s (init), 1-2.5 s (calibration) and 0.2-0.8 s (collectives) here.
    at = rng.uniform(0, {"init": 0.4, "calibration": 2.0, "collective": 0.6}[phase])
    detail = ""
    if kind == "hook":
        point = rng.choice(POINTS[phase])
        env["COLLTUNE_TEST_FAIL_AT"] = f"{point}:{rank}"
        detail = point
    elif kind == "alloc":
        size = rng.choice([64, 4096, 1 << 20])
        pre.insert(0, str(build / "tests/libcolltune_test_failalloc.so"))
        env.update(COLLTUNE_TEST_FAIL_ALLOC_RANK=str(rank), COLLTUNE_TEST_FAIL_ALLOC_BYTES=str(size),
                   COLLTUNE_TEST_FAIL_ALLOC_AFTER_S=f"{at:.3f}")
        detail = f">={size}B from {at:.2f}s"
    else:
        detail = f"at {at:.2f}s"
    app = str(build / "tests/mpi_faults")
    outcome, rc, wall, killed = launch(a, app, np_, pre, env, kind, at, rank, i)
    if kind == "kill" and not killed:
        detail += " (ended before)"
    # The same fault without colltune (alloc and kill: hooks are colltune's own).
    native = ""
    if kind != "hook":
        npre = [x for x in pre if "testhooks" not in x]
        native = launch(a, app, np_, npre, env, kind, at, rank, i)[0]
    # A clean follow-up run in the same cache directory, then the temporaries left.
    env2 = {k: v for k, v in env.items() if not k.startswith("COLLTUNE_TEST_") and k != "FAULT_RUN"}
    env2["LD_PRELOAD"] = ""
    subprocess.run(["mpiexec", "-n", str(np_), "env",
                    "LD_PRELOAD=" + ":".join(x for x in pre if "failalloc" not in x), app],
                   env=env2, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=a.timeout)
    left = [f.name for f in cache.iterdir() if ".tmp." in f.name]
    shutil.rmtree(cache, ignore_errors=True)
    return dict(run=i, np=np_, phase=phase, kind=kind, rank=rank, detail=detail,
                outcome=outcome, exit=rc, wall_s=round(wall, 2), files_left=len(left),
                native=native)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--np", default="2,4,8")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    a.np = [int(x) for x in a.np.split(",")]
    build = a.build.resolve()
    a.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(a.seed)
    # A cached table per np, for the runs whose MPI_Init loads one.
    base_cache = {}
    for n in a.np:
        d = Path(tempfile.mkdtemp(prefix="colltune-fault-base-"))
        pre = [str(build / "tests/libcolltune_testhooks.so")]
        if n > 2:
            pre.insert(0, str(build / "tests/libcolltune_test_ucxshim.so"))
        subprocess.run(["mpiexec", "-n", str(n), "env", "LD_PRELOAD=" + ":".join(pre),
                        str(build / "tests/mpi_faults")],
                       env=dict(os.environ, COLLTUNE_CACHE_DIR=str(d),
                                COLLTUNE_CALIBRATE="first-launch", COLLTUNE_CALIBRATE_BUDGET="2"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        base_cache[n] = d
    rows = []
    for i in range(a.runs):
        r = run_once(a, build, rng, i, base_cache)
        rows.append(r)
        print(",".join(str(r[k]) for k in r), flush=True)
    for d in base_cache.values():
        shutil.rmtree(d, ignore_errors=True)
    with open(a.out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = ["phase,kind,runs,completed,stopped,wrong,hang,files_left,native_hang"]
    for phase in list(POINTS) + ["all"]:
        for kind in ["hook", "alloc", "kill", "all"]:
            sel = [r for r in rows if (phase == "all" or r["phase"] == phase)
                   and (kind == "all" or r["kind"] == kind)]
            if not sel or (phase != "all" and kind == "all") or (phase == "all" and kind != "all"):
                continue
            c = {o: sum(r["outcome"] == o for r in sel) for o in ["completed", "stopped", "wrong", "hang"]}
            lines.append(f"{phase},{kind},{len(sel)},{c['completed']},{c['stopped']},{c['wrong']},"
                         f"{c['hang']},{sum(r['files_left'] for r in sel)},"
                         f"{sum(r['native'] == 'hang' for r in sel)}")
    (a.out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())

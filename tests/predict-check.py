#!/usr/bin/env python3
"""colltune-predict comm against the LMO formulas worked out here from a table's YAML.

Direct links: C_i + C_j + m max(t_i + 1/beta_ij + t_j, port_i, port_in_j). Then the table is cut
in two calibrated apart (h0-h4 and h3-h7: h3 and h4 in both) and every pair across is forecast
from the merged tables: the least time at m over every simple path of measured links, latencies
summed and the slowest hop's rate, found here by enumerating the paths.
  predict-check.py COLLTUNE_PREDICT TABLE WORKDIR
"""
import csv
import io
import itertools
import os
import subprocess
import sys

import yaml

predict, table_path, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
doc = yaml.safe_load(open(table_path))
model = doc["model"]
ids = model["identities"]
n = len(ids)


def val(x):
    return x[0]


def hop(mdl, i, j):
    """(fixed, per_byte) of one message from identity index i to j of mdl."""
    per = val(mdl["t"][i]) + val(mdl["inv_beta"][i][j]) + val(mdl["t"][j])
    if "port" in mdl:
        per = max(per, val(mdl["port"][i]))
    if "port_in" in mdl:
        per = max(per, val(mdl["port_in"][j]))
    return val(mdl["C"][i]) + val(mdl["C"][j]), per


def run(args):
    out = subprocess.run([predict, "comm"] + args + ["--format", "csv"], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def close(a, b):  # the CSV carries 9 significant digits
    return abs(a - b) <= 1e-8 * max(abs(a), abs(b), 1e-30)


failures = 0


def check(what, ok):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    failures += not ok


sizes = [0, 1500, 1048576]
for a, b in [(0, 5), (2, 7), (6, 1)]:
    for row in run(["--table", table_path, "--from", ids[a], "--to", ids[b], "--bytes",
                    ",".join(map(str, sizes))]):
        m = float(row["bytes"])
        f, p = hop(model, a, b)
        check(f"{ids[a]}>{ids[b]} {m:.0f} B measured: {row['seconds']} vs {f + m * p:.9g}",
              row["source"] == "measured" and close(float(row["seconds"]), f + m * p))


def cut(keep, name):
    d = yaml.safe_load(open(table_path))
    mdl = d["model"]
    mdl["identities"] = [ids[i] for i in keep]
    for k in ("C", "t", "o", "port", "port_in"):
        if k in mdl:
            mdl[k] = [mdl[k][i] for i in keep]
    mdl["inv_beta"] = [[mdl["inv_beta"][i][j] for j in keep] for i in keep]
    d["platform"]["hosts"] = [h for h in d["platform"]["hosts"] if h["name"] in mdl["identities"]]
    d["calibration"]["rank_identity"] = list(range(len(keep)))
    d["calibration"]["processes"] = len(keep)
    path = os.path.join(work, name)
    with open(path, "w") as f:
        yaml.safe_dump(d, f)
    return path


left, right = [0, 1, 2, 3, 4], [3, 4, 5, 6, 7]
t1, t2 = cut(left, "left.yaml"), cut(right, "right.yaml")
measured = {(i, j) for part in (left, right) for i in part for j in part if i != j}


def best(a, b, m):
    top = None
    others = [v for v in range(n) if v not in (a, b)]
    for k in range(len(others) + 1):
        for mid in itertools.permutations(others, k):
            path = (a,) + mid + (b,)
            hops = list(zip(path, path[1:]))
            if not all(h in measured for h in hops):
                continue
            f = sum(hop(model, i, j)[0] for i, j in hops)
            p = max(max(0.0, hop(model, i, j)[1]) for i, j in hops)
            if top is None or f + m * p < top[0]:
                top = (f + m * p, path)
    return top


for a in [0, 1, 2]:
    for b in [5, 6, 7]:
        for row in run(["--table", t1, "--table", t2, "--from", ids[a], "--to", ids[b],
                        "--bytes", ",".join(map(str, sizes))]):
            m = float(row["bytes"])
            t, path = best(a, b, m)
            want = ">".join(ids[v] for v in path)
            check(f"{ids[a]}>{ids[b]} {m:.0f} B combined via {row['path']}: {row['seconds']} vs "
                  f"{t:.9g} via {want}",
                  row["source"] == "combined" and close(float(row["seconds"]), t))
# Within one of the tables a link stays measured.
row = run(["--table", t1, "--table", t2, "--from", "h3", "--to", "h4", "--bytes", "1000"])[0]
check("h3>h4 measured in both tables", row["source"] == "measured")
print("PASS" if failures == 0 else f"{failures} FAILED")
sys.exit(1 if failures else 0)

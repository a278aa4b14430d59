#!/usr/bin/env python3
"""scripts/platform-gen.py --repeat: host k of the repeated star is host k mod --hosts of the
plain one (bandwidth, latency, overhead, speed; names h0..hN-1), racks are refused.
  platform-repeat-check.py SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile

gen = os.path.join(sys.argv[1], "scripts", "platform-gen.py")


def hosts(d):
    out = []
    for line in open(os.path.join(d, "truth.yaml")):
        if line.strip().startswith("- {name:"):
            fields = dict(kv.split(": ") for kv in line.strip()[3:-1].split(", "))
            out.append(fields)
    return out


with tempfile.TemporaryDirectory() as t:
    subprocess.run([gen, "--hosts", "8", "--kind", "hetero", "--seed", "3", "--out", f"{t}/a"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([gen, "--hosts", "8", "--kind", "hetero", "--seed", "3", "--repeat", "20",
                    "--out", f"{t}/b"], check=True, stdout=subprocess.DEVNULL)
    a, b = hosts(f"{t}/a"), hosts(f"{t}/b")
    fail = []
    if len(a) != 8 or len(b) != 20:
        fail.append(f"{len(a)} and {len(b)} hosts, not 8 and 20")
    for k, h in enumerate(b):
        want = dict(a[k % 8], name=f"h{k}")
        if h != want:
            fail.append(f"host {k}: {h}, not {want}")
    xml = open(f"{t}/b/platform.xml").read()
    if xml.count("<host id=") != 20 or 'host_link id="h19"' not in xml:
        fail.append("platform.xml does not hold h0..h19 with their links")
    r = subprocess.run([gen, "--hosts", "8", "--kind", "racks", "--repeat", "16", "--out",
                        f"{t}/c"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode == 0 or "--repeat 16: homo and hetero only" not in r.stderr:
        fail.append(f"racks with --repeat: exit {r.returncode}, {r.stderr.strip()}")
print("PASS" if not fail else "\n".join("FAIL: " + f for f in fail))
sys.exit(1 if fail else 0)

#!/usr/bin/env python3
"""Star-cluster platforms for SimGrid SMPI, with their exact ground truth.

Each host has a private SPLITDUPLEX link (bandwidth B_i, latency L_i) to a non-blocking switch
and a per-message software overhead o_i (SMPI host properties smpi/os and smpi/or, both o_i).
Under the settings of docs/testbeds.md (CM02 model, no computation, detached sends) the
one-way time of M bytes from i to j is exactly

    T_ij(M) = o_i + o_j + L_i + L_j + (M + 16) / min(B_i, B_j)      (SMPI adds a 16-byte envelope)

Writes DIR/platform.xml, DIR/hostfile (one host per line, rank r on line r) and DIR/truth.yaml.

  platform-gen.py --hosts 16 --kind hetero --seed 1 [--fast-host 0] --out DIR
"""
import argparse
import math
import os
import random
import sys

SMPI_ENVELOPE = 16


def host_params(kind, n, rng):
    hosts = []
    for i in range(n):
        if kind == "homo":
            bw, lat, ovh, speed = 1.25e9, 2e-6, 1e-6, 1e9
        else:
            # Log-uniform link rates 100 Mbit/s .. 10 Gbit/s, latencies 1..50 us,
            # overheads 0.5..5 us, host speeds 0.5..4 Gflop/s.
            bw = math.exp(rng.uniform(math.log(12.5e6), math.log(1.25e9)))
            lat = rng.uniform(1e-6, 50e-6)
            ovh = rng.uniform(0.5e-6, 5e-6)
            speed = rng.uniform(0.5e9, 4e9)
        hosts.append({"name": f"h{i}", "bandwidth": bw, "latency": lat, "overhead": ovh,
                      "speed": speed})
    return hosts


def platform_xml(hosts):
    out = ["<?xml version='1.0'?>",
           '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           '<platform version="4.1">',
           '  <zone id="star" routing="Cluster">']
    for h in hosts:
        out.append(f'    <host id="{h["name"]}" speed="{h["speed"]:.6g}f">')
        out.append(f'      <prop id="smpi/os" value="0:{h["overhead"]:.9g}:0"/>')
        out.append(f'      <prop id="smpi/or" value="0:{h["overhead"]:.9g}:0"/>')
        out.append('    </host>')
        out.append(f'    <link id="{h["name"]}_link" sharing_policy="SPLITDUPLEX" '
                   f'bandwidth="{h["bandwidth"]:.9g}Bps" latency="{h["latency"]:.9g}s"/>')
        out.append(f'    <host_link id="{h["name"]}" up="{h["name"]}_link_UP" '
                   f'down="{h["name"]}_link_DOWN"/>')
    out.append('    <router id="switch"/>')
    out.append('  </zone>')
    out.append('</platform>')
    return "\n".join(out) + "\n"


def truth_yaml(hosts, kind, seed):
    out = ["# Ground truth of this star platform (written by scripts/platform-gen.py).",
           "# one_way(i, j, M) = overhead_i + overhead_j + latency_i + latency_j"
           " + (M + 16) / min(bandwidth_i, bandwidth_j)   [seconds, bytes, bytes/s]",
           f"kind: {kind}", f"seed: {seed}", f"envelope_bytes: {SMPI_ENVELOPE}", "hosts:"]
    for h in hosts:
        out.append(f'  - {{name: {h["name"]}, bandwidth: {h["bandwidth"]:.9g}, '
                   f'latency: {h["latency"]:.9g}, overhead: {h["overhead"]:.9g}, '
                   f'speed: {h["speed"]:.6g}}}')
    return "\n".join(out) + "\n"


def one_way(hosts, i, j, m):
    a, b = hosts[i], hosts[j]
    return (a["overhead"] + b["overhead"] + a["latency"] + b["latency"]
            + (m + SMPI_ENVELOPE) / min(a["bandwidth"], b["bandwidth"]))


def write_atomic(path, text):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hosts", type=int, required=True)
    p.add_argument("--kind", choices=["homo", "hetero"], default="hetero")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    p.add_argument("--fast-host", type=int, metavar="I",
                   help="give host I a 1 TB/s link, more than all others together, so that "
                        "flows to or from it never share a link (exact collective formulas)")
    a = p.parse_args()
    if not 1 <= a.hosts <= 4096:
        sys.exit(f"platform-gen: --hosts {a.hosts}: must be 1..4096")
    if a.fast_host is not None and not 0 <= a.fast_host < a.hosts:
        sys.exit(f"platform-gen: --fast-host {a.fast_host}: must be 0..{a.hosts - 1}")
    os.makedirs(a.out, exist_ok=True)
    hosts = host_params(a.kind, a.hosts, random.Random(a.seed))
    if a.fast_host is not None:
        hosts[a.fast_host]["bandwidth"] = 1e12
    write_atomic(os.path.join(a.out, "platform.xml"), platform_xml(hosts))
    write_atomic(os.path.join(a.out, "hostfile"), "".join(h["name"] + "\n" for h in hosts))
    write_atomic(os.path.join(a.out, "truth.yaml"), truth_yaml(hosts, a.kind, a.seed))


if __name__ == "__main__":
    main()

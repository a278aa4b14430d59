#!/usr/bin/env python3
"""Star-cluster and rack platforms for SimGrid SMPI, with their exact ground truth.

Each host has a private SPLITDUPLEX link (bandwidth B_i, latency L_i) to a non-blocking switch
and a per-message software overhead o_i (SMPI host properties smpi/os and smpi/or, both o_i).
Under the settings of docs/testbeds.md (CM02 model, no computation, detached sends) the
one-way time of M bytes from i to j is exactly

    T_ij(M) = o_i + o_j + L_i + L_j + (M + 16) / min(B_i, B_j)      (SMPI adds a 16-byte envelope)

Kinds lmo-homo and lmo-hetero follow the LMO model of docs/model.md instead: every pair of
hosts has its own FATPIPE link (bandwidth beta_ij, no latency, flows never share it) and host i
has send and receive overheads C_i + t_i M (smpi/os, smpi/ois for MPI_Isend, smpi/or, each
with a per-byte factor), so

    T_ij(M) = C_i + t_i M + (M + 16) / beta_ij + C_j + t_j M

(LMO exactly but for the 16-byte envelope: at most 16 / beta_ij = 0.013 us per message at
the 10-100 Gbit/s link rates used). truth.yaml then lists C, t and inv_beta.

Kinds racks and racks-homo are not stars: the hosts (drawn as for hetero and homo) form R
racks of contiguous blocks (--racks R; rack k holds hosts [k n / R, (k + 1) n / R)). Each host
has its private SPLITDUPLEX link (B_i, L_i) to its rack's router, and each rack router ONE
SPLITDUPLEX uplink (bandwidth U = --uplink-bw, latency L_U = --uplink-latency) to a core
router, shared by every flow that leaves or enters the rack (one zone, Floyd routing over
routes between neighbours). Alone on the network, a message within a rack takes the star's
T_ij(M); one between racks

    T_ij(M) = o_i + o_j + L_i + L_j + 2 L_U + (M + 16) / min(B_i, B_j, U)

truth.yaml lists the hosts as for the stars, each with its rack, and racks, uplink_bandwidth,
uplink_latency.

--repeat N (homo and hetero): a star of N hosts whose host k is a copy of host k mod --hosts
(its link, latency, overhead and speed; named hN for every N): the platform a table calibrated
on the first --hosts hosts describes, where a forecast repeats that table's identities for
more processes (docs/app-models.md, "1024 processes").

Writes DIR/platform.xml, DIR/hostfile (one host per line, rank r on line r) and DIR/truth.yaml.

  platform-gen.py --hosts 16 --kind hetero --seed 1 [--fast-host 0] --out DIR
  platform-gen.py --hosts 64 --kind racks --racks 4 [--uplink-bw 1.25e9] --seed 1 --out DIR
  platform-gen.py --hosts 64 --kind hetero --seed 61 --repeat 1024 --out DIR
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


def rack_of(i, n, racks):
    """Rack of host i: rack k holds the contiguous block [k n / R, (k + 1) n / R)."""
    return max(k for k in range(racks) if k * n // racks <= i)


def racks_platform_xml(hosts, racks, uplink_bw, uplink_lat):
    n = len(hosts)
    out = ["<?xml version='1.0'?>",
           '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           '<platform version="4.1">',
           '  <zone id="racks" routing="Floyd">']
    for h in hosts:
        out.append(f'    <host id="{h["name"]}" speed="{h["speed"]:.6g}f">')
        out.append(f'      <prop id="smpi/os" value="0:{h["overhead"]:.9g}:0"/>')
        out.append(f'      <prop id="smpi/or" value="0:{h["overhead"]:.9g}:0"/>')
        out.append('    </host>')
    for k in range(racks):
        out.append(f'    <router id="rack{k}"/>')
    out.append('    <router id="core"/>')
    for h in hosts:
        out.append(f'    <link id="{h["name"]}_link" sharing_policy="SPLITDUPLEX" '
                   f'bandwidth="{h["bandwidth"]:.9g}Bps" latency="{h["latency"]:.9g}s"/>')
    for k in range(racks):
        out.append(f'    <link id="rack{k}_uplink" sharing_policy="SPLITDUPLEX" '
                   f'bandwidth="{uplink_bw:.9g}Bps" latency="{uplink_lat:.9g}s"/>')
    # Routes between neighbours only (symmetrical: the way back takes the DOWN halves);
    # Floyd finds the rest (the topology is a tree, so every shortest path is the only one).
    for i, h in enumerate(hosts):
        out.append(f'    <route src="{h["name"]}" dst="rack{rack_of(i, n, racks)}">'
                   f'<link_ctn id="{h["name"]}_link" direction="UP"/></route>')
    for k in range(racks):
        out.append(f'    <route src="rack{k}" dst="core">'
                   f'<link_ctn id="rack{k}_uplink" direction="UP"/></route>')
    out.append('  </zone>')
    out.append('</platform>')
    return "\n".join(out) + "\n"


def racks_truth_yaml(hosts, kind, seed, racks, uplink_bw, uplink_lat):
    n = len(hosts)
    out = ["# Ground truth of this rack platform (written by scripts/platform-gen.py).",
           "# Host i: private link (bandwidth_i, latency_i) to its rack's router; each rack: one",
           "# uplink (uplink_bandwidth, uplink_latency) to the core router, shared by all flows",
           "# leaving or entering the rack. Alone on the network, within a rack:",
           "# one_way(i, j, M) = overhead_i + overhead_j + latency_i + latency_j"
           " + (M + 16) / min(bandwidth_i, bandwidth_j)",
           "# between racks: + 2 uplink_latency, and min(bandwidth_i, bandwidth_j, uplink_bandwidth)"
           "   [seconds, bytes, bytes/s]",
           f"kind: {kind}", f"seed: {seed}", f"envelope_bytes: {SMPI_ENVELOPE}",
           f"racks: {racks}", f"uplink_bandwidth: {uplink_bw:.9g}",
           f"uplink_latency: {uplink_lat:.9g}", "hosts:"]
    for i, h in enumerate(hosts):
        out.append(f'  - {{name: {h["name"]}, bandwidth: {h["bandwidth"]:.9g}, '
                   f'latency: {h["latency"]:.9g}, overhead: {h["overhead"]:.9g}, '
                   f'speed: {h["speed"]:.6g}, rack: {rack_of(i, n, racks)}}}')
    return "\n".join(out) + "\n"


def lmo_params(kind, n, rng):
    if kind == "lmo-homo":
        c, t = [5e-6] * n, [0.5e-9] * n
        beta = [[5e9] * n for _ in range(n)]
    else:
        c = [rng.uniform(2e-6, 20e-6) for _ in range(n)]
        t = [rng.uniform(0.1e-9, 1e-9) for _ in range(n)]
        beta = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                beta[i][j] = beta[j][i] = math.exp(rng.uniform(math.log(1.25e9), math.log(1.25e10)))
    return c, t, beta


def lmo_platform_xml(c, t, beta):
    n = len(c)
    out = ["<?xml version='1.0'?>",
           '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           '<platform version="4.1">',
           '  <zone id="lmo" routing="Full">']
    for i in range(n):
        out.append(f'    <host id="h{i}" speed="1Gf">')
        out.append(f'      <prop id="smpi/os" value="0:{c[i]:.9g}:{t[i]:.9g}"/>')
        out.append(f'      <prop id="smpi/or" value="0:{c[i]:.9g}:{t[i]:.9g}"/>')
        out.append(f'      <prop id="smpi/ois" value="0:{c[i]:.9g}:{t[i]:.9g}"/>')
        out.append('    </host>')
    for i in range(n):
        for j in range(i + 1, n):
            out.append(f'    <link id="l{i}_{j}" bandwidth="{beta[i][j]:.9g}Bps" latency="0s" '
                       'sharing_policy="FATPIPE"/>')
    for i in range(n):
        for j in range(i + 1, n):
            out.append(f'    <route src="h{i}" dst="h{j}"><link_ctn id="l{i}_{j}"/></route>')
    out.append('  </zone>')
    out.append('</platform>')
    return "\n".join(out) + "\n"


def lmo_truth_yaml(c, t, beta, kind, seed):
    n = len(c)
    out = ["# Ground truth of this LMO platform (written by scripts/platform-gen.py).",
           "# one_way(i, j, M) = C_i + t_i M + (M + 16) inv_beta_ij + C_j + t_j M",
           f"kind: {kind}", f"seed: {seed}", f"envelope_bytes: {SMPI_ENVELOPE}",
           "C: [" + ", ".join(f"{v:.9g}" for v in c) + "]",
           "t: [" + ", ".join(f"{v:.9g}" for v in t) + "]",
           "inv_beta:"]
    for i in range(n):
        out.append("  - [" + ", ".join("0" if i == j else f"{1 / beta[i][j]:.9g}"
                                        for j in range(n)) + "]")
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
    p.add_argument("--kind", choices=["homo", "hetero", "lmo-homo", "lmo-hetero", "racks",
                                      "racks-homo"],
                   default="hetero")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    p.add_argument("--fast-host", type=int, metavar="I",
                   help="give host I a 1 TB/s link, more than all others together, so that "
                        "flows to or from it never share a link (exact collective formulas)")
    p.add_argument("--racks", type=int, default=4, metavar="R",
                   help="racks and racks-homo: number of racks (contiguous blocks of hosts)")
    p.add_argument("--uplink-bw", type=float, default=1.25e9, metavar="BPS",
                   help="racks and racks-homo: bandwidth of each rack's uplink, bytes/s "
                        "(default 1.25e9, 10 Gbit/s)")
    p.add_argument("--uplink-latency", type=float, default=5e-6, metavar="S",
                   help="racks and racks-homo: latency of each rack's uplink, s (default 5e-6)")
    p.add_argument("--repeat", type=int, metavar="N",
                   help="homo and hetero: N hosts, host k a copy of host k mod --hosts")
    a = p.parse_args()
    if not 1 <= a.hosts <= 4096:
        sys.exit(f"platform-gen: --hosts {a.hosts}: must be 1..4096")
    if a.fast_host is not None and not 0 <= a.fast_host < a.hosts:
        sys.exit(f"platform-gen: --fast-host {a.fast_host}: must be 0..{a.hosts - 1}")
    racks = a.kind in ("racks", "racks-homo")
    if a.repeat is not None and (a.kind not in ("homo", "hetero") or
                                 not a.hosts <= a.repeat <= 4096):
        sys.exit(f"platform-gen: --repeat {a.repeat}: homo and hetero only, "
                 f"{a.hosts}..4096 hosts")
    if racks and not 1 <= a.racks <= a.hosts:
        sys.exit(f"platform-gen: --racks {a.racks}: must be 1..{a.hosts} (the hosts)")
    if racks and not (a.uplink_bw > 0 and a.uplink_latency >= 0):
        sys.exit("platform-gen: --uplink-bw must be > 0 and --uplink-latency >= 0")
    os.makedirs(a.out, exist_ok=True)
    if a.kind.startswith("lmo-"):
        c, t, beta = lmo_params(a.kind, a.hosts, random.Random(a.seed))
        write_atomic(os.path.join(a.out, "platform.xml"), lmo_platform_xml(c, t, beta))
        write_atomic(os.path.join(a.out, "hostfile"), "".join(f"h{i}\n" for i in range(a.hosts)))
        write_atomic(os.path.join(a.out, "truth.yaml"), lmo_truth_yaml(c, t, beta, a.kind, a.seed))
        return
    hosts = host_params("homo" if a.kind == "racks-homo" else a.kind, a.hosts,
                        random.Random(a.seed))
    if a.fast_host is not None:
        hosts[a.fast_host]["bandwidth"] = 1e12
    if a.repeat is not None:
        hosts = [dict(hosts[k % a.hosts], name=f"h{k}") for k in range(a.repeat)]
    if racks:
        write_atomic(os.path.join(a.out, "platform.xml"),
                     racks_platform_xml(hosts, a.racks, a.uplink_bw, a.uplink_latency))
        write_atomic(os.path.join(a.out, "truth.yaml"),
                     racks_truth_yaml(hosts, a.kind, a.seed, a.racks, a.uplink_bw,
                                      a.uplink_latency))
    else:
        write_atomic(os.path.join(a.out, "platform.xml"), platform_xml(hosts))
        write_atomic(os.path.join(a.out, "truth.yaml"), truth_yaml(hosts, a.kind, a.seed))
    write_atomic(os.path.join(a.out, "hostfile"), "".join(h["name"] + "\n" for h in hosts))


if __name__ == "__main__":
    main()

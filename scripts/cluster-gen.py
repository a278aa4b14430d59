#!/usr/bin/env python3
"""Clusters of multi-core nodes for SimGrid SMPI: the platforms users run.

Each node has C cores (C processes, one per core) behind ONE private SPLITDUPLEX link to the
network: every flow that leaves or enters the node shares it. Processes of one node talk
through the node's loopback (shared memory: its own bandwidth and latency, flows do not share
it). Ranks are placed by node (ranks 0..C-1 on the first node, as srun and mpiexec place them by
default).

Kinds:
  flat      one cluster of N identical nodes around one switch (a star of nodes)
  two-gen   two node generations in one machine: N/2 new nodes (C cores, a 100 Gbit/s link)
            and N/2 old ones (C/2 cores, a 10 Gbit/s link, slower loopback), each generation
            around its own switch, the two switches joined by one backbone link
  fat-tree  N nodes under a two-level fat tree (SimGrid's FAT_TREE topology: leaf switches of
            N/L nodes, L = the largest divisor of N up to sqrt N, each leaf with two uplinks to
            two top switches)

Writes DIR/platform.xml, DIR/hostfile (one host per line, rank r on line r) and DIR/nodes.txt
(the cores of each node, for readers).

  cluster-gen.py --nodes 8 --cores 16 --kind flat --out DIR
"""
import argparse
import math
import os
import sys

# Link classes: bytes/s and seconds.
NEW = {"bw": 12.5e9, "lat": 1.0e-6, "lo_bw": 20e9, "lo_lat": 0.2e-6, "speed": "2Gf"}
OLD = {"bw": 1.25e9, "lat": 5.0e-6, "lo_bw": 8e9, "lo_lat": 0.5e-6, "speed": "1Gf"}
BACKBONE = {"bw": 25e9, "lat": 2.0e-6}


def cluster(cid, prefix, nodes, cores, cls, extra=""):
    return (f'    <cluster id="{cid}" prefix="{prefix}" suffix="" radical="0-{nodes - 1}" '
            f'speed="{cls["speed"]}" core="{cores}" bw="{cls["bw"]:.6g}Bps" '
            f'lat="{cls["lat"]:.6g}s" sharing_policy="SPLITDUPLEX" '
            f'loopback_bw="{cls["lo_bw"]:.6g}Bps" loopback_lat="{cls["lo_lat"]:.6g}s"'
            f'{extra}/>\n')


def header():
    return ('<?xml version="1.0"?>\n'
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            '<!-- Written by colltune scripts/cluster-gen.py. -->\n'
            '<platform version="4.1">\n')


def write_atomic(path, text):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", type=int, required=True)
    p.add_argument("--cores", type=int, required=True, help="processes per (new) node")
    p.add_argument("--kind", choices=["flat", "two-gen", "fat-tree"], default="flat")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if not 2 <= a.nodes <= 1024:
        sys.exit(f"cluster-gen: --nodes {a.nodes}: must be 2..1024")
    if not 1 <= a.cores <= 256:
        sys.exit(f"cluster-gen: --cores {a.cores}: must be 1..256")
    if a.kind == "two-gen" and (a.nodes % 2 or a.cores % 2):
        sys.exit("cluster-gen: --kind two-gen: --nodes and --cores must be even")
    os.makedirs(a.out, exist_ok=True)
    xml = header()
    hosts = []  # (name, cores), rank order
    if a.kind == "flat":
        xml += cluster("nodes", "n", a.nodes, a.cores, NEW)
        hosts = [(f"n{i}", a.cores) for i in range(a.nodes)]
    elif a.kind == "fat-tree":
        leaf = max(d for d in range(1, math.isqrt(a.nodes) + 1) if a.nodes % d == 0)
        per_leaf = a.nodes // leaf
        topo = f' topology="FAT_TREE" topo_parameters="2;{per_leaf},{leaf};1,2;1,1"'
        xml += cluster("nodes", "n", a.nodes, a.cores, NEW, topo)
        hosts = [(f"n{i}", a.cores) for i in range(a.nodes)]
    else:
        half = a.nodes // 2
        xml += '  <zone id="machine" routing="Full">\n'
        xml += cluster("new", "n", half, a.cores, NEW, ' router_id="new_router"')
        xml += cluster("old", "o", half, a.cores // 2, OLD, ' router_id="old_router"')
        xml += (f'    <link id="backbone" bandwidth="{BACKBONE["bw"]:.6g}Bps" '
                f'latency="{BACKBONE["lat"]:.6g}s"/>\n'
                '    <zoneRoute src="new" dst="old" gw_src="new_router" gw_dst="old_router">\n'
                '      <link_ctn id="backbone"/>\n'
                '    </zoneRoute>\n'
                '  </zone>\n')
        hosts = [(f"n{i}", a.cores) for i in range(half)]
        hosts += [(f"o{i}", a.cores // 2) for i in range(half)]
    xml += '</platform>\n'
    write_atomic(os.path.join(a.out, "platform.xml"), xml)
    write_atomic(os.path.join(a.out, "hostfile"),
                 "".join(f"{h}\n" * c for h, c in hosts))
    write_atomic(os.path.join(a.out, "nodes.txt"), "".join(f"{h} {c}\n" for h, c in hosts))
    print(sum(c for _, c in hosts))


if __name__ == "__main__":
    main()

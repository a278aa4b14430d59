"""Reads the ground truth of a star platform (truth.yaml of scripts/platform-gen.py).

    hosts, envelope = load(path)     hosts[i] = (bandwidth B, latency L, overhead o)
    one_way(hosts, i, j, m, envelope) = o_i + o_j + L_i + L_j + (m + envelope) / min(B_i, B_j)
"""
import re


def load(path):
    hosts, envelope = [], 16
    for line in open(path):
        m = re.search(r"bandwidth: ([^,]+), latency: ([^,]+), overhead: ([^,]+),", line)
        if m:
            hosts.append(tuple(float(x) for x in m.groups()))
        m = re.match(r"envelope_bytes: (\d+)", line)
        if m:
            envelope = int(m.group(1))
    return hosts, envelope


def one_way(hosts, i, j, m, envelope=16):
    (bi, li, oi), (bj, lj, oj) = hosts[i], hosts[j]
    return oi + oj + li + lj + (m + envelope) / min(bi, bj)

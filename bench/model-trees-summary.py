#!/usr/bin/env python3
"""Summary of bench/model-trees.sh: per case (label, op, bytes, root) the best fixed candidate
(native = MPICH's selection, linear, binomial), the best of all candidates (also the trees built
from the model: every other registry name), colltune's pick (rows "colltune:NAME") and a lower
bound from the platform's ground truth; geometric means per platform kind and communicator.

  model-trees-summary.py CSV PLATFORMS_DIR [--send-overhead] [--forced-only NAME[,NAME...]]

CSV rows: label,np,op,bytes,root,algorithm,seconds; label KINDn-COMM (hetero16-half), whose
platform is PLATFORMS_DIR/KINDn/truth.yaml (scripts/platform-gen.py: star or racks kinds; other
kinds get no bound). Members: world = ranks 0..n-1 on hosts h0..h(n-1); half = ranks
0..n/2-1 on h0..h(n/2-1); reversed = rank r on h(n-1-r). The root is a communicator rank.
Per case: speed-up over MPICH = native / colltune, gain = best fixed / colltune, regret =
colltune / best of all, the best model-built tree and its gain over the best fixed.
--forced-only: the registry's algorithms that are forced or ruled only (decided false, not
candidates of colltune's decisions: chain); "dregret" is colltune / the best of the decision's
candidates (every candidate but these), beside the regret against all.
Writes every case with these columns to cases.csv beside CSV.

Lower bound (e = m + 16, the 16-byte SMPI envelope; m bytes per process; L_i, B_i, o_i: host i's
link latency and bandwidth and its receive overhead smpi/or; racks: X(i,j) = 2 L_U between
racks, else 0, U the uplink bandwidth; s_i the sender's overhead: 0, as an MPI_Isend costs its
sender smpi/ois, unset on these platforms, so 0 (tests/smpi/timing-truth.py), or o_i with
--send-overhead, the cost of an MPI_Send, for comparison with the bound of a Send-only
schedule). Every term is a time that some byte must take; the bound is their maximum:
  a(j): the earliest a first byte can reach member j: Dijkstra from the root over the members,
        a hop i -> j costing s_i + L_i + X(i,j) + L_j and a relay i sending from a(i) + o_i.
  bcast:   root's link:  L_r + e/B_r + min_{j!=r} (X(r,j) + L_j + o_j)   (+ s_r)
           each j!=r:    a(j) + e/B_j + o_j
           racks, per rack k without the root: a copy must enter it:
                         min_{i not in k} (a'(i) + s_i + L_i) + 2 L_U + e/U + min_{j in k}(L_j + o_j)
           and one must leave the root's rack (same with i in it, j outside it); a'(r) = 0,
           a'(i) = a(i) + o_i.
  scatter: root's link:  s_r + L_r + ((|M|-1) m + 16)/B_r + min_{j!=r}(X(r,j) + L_j)
                         + min_{j!=r} o_j (the flows' latencies come first; any may end last)
           each j!=r:    s_r + L_r + X(r,j) + L_j + o_j + e/min(B_r, B_j[, U if X])
           racks: rack k != root's:  s_r + L_r + 2 L_U + (|M in k| m + 16)/U
                                     + min_{j in k} L_j + min_{j in k} o_j
                  the root's uplink: the same with every member outside the root's rack.
  gather:  the mirror image: root's link min_{j!=r}(s_j + L_j + X(j,r)) + L_r +
           ((|M|-1) m + 16)/B_r + o_r; each j!=r: s_j + L_j + X(j,r) + L_r + e/min(..) + o_r;
           racks: through each rack's and the root rack's uplink as for scatter, into the root.
A bound below a measured time is a check of both (reported as violations).

  model-trees-summary.py --hetcluster CSV TRUTH_YAML

Hetcluster mode (bench/model-trees-hetcluster.sh): the 8-host bed, rank r on host r, one
communicator; cases (op, bytes, root); every label is one run of bench/algorithms (het8-runK).
Per case and candidate the median over runs and min..max over runs. The best fixed candidate and
the best built tree are those with the best median; speed-up over MPICH = native / colltune and
gain = best fixed / colltune are ratios within each run (the same candidate's time in that
run), reported as their median and min..max over runs; regret = colltune / the candidate with
the best median. colltune's pick is the "colltune:NAME" row of each run (pick*: it differed
between runs). Writes every case to STEM-cases.csv beside CSV (het8.csv: het8-cases.csv).

Lower bound from TRUTH_YAML (scripts/hetcluster truth_yaml(), us): g_i = rate_mbit_i *
mss_bytes / wire_bytes_per_packet (the best payload rate of host i's link, each direction
shaped on its own), lat(i,j) = (delay_i + delay_j) / 2 as the truth defines one-way latency,
the software path 0, tx_k(V) = max(0, V - burst_payload_bytes) * 8 / g_k: V bytes through k's
link in one direction, less what its full tbf bucket lets pass unshaped (once per link and
direction: the bucket holds at most that much when the operation starts). Relays only add
latency (lat(i,k) + lat(k,j) >= lat(i,j)), and the terms hold however a hop's latency falls
before or after the receiver's shaper. Every term is a time that some byte must take:
  into(j) = min_{i!=j} lat(i,j) + tx_j(m): j's m bytes through its link, the last from some host
  bcast:   each j!=r: lat(r,j) + tx_r(m) (the last byte to leave the root must reach every j);
           into(j)
  scatter: min_{j!=r} lat(r,j) + tx_r((n-1) m); each j!=r: lat(r,j) + tx_r(m), into(j)
  gather:  the mirror image: min_{j!=r} lat(j,r) + tx_r((n-1) m) (into the root's link);
           each j!=r: lat(j,r) + tx_j(m) (out of j's link, on to the root)
bench/algorithms --timing max times each rank from its own barrier exit; barrier skew can let
a measured time fall below a one-way bound, so a violation is a check of the bound, the timing
and the bed together.
"""
import collections
import csv
import math
import os
import re
import statistics
import sys

FIXED = ("native", "linear", "binomial")
ENVELOPE = 16
KIND_ORDER = ("homo", "hetero", "racks")
COMM_ORDER = ("world", "half", "reversed")
OP_ORDER = ("bcast", "scatter", "gather")


def usage():
    print("usage: model-trees-summary.py CSV PLATFORMS_DIR [--send-overhead]\n"
          "       model-trees-summary.py --hetcluster CSV TRUTH_YAML", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------------------- ground truth

def load_truth(path):
    """Hosts [(B, L, o, rack)], uplink bandwidth (inf: none), uplink latency, envelope; None
    where the file is missing or lists no star-like hosts (LMO kinds)."""
    if not os.path.exists(path):
        return None
    hosts, uplink_bw, uplink_lat, envelope = [], math.inf, 0.0, ENVELOPE
    for line in open(path):
        m = re.search(r"bandwidth: ([^,}]+), latency: ([^,}]+), overhead: ([^,}]+)", line)
        if m:
            r = re.search(r"rack: (\d+)", line)
            hosts.append(tuple(float(x) for x in m.groups()) + (int(r.group(1)) if r else 0,))
            continue
        m = re.match(r"(uplink_bandwidth|uplink_latency|envelope_bytes): (\S+)", line)
        if m:
            v = float(m.group(2))
            if m.group(1) == "uplink_bandwidth":
                uplink_bw = v
            elif m.group(1) == "uplink_latency":
                uplink_lat = v
            else:
                envelope = int(v)
    if not hosts:
        return None
    return {"hosts": hosts, "U": uplink_bw, "LU": uplink_lat, "env": envelope}


def members_of(comm, n):
    """Host index of each communicator rank."""
    if comm == "world":
        return list(range(n))
    if comm == "half":
        return list(range(n // 2))
    if comm == "reversed":
        return [n - 1 - r for r in range(n)]
    return None


def lower_bound(truth, hosts_of, op, m, root, send_overhead=False):
    """Lower bound of the op on the members (host indices by communicator rank), root a rank."""
    H, U, LU, env = truth["hosts"], truth["U"], truth["LU"], truth["env"]
    p = len(hosts_of)
    if p < 2:
        return 0.0
    B = [H[h][0] for h in hosts_of]
    L = [H[h][1] for h in hosts_of]
    o = [H[h][2] for h in hosts_of]
    rk = [H[h][3] for h in hosts_of]
    s = o if send_overhead else [0.0] * p
    e = m + env
    r = root
    others = [j for j in range(p) if j != r]

    def X(i, j):
        return 2 * LU if rk[i] != rk[j] else 0.0

    def bw(i, j):
        return min(B[i], B[j], U) if rk[i] != rk[j] else min(B[i], B[j])

    racks = sorted(set(rk))
    terms = []
    if op == "bcast":
        # Earliest first-byte arrival at each member (Dijkstra, p <= a few hundred).
        a = [math.inf] * p
        ready = [math.inf] * p  # when a member can start sending: the root at 0
        ready[r], done = 0.0, [False] * p
        a[r] = 0.0
        for _ in range(p):
            i = min((k for k in range(p) if not done[k]), key=lambda k: ready[k])
            done[i] = True
            for j in range(p):
                if not done[j]:
                    t = ready[i] + s[i] + L[i] + X(i, j) + L[j]
                    if t < a[j]:
                        a[j] = t
                        ready[j] = t + o[j]
        terms.append(s[r] + L[r] + e / B[r] + min(X(r, j) + L[j] + o[j] for j in others))
        terms += [a[j] + e / B[j] + o[j] for j in others]
        if len(racks) > 1:
            for k in racks:
                inside = [j for j in range(p) if rk[j] == k]
                outside = [i for i in range(p) if rk[i] != k]
                if not outside:
                    continue
                via = 2 * LU + e / U
                if rk[r] != k:  # a copy must enter rack k
                    terms.append(min(ready[i] + s[i] + L[i] for i in outside) + via
                                 + min(L[j] + o[j] for j in inside))
                else:  # and one must leave the root's rack
                    terms.append(min(ready[i] + s[i] + L[i] for i in inside) + via
                                 + min(L[j] + o[j] for j in outside))
    elif op in ("scatter", "gather"):
        # gather: the mirror image (each member's bytes flow into the root's link).
        total = (p - 1) * m + env
        if op == "scatter":
            # The last flow through the root's link need not be the one with the least L + o:
            # SimGrid pays a flow's latency before its bytes, so the link may fill from the
            # flow of least latency while another's bytes finish last (seed 47's hetero16 half,
            # 1500 B root 0: 193.324 us measured against 193.329 with min(L_j + o_j)).
            terms.append(s[r] + L[r] + total / B[r] + min(X(r, j) + L[j] for j in others)
                         + min(o[j] for j in others))
            terms += [s[r] + L[r] + X(r, j) + L[j] + o[j] + e / bw(r, j) for j in others]
        else:
            terms.append(min(s[j] + L[j] + X(j, r) for j in others) + L[r] + total / B[r] + o[r])
            terms += [s[j] + L[j] + X(j, r) + L[r] + o[r] + e / bw(j, r) for j in others]
        if len(racks) > 1:
            away = [j for j in range(p) if rk[j] != rk[r]]
            groups = [[j for j in away if rk[j] == k] for k in racks if k != rk[r]]
            for g in [x for x in groups if x] + ([away] if away else []):
                through = 2 * LU + (len(g) * m + env) / U
                if op == "scatter":
                    terms.append(s[r] + L[r] + through + min(L[j] for j in g)
                                 + min(o[j] for j in g))
                else:
                    terms.append(min(s[j] + L[j] for j in g) + through + L[r] + o[r])
    else:
        return None
    return max(terms)


# ---------------------------------------------------------------------------- cases

def geo(values):
    values = [v for v in values if v is not None]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(v, width, prec=3, suffix=""):
    return f"{v:>{width - len(suffix)}.{prec}f}{suffix}" if v is not None else f"{'-':>{width}}"


def ordered(keys, order):
    return [k for k in order if k in keys] + sorted(k for k in keys if k not in order)


# ---------------------------------------------------------------------------- hetcluster mode

def load_het_truth(path):
    """STATE/truth.yaml of scripts/hetcluster, read by hand: hosts [(name, rate_mbit, delay_us)]
    in rank order, mss_bytes, wire_bytes_per_packet, burst_payload_bytes."""
    hosts, consts, section = [], {}, None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            m = re.match(r"^([a-z_]+):\s*(\S*)$", line)
            if m:
                section = m.group(1)
                if m.group(2):
                    consts[section] = float(m.group(2))
                continue
            if section == "hosts":
                fields = dict(re.findall(r"(\w+):\s*([^,}\s]+)", line))
                if not {"name", "rate_mbit", "delay_us"} <= set(fields):
                    raise ValueError(f"{path}: host line without name, rate_mbit, delay_us: {line}")
                hosts.append((fields["name"], float(fields["rate_mbit"]), float(fields["delay_us"])))
    missing = [k for k in ("mss_bytes", "wire_bytes_per_packet", "burst_payload_bytes")
               if k not in consts]
    if missing or not hosts:
        raise ValueError(f"{path}: not a hetcluster truth.yaml (missing {', '.join(missing) or 'hosts'})")
    return {"hosts": hosts, "mss": consts["mss_bytes"], "wire": consts["wire_bytes_per_packet"],
            "burst": consts["burst_payload_bytes"]}


def het_lower_bound(truth, op, m, root):
    """Lower bound in us of the op on the bed, rank r on host r, m bytes per process (see
    the module's docstring, hetcluster mode)."""
    H = truth["hosts"]
    n = len(H)
    if n < 2:
        return 0.0
    g = [rate * truth["mss"] / truth["wire"] for _, rate, _ in H]  # Mbit/s = bit/us
    d = [delay for _, _, delay in H]
    burst = truth["burst"]

    def lat(i, j):
        return (d[i] + d[j]) / 2

    def tx(k, volume):
        return max(0.0, volume - burst) * 8 / g[k]

    r = root
    others = [j for j in range(n) if j != r]
    # Into j's link: its m bytes at its goodput, the last hop's latency from some host.
    into = [min(lat(i, j) for i in range(n) if i != j) + tx(j, m) for j in others]
    if op == "bcast":
        terms = [lat(r, j) + tx(r, m) for j in others] + into
    elif op == "scatter":
        terms = [min(lat(r, j) for j in others) + tx(r, (n - 1) * m)]
        terms += [lat(r, j) + tx(r, m) for j in others] + into
    elif op == "gather":
        terms = [min(lat(j, r) for j in others) + tx(r, (n - 1) * m)]
        terms += [lat(j, r) + tx(j, m) for j in others]
    else:
        return None
    return max(terms)


def spread(med, lo, hi, width=18, prec=2):
    """'median (min..max)'; '-' without a median."""
    if med is None:
        return f"{'-':>{width}}"
    return f"{f'{med:.{prec}f} ({lo:.{prec}f}..{hi:.{prec}f})':>{width}}"


def hetcluster_main(args):
    if len(args) != 2:
        usage()
    csv_path, truth_path = args
    # (op, bytes, root) -> run label -> algorithm -> seconds; np per case
    runs = collections.defaultdict(lambda: collections.defaultdict(dict))
    nps, labels = {}, []
    with open(csv_path) as f:
        lines = f.read().splitlines()
    for line in lines[1:]:
        if not line.strip():
            continue
        label, np_, op, b, root, alg, sec = line.split(",")
        key = (op, int(b), int(root))
        runs[key][label][alg] = float(sec)
        nps.setdefault(key, int(np_))
        if label not in labels:
            labels.append(label)
    try:
        truth = load_het_truth(truth_path)
    except (OSError, ValueError) as e:
        print(f"model-trees-summary: {e}: no lower bound", file=sys.stderr)
        truth = None

    rows = []
    for key in sorted(runs, key=lambda k: (OP_ORDER.index(k[0]) if k[0] in OP_ORDER else 9,
                                          k[1], k[2])):
        op, b, root = key
        per_run = runs[key]  # label -> {alg: s}
        algs = []
        for t in per_run.values():
            algs += [a for a in t if not a.startswith("colltune:") and a not in algs]
        med = {a: statistics.median(t[a] for t in per_run.values() if a in t) for a in algs}
        rng = {a: (min(t[a] for t in per_run.values() if a in t),
                   max(t[a] for t in per_run.values() if a in t)) for a in algs}
        fixed = [a for a in FIXED if a in med]
        trees = [a for a in algs if a not in FIXED]
        bf = min(fixed, key=med.get) if fixed else None
        bt = min(trees, key=med.get) if trees else None
        ba = min(algs, key=med.get) if algs else None
        picks, mine, speed, gain, regret = [], [], [], [], []
        for label in labels:
            t = per_run.get(label)
            if not t:
                continue
            p = [a for a in t if a.startswith("colltune:")]
            if not p:
                continue
            pick = p[0].split(":", 1)[1]
            if pick not in picks:
                picks.append(pick)
            c = t[p[0]]
            mine.append(c)
            if "native" in t:
                speed.append(t["native"] / c)
            if bf in t:
                gain.append(t[bf] / c)
            if ba in t:
                regret.append(c / t[ba])
        lb = None
        if truth:
            if nps[key] != len(truth["hosts"]):
                print(f"model-trees-summary: {op} {b} B root {root}: np {nps[key]}, "
                      f"{len(truth['hosts'])} hosts in {truth_path}: no bound", file=sys.stderr)
            else:
                lb = het_lower_bound(truth, op, b, root % nps[key])
        cm = statistics.median(mine) if mine else None
        row = {
            "op": op, "bytes": b, "root": root, "np": nps[key], "runs": len(per_run),
            "native": med.get("native"), "native_min": rng.get("native", (None,))[0],
            "native_max": rng.get("native", (None, None))[1],
            "best_fixed_alg": bf, "best_fixed": med.get(bf),
            "best_tree_alg": bt, "best_tree": med.get(bt),
            "best_all_alg": ba, "best_all": med.get(ba),
            "colltune_pick": "/".join(picks) or None, "pick_differs": int(len(picks) > 1),
            "colltune": cm,
            "speedup_vs_mpich": statistics.median(speed) if speed else None,
            "speedup_min": min(speed) if speed else None,
            "speedup_max": max(speed) if speed else None,
            "gain_vs_best_fixed": statistics.median(gain) if gain else None,
            "gain_min": min(gain) if gain else None, "gain_max": max(gain) if gain else None,
            "regret": statistics.median(regret) if regret else None,
            "tree_gain_vs_best_fixed": med[bf] / med[bt] if bf and bt else None,
            "lower_bound_us": lb,
            "colltune_over_lb": cm * 1e6 / lb if cm and lb else None,
            "tree_over_lb": med[bt] * 1e6 / lb if bt and lb else None,
            "med": med, "rng": rng,
        }
        rows.append(row)

    stem = os.path.splitext(os.path.basename(csv_path))[0]
    out_csv = os.path.join(os.path.dirname(os.path.abspath(csv_path)), f"{stem}-cases.csv")
    cols = ["op", "bytes", "root", "np", "runs", "native", "native_min", "native_max",
            "best_fixed_alg", "best_fixed", "best_tree_alg", "best_tree", "best_all_alg",
            "best_all", "colltune_pick", "pick_differs", "colltune", "speedup_vs_mpich",
            "speedup_min", "speedup_max", "gain_vs_best_fixed", "gain_min", "gain_max", "regret",
            "tree_gain_vs_best_fixed", "lower_bound_us", "colltune_over_lb", "tree_over_lb"]
    tmp = f"{out_csv}.tmp.{os.getpid()}"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for row in rows:
            w.writerow(["" if row[c] is None else
                        (f"{row[c]:.6g}" if isinstance(row[c], float) else row[c]) for c in cols])
    os.replace(tmp, out_csv)

    def us(v, width=8):
        return fmt(v * 1e6 if v is not None else None, width, 1)

    def named(alg, v, width=23):
        s = f"{alg} {v * 1e6:.1f}" if alg else "-"
        return f"{s:>{width}}"

    print(f"hetcluster: {len(rows)} cases, {len(labels)} runs ({', '.join(labels)}); times in "
          "us, the median over runs; speed-up and gain: the median of the per-run ratios "
          "(min..max over runs), against the fixed candidate with the best median")
    if truth:
        print(f"lower bound from {truth_path}: {len(truth['hosts'])} hosts, rank r on host r, "
              f"burst {truth['burst']:g} B unshaped, software path 0")
    ops = ordered({r["op"] for r in rows}, OP_ORDER)
    for op in ops:
        print()
        print(f"== {op}")
        print(f"{'bytes':>6} {'root':>4} {'native':>8} {'best fixed':>23} {'best tree':>23} "
              f"{'colltune pick':>23} {'vs MPICH':>18} {'vs best fixed':>18} {'LB':>7} "
              f"{'/LB':>5} {'tree/LB':>7}")
        for r in (x for x in rows if x["op"] == op):
            pick = (r["colltune_pick"] + ("*" if r["pick_differs"] else "")
                    if r["colltune_pick"] else None)
            print(f"{r['bytes']:>6} {r['root']:>4} {us(r['native'])} "
                  f"{named(r['best_fixed_alg'], r['best_fixed'])} "
                  f"{named(r['best_tree_alg'], r['best_tree'])} {named(pick, r['colltune'])} "
                  f"{spread(r['speedup_vs_mpich'], r['speedup_min'], r['speedup_max'])} "
                  f"{spread(r['gain_vs_best_fixed'], r['gain_min'], r['gain_max'])} "
                  f"{fmt(r['lower_bound_us'], 7, 0)} {fmt(r['colltune_over_lb'], 5, 2)} "
                  f"{fmt(r['tree_over_lb'], 7, 2)}")
    differ = [r for r in rows if r["pick_differs"]]
    if differ:
        print()
        print(f"* colltune's pick differs between runs in {len(differ)} cases: " + "; ".join(
            f"{r['op']} {r['bytes']} B root {r['root']}: {r['colltune_pick']}" for r in differ))

    print()
    print("geometric means: speed-up over MPICH, gain over the best fixed and regret (pick / best "
          "median) over the cases with colltune's pick; the best tree's gain over the best fixed")
    print(f"{'ops':<8} {'cases':>5} {'picked':>6} {'vs MPICH':>9} {'gain':>7} {'tree':>7} "
          f"{'regret':>7}")
    for op in ops + ["all"]:
        g = [r for r in rows if op in (r["op"], "all")]
        print(f"{op:<8} {len(g):>5} {sum(1 for r in g if r['colltune'] is not None):>6} "
              f"{fmt(geo(r['speedup_vs_mpich'] for r in g), 9, suffix='x')} "
              f"{fmt(geo(r['gain_vs_best_fixed'] for r in g), 7)} "
              f"{fmt(geo(r['tree_gain_vs_best_fixed'] for r in g), 7)} "
              f"{fmt(geo(r['regret'] for r in g), 7)}")
    picked = [r for r in rows if r["gain_vs_best_fixed"]]
    if picked:
        w = min(picked, key=lambda r: r["gain_vs_best_fixed"])
        print(f"worst gain over the best fixed: {w['op']} {w['bytes']} B root {w['root']}: "
              f"{w['gain_vs_best_fixed']:.3f} ({w['gain_min']:.3f}..{w['gain_max']:.3f}), "
              f"picked {w['colltune_pick']}, best fixed {w['best_fixed_alg']}, best "
              f"{w['best_all_alg']}")
    picked = [r for r in rows if r["speedup_vs_mpich"]]
    if picked:
        w = min(picked, key=lambda r: r["speedup_vs_mpich"])
        print(f"worst speed-up over MPICH: {w['op']} {w['bytes']} B root {w['root']}: "
              f"{w['speedup_vs_mpich']:.3f} ({w['speedup_min']:.3f}..{w['speedup_max']:.3f}), "
              f"picked {w['colltune_pick']}")

    print()
    print("every candidate: median (min..max over runs), us")
    for r in rows:
        print(f"  {r['op']:<7} {r['bytes']:>6} B root {r['root']}: " + ", ".join(
            f"{a} {r['med'][a] * 1e6:.1f} ({r['rng'][a][0] * 1e6:.1f}..{r['rng'][a][1] * 1e6:.1f})"
            for a in r["med"]))

    bad = [(r, label, a, v) for r in rows if r["lower_bound_us"]
           for label, t in runs[(r["op"], r["bytes"], r["root"])].items()
           for a, v in t.items() if not a.startswith("colltune:")
           and v * 1e6 < r["lower_bound_us"] * (1 - 1e-9)]
    print()
    if bad:
        print(f"LOWER BOUND VIOLATED by {len(bad)} measured times (bound or measurement wrong):")
        for r, label, a, v in bad[:10]:
            print(f"  {label} {r['op']} {r['bytes']} B root {r['root']}: {a} {v * 1e6:.1f} us "
                  f"< bound {r['lower_bound_us']:.1f} us")
    else:
        nb = sum(1 for r in rows if r["lower_bound_us"])
        print(f"lower bound: {nb} of {len(rows)} cases bounded, no measured time below its bound")
    print(f"per case: {out_csv}")


def main():
    argv = sys.argv[1:]
    forced_only = set()
    if "--forced-only" in argv:
        i = argv.index("--forced-only")
        if i + 1 >= len(argv):
            usage()
        forced_only = set(argv[i + 1].split(","))
        del argv[i:i + 2]
    args = [a for a in argv if a != "--send-overhead"]
    send_overhead = "--send-overhead" in argv
    if len(args) != 2:
        usage()
    csv_path, plat_dir = args

    times = collections.defaultdict(dict)
    nps = {}
    with open(csv_path) as f:
        lines = f.read().splitlines()
    for line in lines[1:]:
        if not line.strip():
            continue
        label, np_, op, b, root, alg, sec = line.split(",")
        key = (label, op, int(b), int(root))
        times[key][alg] = float(sec)
        nps[key] = int(np_)

    truths = {}
    rows = []
    for key in sorted(times, key=lambda k: (k[0], OP_ORDER.index(k[1]) if k[1] in OP_ORDER
                                           else 9, k[2], k[3])):
        label, op, b, root = key
        t = times[key]
        lm = re.match(r"^(.*?)(\d+)-([A-Za-z]+)$", label)
        kind, n, comm = (lm.group(1), int(lm.group(2)), lm.group(3)) if lm else (label, 0, "?")
        cand = {a: v for a, v in t.items() if not a.startswith("colltune:")}
        picks = [a for a in t if a.startswith("colltune:")]
        fixed = {a: cand[a] for a in FIXED if a in cand}
        trees = {a: v for a, v in cand.items() if a not in FIXED}
        bf = min(fixed, key=fixed.get) if fixed else None
        ba = min(cand, key=cand.get) if cand else None
        decided = {a: v for a, v in cand.items() if a not in forced_only}
        bd = min(decided, key=decided.get) if decided else None
        bt = min(trees, key=trees.get) if trees else None
        mine = t[picks[0]] if picks else None
        row = {
            "label": label, "kind": kind, "n": n, "comm": comm, "np": nps[key], "op": op,
            "bytes": b, "root": root, "native": cand.get("native"),
            "best_fixed_alg": bf, "best_fixed": fixed.get(bf),
            "best_all_alg": ba, "best_all": cand.get(ba),
            "best_decided_alg": bd, "best_decided": decided.get(bd),
            "colltune_pick": picks[0].split(":", 1)[1] if picks else None, "colltune": mine,
            "best_tree_alg": bt, "best_tree": trees.get(bt),
        }
        row["speedup_vs_mpich"] = row["native"] / mine if mine and row["native"] else None
        row["gain_vs_best_fixed"] = row["best_fixed"] / mine if mine and bf else None
        row["regret"] = mine / row["best_all"] if mine and ba else None
        row["regret_decided"] = mine / row["best_decided"] if mine and bd else None
        row["tree_gain_vs_best_fixed"] = row["best_fixed"] / row["best_tree"] if bt and bf else None
        pdir = os.path.join(plat_dir, f"{kind}{n}")
        if pdir not in truths:
            truths[pdir] = load_truth(os.path.join(pdir, "truth.yaml"))
            if truths[pdir] is None:
                print(f"model-trees-summary: {pdir}/truth.yaml: missing or not a star or racks "
                      "platform: no lower bound", file=sys.stderr)
        truth, hosts_of = truths[pdir], members_of(comm, n)
        lb = None
        if truth and hosts_of is not None:
            if len(hosts_of) != row["np"] or len(truth["hosts"]) < n:
                print(f"model-trees-summary: {label}: {len(hosts_of)} members expected, np "
                      f"{row['np']}, {len(truth['hosts'])} hosts in {pdir}: no bound",
                      file=sys.stderr)
            else:
                lb = lower_bound(truth, hosts_of, op, b, root % len(hosts_of), send_overhead)
        row["lower_bound"] = lb
        row["colltune_over_lb"] = mine / lb if mine and lb else None
        row["tree_over_lb"] = row["best_tree"] / lb if bt and lb else None
        row["case"] = f"{label} {op} {b} B root {root}"
        rows.append(row)

    out_csv = os.path.join(os.path.dirname(os.path.abspath(csv_path)), "cases.csv")
    cols = ["label", "kind", "n", "comm", "np", "op", "bytes", "root", "native",
            "best_fixed_alg", "best_fixed", "best_all_alg", "best_all", "colltune_pick",
            "colltune", "speedup_vs_mpich", "gain_vs_best_fixed", "regret", "best_decided_alg",
            "best_decided", "regret_decided", "best_tree_alg",
            "best_tree", "tree_gain_vs_best_fixed", "lower_bound", "colltune_over_lb",
            "tree_over_lb"]
    tmp = f"{out_csv}.tmp.{os.getpid()}"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for row in rows:
            w.writerow(["" if row[c] is None else
                        (f"{row[c]:.6g}" if isinstance(row[c], float) else row[c]) for c in cols])
    os.replace(tmp, out_csv)

    picked = [r for r in rows if r["colltune"] is not None]
    if not picked:
        print(f"model-trees-summary: no case with colltune's pick in {csv_path}", file=sys.stderr)
    kinds = ordered({r["kind"] for r in rows}, KIND_ORDER)
    send = "an MPI_Send's o_i" if send_overhead else "no"
    print(f"(a) colltune per platform and communicator ({len(rows)} cases, {len(picked)} with "
          f"colltune's pick; lower bound with {send} sender overhead)")
    print(f"{'platform':<10} {'comm':<9} {'cases':>5} {'vs MPICH':>9} {'gain':>7} {'worst':>7} "
          f"{'regret':>7} {'worst':>7} {'dregret':>7} {'worst':>7} {'/LB':>6} {'tree/LB':>7}  "
          "worst-regret case (pick)")
    for kind in kinds:
        for comm in ordered({r["comm"] for r in rows if r["kind"] == kind}, COMM_ORDER) + ["all"]:
            g = [r for r in picked if r["kind"] == kind and comm in (r["comm"], "all")]
            if not g:
                continue
            gains = [r["gain_vs_best_fixed"] for r in g if r["gain_vs_best_fixed"]]
            regs = [r for r in g if r["regret"]]
            w = max(regs, key=lambda r: r["regret"]) if regs else None
            dregs = [r["regret_decided"] for r in g if r["regret_decided"]]
            trees = [r["tree_over_lb"] for r in rows if r["kind"] == kind
                     and comm in (r["comm"], "all")]
            print(f"{kind:<10} {comm:<9} {len(g):>5} "
                  f"{fmt(geo(r['speedup_vs_mpich'] for r in g), 9, suffix='x')} "
                  f"{fmt(geo(gains), 7)} {fmt(min(gains) if gains else None, 7)} "
                  f"{fmt(geo(r['regret'] for r in regs), 7)} {fmt(w['regret'] if w else None, 7)} "
                  f"{fmt(geo(dregs), 7)} {fmt(max(dregs) if dregs else None, 7)} "
                  f"{fmt(geo(r['colltune_over_lb'] for r in g), 6, 2)} {fmt(geo(trees), 7, 2)}  "
                  + (f"{w['case']} ({w['colltune_pick']})" if w else ""))
    print()
    print("(b) geometric-mean gain over the best fixed candidate per op: colltune's pick "
          "(the best model-built tree)")
    ops = ordered({r["op"] for r in rows}, OP_ORDER)
    print(f"{'platform':<10}" + "".join(f" {op:>17}" for op in ops))
    for kind in kinds:
        cells = []
        for op in ops:
            g = [r for r in rows if r["kind"] == kind and r["op"] == op]
            c = geo(r["gain_vs_best_fixed"] for r in g)
            tr = geo(r["tree_gain_vs_best_fixed"] for r in g)
            cells.append(f"{fmt(c, 7)} ({fmt(tr, 7)})")
        print(f"{kind:<10}" + "".join(f" {c:>17}" for c in cells))
    print()
    print("(c) the 10 worst regrets (colltune's pick / the best of all candidates)")
    worst = sorted((r for r in picked if r["regret"]), key=lambda r: -r["regret"])[:10]
    for r in worst:
        print(f"  {r['regret']:7.3f}  {r['case']:<44} picked {r['colltune_pick']}, best "
              f"{r['best_all_alg']} ({r['best_all'] * 1e6:.1f} us), best fixed "
              f"{r['best_fixed_alg']}")
    if forced_only:
        print()
        print("(d) the 10 worst regrets against the decision's candidates (all but "
              f"{', '.join(sorted(forced_only))})")
        worst = sorted((r for r in picked if r["regret_decided"]),
                       key=lambda r: -r["regret_decided"])[:10]
        for r in worst:
            print(f"  {r['regret_decided']:7.3f}  {r['case']:<44} picked {r['colltune_pick']}, "
                  f"best {r['best_decided_alg']} ({r['best_decided'] * 1e6:.1f} us)")
    bad = [(r, a) for r in rows if r["lower_bound"] for a, v in times[(r["label"], r["op"],
           r["bytes"], r["root"])].items() if v < r["lower_bound"] * (1 - 1e-9)]
    print()
    if bad:
        print(f"LOWER BOUND VIOLATED by {len(bad)} measured times (bound or measurement wrong):")
        for r, a in bad[:10]:
            v = times[(r["label"], r["op"], r["bytes"], r["root"])][a]
            print(f"  {r['case']}: {a} {v * 1e6:.3f} us < bound {r['lower_bound'] * 1e6:.3f} us")
    else:
        nb = sum(1 for r in rows if r["lower_bound"])
        print(f"lower bound: {nb} of {len(rows)} cases bounded, no measured time below its bound")
    print(f"per case: {out_csv}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--hetcluster"]:
        hetcluster_main(sys.argv[2:])
    else:
        main()

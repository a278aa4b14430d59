#!/usr/bin/env bash
# Node-aware trees on a simulated cluster of multi-core nodes (scripts/cluster-gen.py: 2 nodes
# x 4 cores, each node behind one link): after a first-launch calibration (which learns the
# hosts from the processes' identities), node_tree broadcasts 64 KiB from a root off rank 0
# faster than binomial, which sends twice across the nodes (node_star's times are printed:
# without per-message costs on this platform it trails linear by the leader's second hop).
#   node-aware-cluster.sh SOURCE_DIR BUILD_SMPI_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$src/scripts/cluster-gen.py" --nodes 2 --cores 4 --kind flat --out "$work/platform" >/dev/null
export SMPI_PLATFORM=$work/platform
export SMPI_EXTRA_CFG="--cfg=smpi/coll-selector:mpich --cfg=smpi/reduce:binomial"
"$src/tests/smpi/smpi-exec.sh" -n 8 "$build/tests/smpi/smpi_colltune_calibrate" --quick \
  --budget 1 --output "$work/table.yaml" >"$work/calibrate.log"
"$src/tests/smpi/smpi-exec.sh" -n 8 "$build/tests/smpi/smpi_bench_algorithms" --reps 1 \
  --timing window --model "$work/table.yaml" --sizes 65536 --roots 2,7 --csv "$work/t.csv" \
  --algorithms binomial,linear,node_tree,node_star >"$work/bench.txt"
python3 - "$work/t.csv" <<'EOF'
import csv, sys
t = {}
for r in csv.DictReader(open(sys.argv[1]), fieldnames=["label", "np", "op", "bytes", "root",
                                                         "algorithm", "seconds"]):
    t[(r["op"], int(r["root"]), r["algorithm"])] = float(r["seconds"])
bad = []
for root in (2, 7):
    nt, bi = t[("bcast", root, "node_tree")], t[("bcast", root, "binomial")]
    print(f"bcast root {root}: node_tree {nt * 1e6:.2f} us, binomial {bi * 1e6:.2f} us")
    if not nt < 0.85 * bi:
        bad.append(f"bcast root {root}: node_tree not 15% faster than binomial")
    for op in ("scatter", "gather"):
        ns, li = t[(op, root, "node_star")], t[(op, root, "linear")]
        print(f"{op} root {root}: node_star {ns * 1e6:.2f} us, linear {li * 1e6:.2f} us")
for b in bad:
    print("FAIL: " + b)
print("ok: node-aware trees" if not bad else "")
sys.exit(1 if bad else 0)
EOF

# GOAL schedule (LogGOPSim's input) of N ranks doing PHASES phases of CALC ns of computation,
# each followed by a barrier on a complete binary tree of 1-byte messages (up, then down),
# every operation after the previous one: the program colltune-jitter simulates.
#   python3 bench/goal-barrier.py N PHASES CALC_NS > FILE.goal
import sys
n, phases, calc = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out = [f"num_ranks {n}", ""]
for r in range(n):
    out.append(f"rank {r} {{")
    lab = 0
    prev = None
    def op(text):
        global lab, prev
        lab += 1
        out.append(f"l{lab}: {text}")
        if prev is not None:
            out.append(f"l{lab} requires l{prev}")
        prev = lab
    parent = (r - 1) // 2 if r > 0 else -1
    kids = [c for c in (2 * r + 1, 2 * r + 2) if c < n]
    for p in range(phases):
        op(f"calc {calc}")
        for c in kids:
            op(f"recv 1b from {c} tag {2 * p + 1}")
        if parent >= 0:
            op(f"send 1b to {parent} tag {2 * p + 1}")
            op(f"recv 1b from {parent} tag {2 * p + 2}")
        for c in kids:
            op(f"send 1b to {c} tag {2 * p + 2}")
    out.append("}")
    out.append("")
print("\n".join(out))

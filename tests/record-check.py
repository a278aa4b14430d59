#!/usr/bin/env python3
"""Checks the traces libcolltune_record.so wrote for tests/mpi/record_app.c (docs/recording.md).
  record-check.py DIR NP all [CLOCK_NS]  the whole run: every call with its sizes, world ranks, tags;
                                   with the clock's cost, 2000 calls with nothing between them
                                   must not record the recorder's clock reads as computation
  record-check.py DIR NP wall      the whole run recorded with COLLTUNE_RECORD_CLOCK=wall: the
                                   0.1 s the app sleeps after its spin is computation too, and
                                   each call's `# took` line: the ranks that wait 0.1 s for rank 1
                                   in allreduce 8 took that long, rank 1 did not
  record-check.py DIR NP window2   COLLTUNE_RECORD_WINDOW=2: the second window alone
Prints PASS or the failures."""
import os
import sys
from collections import defaultdict

d, np, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fail = []


def check(ok, what):
    if not ok:
        fail.append(what)


lists = open(os.path.join(d, "traces")).read().split()
check(lists == [os.path.join(os.path.realpath(d), f"rank-{r}.ti") for r in range(np)],
      f"traces lists {lists}")
ranks = {}
for r in range(np):
    text = open(os.path.join(d, f"rank-{r}.ti")).read().splitlines()
    check(text[0].startswith("# colltune-record"), f"rank {r}: no header")
    lines = [l.split() for l in text if not l.startswith("#")]
    check(all(l[0] == str(r) for l in lines), f"rank {r}: a line of another rank")
    check(lines[0][1:] == ["init"] and lines[-1][1:] == ["finalize"],
          f"rank {r}: not init ... finalize")
    check(not any(os.path.exists(os.path.join(d, f"rank-{r}.ti.tmp")) for _ in [0]),
          f"rank {r}: temporary left")
    ranks[r] = (text, [l[1:] for l in lines])

# Point-to-point: each pair's sends and receives match in order (world ranks, tag, bytes).
sent, got = defaultdict(list), defaultdict(list)
for r, (_, acts) in ranks.items():
    for a in acts:
        if a[0] in ("send", "isend"):
            sent[(r, int(a[1]))].append((int(a[2]), int(a[3])))
        if a[0] in ("recv", "irecv"):
            got[(int(a[1]), r)].append((int(a[2]), int(a[3])))
check(dict(sent) == dict(got), f"sends {dict(sent)} != receives {dict(got)}")

if mode in ("all", "wall"):
    for r, (text, acts) in ranks.items():
        # After bcast 8000: the 0.05 s spin, then 0.1 s asleep: about 5e7 flops of CPU time,
        # at least 1.5e8 of wall-clock time.
        i = acts.index(["bcast", "8000", "0"]) if ["bcast", "8000", "0"] in acts else -2
        gap = float(acts[i + 1][1]) if i >= 0 and acts[i + 1][0] == "compute" else 0
        clock = "wall-clock time" if mode == "wall" else "this thread's CPU time"
        check(text[0].endswith(clock), f"rank {r}: the header does not say {clock}")
        if mode == "all":
            check(gap < 1e8, f"rank {r}: {gap:.3g} flops after bcast 8000, CPU time of 0.05 s")
        else:
            check(gap >= 1.4e8, f"rank {r}: {gap:.3g} flops after bcast 8000, not the 0.15 s it took")
        names = [a[0] for a in acts]
        check(["bcast", "8000", "0"] in acts, f"rank {r}: no bcast 8000 0")
        check(["allreduce", "8", "0"] in acts, f"rank {r}: no allreduce 8 0")
        check(["gather", "160", "160", str(2 % np)] in acts, f"rank {r}: no gather 160 root 2")
        check(["scatter", "160", "160", str(2 % np)] in acts, f"rank {r}: no scatter 160 root 2")
        check(names.count("barrier") == 1, f"rank {r}: {names.count('barrier')} barriers, not 1")
        # The communicator of the ranks of r's parity, its members in world ranks, then the
        # bcast on it from its rank 0 (world rank r % 2).
        members = [str(q) for q in range(r % 2, np, 2)]
        defs = [a for a in acts if a[0] == "comm"]
        check(len(defs) == 1 and defs[0][2:] == members,
              f"rank {r}: the sub-communicator's members {defs}, not {members}")
        if defs:
            check(acts.index(defs[0]) < acts.index([f"bcast@{defs[0][1]}", "80", str(r % 2)])
                  if [f"bcast@{defs[0][1]}", "80", str(r % 2)] in acts else False,
                  f"rank {r}: no bcast@{defs[0][1]} 80 {r % 2} after its communicator")
        check(not any("communicator of 1 of" in t for t in text) and ["bcast", "104", "0"] not in acts,
              f"rank {r}: a collective on MPI_COMM_SELF written")
        nxt, prv = (r + 1) % np, (r + np - 1) % np
        check(["isend", str(nxt), "3", "4000"] in acts and ["irecv", str(prv), "3", "4000"] in acts,
              f"rank {r}: the ring's isend/irecv")
        check(["wait", str(r), str(nxt), "3"] in acts and ["wait", str(prv), str(r), "3"] in acts,
              f"rank {r}: the ring's waits")
        check(["send", str(prv), "4", "800"] in acts and ["wait", str(nxt), str(r), "4"] in acts,
              f"rank {r}: the sendrecv")
        check(["send", "1", "101", "200"] in acts if r == 0 else True, "window 1 not recorded")
        flops = [float(a[1]) for a in acts if a[0] == "compute"]
        check(max(flops, default=0) >= 4e7, f"rank {r}: no compute of the 0.05 s spin ({max(flops, default=0)})")
        check(sum(flops) < 5e9, f"rank {r}: {sum(flops)} flops, more than the run could")
    for r, (text, acts) in ranks.items():
        # `# took SECONDS` after the action lines of each call, on the wall clock alone.
        took = [(i, float(l.split()[2])) for i, l in enumerate(text) if l.startswith("# took ")]
        if mode == "all":
            check(not took, f"rank {r}: `# took` lines on the CPU clock")
            continue
        def action_before(i):  # the line a `# took` follows, past a message's layout lines
            while text[i - 1].startswith(("# pieces ", "# pack ")):
                i -= 1
            return text[i - 1].split()[1] if not text[i - 1].startswith("#") else "#"
        before = [action_before(i) for i, _ in took]
        check(took and all(b not in ("compute", "#", "init") for b in before),
              f"rank {r}: a `# took` not after a call's action ({sorted(set(before))})")
        # The allreduce rank 1 reaches 0.1 s late: the others wait in it, rank 1 does not.
        at = [i for i, l in enumerate(text) if l == f"{r} allreduce 8 0"]
        t = [s for i, s in took if at and i == at[0] + 1]
        check(len(t) == 1, f"rank {r}: no `# took` after allreduce 8")
        if t:
            check(t[0] < 0.05 if r == 1 else t[0] >= 0.08,
                  f"rank {r}: allreduce 8 took {t[0]:.3f} s (rank 1 is 0.1 s late)")
        check(len(took) > 10 and sum(s for _, s in took) < 60, f"rank {r}: took {took[:5]}...")
    if len(sys.argv) > 4:  # between bcast 56 and bcast 72: 2000 calls, no computation
        clock_ns = float(sys.argv[4])
        for r, (_, acts) in ranks.items():
            i, j = acts.index(["bcast", "56", "0"]), acts.index(["bcast", "72", "0"])
            # The 2000 sends to MPI_PROC_NULL write no action: one `compute` line per gap of
            # more than 100 ns, none for the others (2001 gaps with bcast 56's and 72's).
            gaps = [float(a[1]) for a in acts[i + 1:j] if a[0] == "compute"]
            gaps += [0.0] * max(0, 2001 - len(gaps))
            gaps.sort()
            median = gaps[len(gaps) // 2] if gaps else float("inf")
            # 1e9 flops a CPU second: ns. Without the clock's cost taken off, a gap holds about
            # one clock read; what else runs between two calls is far less than 100 ns here.
            # The median, not the sum: a process descheduled in a few gaps (a loaded machine)
            # adds whole time slices to those gaps alone.
            bound = 0.5 * clock_ns + 100
            check(len(gaps) == 2001 and median < bound,
                  f"rank {r}: median {median:.0f} ns of computation in {len(gaps)} gaps between"
                  f" calls with none (the clock costs {clock_ns:.0f} ns; at most {bound:.0f})")
    if np >= 4:  # world 1 -> world 3 on the odd ranks' communicator
        check(["send", "3", "7", "800"] in ranks[1][1], "sub-communicator send not in world ranks")
        check(["recv", "1", "7", "800"] in ranks[3][1], "sub-communicator recv not in world ranks")
    check(["recv", "1", "5", "12"] in ranks[0][1], "the wildcard receive not resolved to 1, tag 5")
    # Strided data: `# pieces N SPAN` after the action, the host's `# pack` rates once before
    # the first of them (ranks 0 and 1); contiguous messages have none.
    def after(r, line):
        text = ranks[r][0]
        i = text.index(line) + 1 if line in text else len(text)
        while i < len(text) and text[i].startswith("# pack "):
            i += 1
        return text[i] if i < len(text) else None
    check(after(0, "0 send 1 8 800") == "# pieces 100 7928",
          f"rank 0: the column's layout: {after(0, '0 send 1 8 800')}")
    check(after(0, "0 recv 1 9 800") == "# pieces 10 1520",
          f"rank 0: the subarray's layout: {after(0, '0 recv 1 9 800')}")
    check(after(1, "1 send 0 10 20") == "# pieces 2 52",
          f"rank 1: the indexed type's layout: {after(1, '1 send 0 10 20')}")
    for r, line in ((1, "1 recv 0 8 800"), (1, "1 send 0 9 800"), (0, "0 recv 1 10 20")):
        check(after(r, line) is not None and not after(r, line).startswith("# pieces"),
              f"rank {r}: a contiguous message with a layout")
    packs = [l for l in ranks[0][0] if l.startswith("# pack ")]
    rates = [x.split("@") for x in packs[0].split()[2].split(",")] if len(packs) == 1 else []
    check(len(rates) == 2 and [w for _, w in rates] == ["131072", "33554432"] and
          all(float(v) > 0 for v, _ in rates) and
          ranks[0][0].index(packs[0]) < ranks[0][0].index("# pieces 100 7928"),
          f"rank 0: not one `# pack` line of two rates before its first strided message: {packs}")
    check(not any(l.startswith("# pack") for r in ranks if r > 1 for l in ranks[r][0]),
          "a `# pack` line on a rank with no strided message")
    check(sum(l.startswith("# pack ") for l in ranks[1][0]) == 1, "rank 1: not one `# pack` line")
else:
    for r, (_, acts) in ranks.items():
        names = [a[0] for a in acts]
        check(names[:2] == ["init", "barrier"], f"rank {r}: the window does not start aligned")
        check(not any(a[0] in ("bcast", "allreduce", "gather") for a in acts),
              f"rank {r}: calls outside the window recorded")
    check(["send", "1", "202", "400"] in ranks[0][1], "window 2's send not recorded")
    check(not any(a[2:3] == ["101"] for a in ranks[0][1] if a[0] == "send"), "window 1 recorded")

print("PASS" if not fail else "\n".join("FAIL: " + f for f in fail))
sys.exit(1 if fail else 0)

#!/usr/bin/env python3
"""PDGESV's compute costs from runs on one process (bench/app-validation.sh):
  pdgesv-rates.py N NB SECONDS:STEM...
each run's two solves (the warm-up and the timed one, wall clock) in SECONDS and their kernels
in STEM.* (libcolltune_blas_timer.so, wall clock too: under contention both count the waits for
a core). Level 3: dgemm and dtrsm flops over their time; the
row exchanges: dswap's seconds per element; the panel's: the model's level-2 flops
(config/apps/pdgesv.yaml: the panels' LU and the two solves) over the rest of the solve.
Prints the median run's "LEVEL3_FLOPS_PER_S PANEL_FLOPS_PER_S SWAP_S_PER_ELEMENT"."""
import glob
import sys


def main(n, nb, runs):
    panel = sum((n - k) * min(nb, n - k) ** 2 - min(nb, n - k) ** 3 / 3 for k in range(0, n, nb))
    panel += 2 * n * n
    rates = []
    for arg in runs:
        t, stem = arg.split(":", 1)
        t = float(t)
        f3 = s3 = sw = nsw = 0.0
        for path in glob.glob(stem + ".*"):
            for line in open(path):
                name, m, nn, k, calls, sec = line.split()
                m, nn, k, calls, sec = int(m), int(nn), int(k), int(calls), float(sec)
                if name == "dgemm":
                    f3, s3 = f3 + 2 * m * nn * k * calls, s3 + sec
                elif name == "dtrsm":  # PDGESV's solves on one process are left-sided: m^2 n
                    f3, s3 = f3 + m * m * nn * calls, s3 + sec
                elif name == "dswap":
                    sw, nsw = sw + sec, nsw + m * calls
        if s3 <= 0 or nsw <= 0 or t <= s3 + sw:
            sys.exit(f"pdgesv-rates: {stem}.*: no level-3 kernels or swaps timed, or more than the solves")
        rates.append((t, f3 / s3, 2 * panel / (t - s3 - sw), sw / nsw))
    _, r3, r2, swap = sorted(rates)[len(rates) // 2]
    print(r3, r2, swap)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:])

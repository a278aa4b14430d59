#!/usr/bin/env python3
"""Forecasts every case bench/scalapack_driver timed and compares (bench/scalapack.sh).

Reads the driver's lines, runs `colltune-predict routine` for each case, prints one line per case
(measured, forecast, error), then per routine the median and maximum error, and the best-grid
agreement: for each routine and sizes, is the grid (and block) forecast fastest the measured
fastest, or within 5% of it? Writes OUT.csv and, with gnuplot, OUT.png (forecast against
measured, every case) when --plot OUT is given."""
import argparse
import csv
import io
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"^(pdgemm|pdtrsm)(\w*) grid=(\d+)x(\d+) M=(\d+) N=(\d+)(?: K=(\d+))? R=(\d+) "
                  r"median_s=([\d.e+-]+)")


def forecast(args, c):
    cmd = [args.predict, "routine", "--table", args.table, "--routine", c["routine"], "--block",
           str(c["R"]), "--grid", f"{c['p']}x{c['q']}", "--format", "csv"]
    for m in args.comp:
        cmd += ["--model", m]
    if args.eager:
        cmd += ["--eager", args.eager]
    if args.host:  # every process on this identity (one host)
        cmd += ["--members", ",".join([args.host] * (c["p"] * c["q"]))]
    if c["routine"] == "pdgemm":
        cmd += ["--sizes", f"{c['M']},{c['N']},{c['K']}"]
    else:
        cmd += ["--sizes", f"{c['M']},{c['N']}", "--form", c["form"]]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"
    row = list(csv.DictReader(io.StringIO(r.stdout)))[0]
    return float(row["seconds"]), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--predict", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--comp", required=True, action="append",
                    help="a computation model (repeat: one per occupancy)")
    ap.add_argument("--plot", help="write OUT.csv and OUT.png")
    ap.add_argument("--host", help="the table's identity every process runs on (one host)")
    ap.add_argument("--eager", help="the MPI's rendezvous threshold, bytes or inf")
    ap.add_argument("measured")
    args = ap.parse_args()
    cases = []
    for line in open(args.measured):
        m = LINE.match(line.strip())
        if not m:
            continue
        g = m.groups()
        cases.append(dict(routine=g[0], form=g[1], p=int(g[2]), q=int(g[3]), M=int(g[4]),
                          N=int(g[5]), K=int(g[6] or 0), R=int(g[7]), measured=float(g[8])))
    if not cases:
        sys.exit("scalapack-compare: no measured cases in " + args.measured)
    print(f"{'case':34} {'grid':>5} {'R':>4} {'measured_s':>11} {'forecast_s':>11} {'error':>7}")
    for c in cases:
        c["forecast"], c["why"] = forecast(args, c)
        name = c["routine"] + c["form"] + " " + (
            f"{c['M']}x{c['N']}x{c['K']}" if c["routine"] == "pdgemm" else f"{c['M']}x{c['N']}")
        c["name"] = c["routine"] + c["form"]
        if c["forecast"] is None:
            print(f"{name:34} {c['p']}x{c['q']:<3} {c['R']:>4} {c['measured']:11.5g} "
                  f"{'-':>11}   not modelled: {c['why']}")
            continue
        c["error"] = (c["forecast"] - c["measured"]) / c["measured"]
        print(f"{name:34} {c['p']}x{c['q']:<3} {c['R']:>4} {c['measured']:11.5g} "
              f"{c['forecast']:11.5g} {100 * c['error']:+6.1f}%")
    print()
    for routine in sorted({c["name"] for c in cases}):
        errs = [abs(c["error"]) for c in cases if c["name"] == routine and c["forecast"]]
        skipped = sum(1 for c in cases if c["name"] == routine and not c["forecast"])
        if errs:
            print(f"{routine}: {len(errs)} cases, |error| median {100 * statistics.median(errs):.1f}%"
                  f" max {100 * max(errs):.1f}%" + (f"; {skipped} not modelled" if skipped else ""))
        else:
            print(f"{routine}: {skipped} cases, none modelled")
    # Best grid: per routine and sizes (and per block), the forecast's fastest against the
    # measured fastest; agreement when the forecast's pick measured within 5% of the best.
    for by_block in (True, False):
        groups = {}
        for c in cases:
            if c["forecast"] is None:
                continue
            key = (c["name"], c["M"], c["N"], c["K"]) + ((c["R"],) if by_block else ())
            groups.setdefault(key, []).append(c)
        agree = total = 0
        for key, cs in sorted(groups.items()):
            grids = {(c["p"], c["q"]) for c in cs}
            if len(grids) < 2:
                continue
            total += 1
            pick = min(cs, key=lambda c: c["forecast"])
            best = min(cs, key=lambda c: c["measured"])
            ok = pick["measured"] <= 1.05 * best["measured"]
            agree += ok
            if not ok:
                print(f"  best {'grid' if by_block else 'grid and block'} missed: {key}: forecast "
                      f"{pick['p']}x{pick['q']} R={pick['R']} measured {pick['measured']:.4g} s, "
                      f"best {best['p']}x{best['q']} R={best['R']} {best['measured']:.4g} s")
        if total:
            print(f"best {'grid per block size' if by_block else 'grid and block size'}: "
                  f"{agree}/{total} agree (the pick measured within 5% of the fastest)")
    if args.plot:
        with open(args.plot + ".csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["routine", "p", "q", "M", "N", "K", "R", "measured_s", "forecast_s"])
            for c in cases:
                if c["forecast"] is not None:
                    w.writerow([c["name"], c["p"], c["q"], c["M"], c["N"], c["K"], c["R"],
                                c["measured"], c["forecast"]])
        plot(args.plot, sorted({c["name"] for c in cases if c["forecast"] is not None}))


def plot(out, routines):
    """FAST's Figs. 13/14 side by side, as the error: forecast / measured against measured."""
    script = [
        "set terminal pngcairo size 1100,480 font ',10'" if has_cairo() else
        "set terminal png size 1100,480",
        f"set output '{out}.png'", "set datafile separator ','", "set multiplot layout 1,2",
        "set logscale x", "set xlabel 'measured (s)'", "set ylabel 'forecast / measured'",
        "set yrange [0:1.3]", "set key bottom right", "set grid"]
    for title, names in (("PDGEMM", [r for r in routines if r == "pdgemm"]),
                         ("PDTRSM", [r for r in routines if r != "pdgemm"])):
        if not names:  # nothing of this routine was run
            continue
        script.append(f"set title '{title}: every grid, size and block'")
        match = " || ".join(f"strcol(1) eq '{n}'" for n in names) or "0"
        parts = []
        for label, cond, pt in (("1 process", "$2 * $3 == 1", 7), ("1x2", "$2 == 1 && $3 == 2", 5),
                                ("2x1", "$2 == 2 && $3 == 1", 9),
                                ("3-4 processes", "$2 * $3 > 2 && $2 * $3 <= 4", 1),
                                ("5-8 processes", "$2 * $3 > 4", 3)):
            parts.append(f"'{out}.csv' using (({match}) && ({cond}) ? $8 : 1/0):($9/$8) "
                         f"with points pt {pt} title '{label}'")
        parts += ["1 with lines lt 0 title 'exact'", "0.95 with lines lt 3 dt 2 title '+-5%'",
                  "1.05 with lines lt 3 dt 2 notitle"]
        script.append("plot " + ", ".join(parts))
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


def has_cairo():
    r = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" in (r.stdout + r.stderr)


if __name__ == "__main__":
    main()

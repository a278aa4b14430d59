#!/usr/bin/env bash
# colltune-jitter side by side with LogGOPSim (docs/jitter.md): the same trace (exported to
# LogGOPSim's noise format) and the same barrier program (bench/goal-barrier.py), o = 1 us per
# message at each end, L = 2 us, g = G = 0; slowdown (mean over REPS runs, each against the run
# without noise) and simulation speed, unsynchronized ("independent") and synchronized
# ("--noise-cosched", one start for all) noise.
#   LGS=DIR bench/jitter-loggopsim.sh BUILD_DIR OUT_DIR TRACE [PHASES] [REPS] [SIZES]
# DIR holds LogGOPSim and txt2bin, built from github.com/spcl/LogGOPSim with Debian's gengetopt,
# re2c and libgraphviz-dev (docs/jitter.md says how).
set -euo pipefail
build=$(cd "$1" && pwd) out=$2 trace=$3 phases=${4:-20} reps=${5:-5} sizes=${6:-16 256 4096}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
"$build/colltune-jitter" export --input "$trace" --output "$out/noise.txt"
printf "%-6s %-6s %-26s %-26s %-22s\n" mode tasks "LogGOPSim slowdown" "colltune-jitter slowdown" "LogGOPSim ev/s, s"
for n in $sizes; do
  python3 "$here/goal-barrier.py" "$n" "$phases" 1000000 >"$out/b$n.goal"
  "$LGS/txt2bin" -i "$out/b$n.goal" -o "$out/b$n.bin" >/dev/null
  quiet=$("$LGS/LogGOPSim" -f "$out/b$n.bin" -L 2000 -o 1000 -g 0 -G 0 -b |
    sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\).*/\1/p')
  for mode in unsync sync; do
    flag=""
    [ "$mode" = sync ] && flag=--noise-cosched
    vals=() t0=$(date +%s.%N) speed=""
    for r in $(seq "$reps"); do
      sleep 1  # LogGOPSim seeds its starting points with time(0)
      res=$("$LGS/LogGOPSim" -f "$out/b$n.bin" -L 2000 -o 1000 -g 0 -G 0 -b \
        --noise-trace "$out/noise.txt" $flag)
      t=$(echo "$res" | sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\).*/\1/p')
      speed=$(echo "$res" | sed -n 's/.*Speed: \([^ ]*\) ev\/s.*/\1/p')
      vals+=("$(python3 -c "print($t / $quiet)")")
    done
    lgs=$(python3 -c "
import statistics as s, sys
v = [float(x) for x in sys.argv[1:]]
print('%.4f +- %.4f' % (s.mean(v), 1.96 * s.stdev(v) / len(v) ** 0.5 if len(v) > 1 else 0))" "${vals[@]}")
    ours=$("$build/colltune-jitter" simulate --trace "$trace" --tasks "$n" --phases "$phases" \
      --quantum-us 1000 --send-ns 1000 --recv-ns 1000 --wire-ns 2000 --reps "$reps" \
      --mode "$mode" | tail -1 | awk '{printf "%.4f +- %.4f (%.3g s)", $4, $5, $6}')
    printf "%-6s %-6s %-26s %-26s %-22s\n" "$mode" "$n" "$lgs" "$ours" "$speed"
  done
done

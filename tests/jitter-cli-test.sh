#!/usr/bin/env bash
# colltune-jitter's command line (docs/jitter.md): bad arguments and bad input give one line
# naming what is wrong (bad arguments: then the usage) and exit 2; import, export and simulate
# produce what they say.
#   tests/jitter-cli-test.sh BUILD_DIR
set -u
bin=$1/colltune-jitter
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# expect_error NAME REGEX ARGS...: exit 2, one error line matching REGEX (tests/cli-error.sh).
expect_error() {
  local name=$1 re=$2
  shift 2
  echo -n "$name: "
  "$(dirname "$0")/cli-error.sh" "$re" "$bin" "$@" || fail=1
}
printf '100\t50\n400\t20\n1000\t30\n' >"$tmp/noise.txt"
printf '# colltune-jitter trace 1\n# hz: 1e9\n10 20\n10 x\n' >"$tmp/bad.trace"
expect_error no_command "missing command \(valid: collect, summary, import, export, latency, simulate\); --help"
expect_error unknown_command "unknown command 'simulat' \(valid: collect, summary, import, export, latency, simulate\)" simulat
expect_error unknown_option "unknown option '--trase' \(valid: --trace, --tasks," simulate --trase x
expect_error missing_value "--phases needs a value" simulate --trace x --phases
expect_error bad_number "--phases: invalid value 'many' \(valid: numbers from 1 to 10000000\)" simulate --trace x --phases many
expect_error out_of_range "--coverage: invalid value '2' \(valid: numbers from 1e-06 to 1\)" simulate --trace x --coverage 2
expect_error missing_option "--trace is required" simulate --tasks 2
expect_error plot_without_csv "--plot requires --csv" simulate --trace x --plot x.png
expect_error bad_cores "--cores: invalid value 'x' \(valid: integers from 0 to 1000000\)" collect --cores 0,x
expect_error bad_mode "--mode: invalid value 'fast' \(valid: unsync, sync, cosched\)" simulate --trace x --mode fast
expect_error bad_sync "--sync: invalid value 'ring' \(valid: barrier, bcast, scatter, gather, allreduce\)" simulate --trace x --sync ring
expect_error bad_tree "--tree: invalid value 'ring' \(valid: kary:K with K from 1 to 1024, binomial, linear\)" simulate --trace x --tree ring
expect_error missing_trace "nonexistent.trace: file: cannot be opened" simulate --trace "$tmp/nonexistent.trace" --tasks 2
expect_error bad_row "bad.trace:4: cycles_to_next_jitter: expected a number" simulate --trace "$tmp/bad.trace" --tasks 2
expect_error foreign_file "noise.txt:1: header: not a colltune-jitter trace" summary "$tmp/noise.txt"
expect_error bad_core "core 4096 does not exist" collect --cores 4096 --duration 0.01
# Import, export: the LogGOPSim round trip is exact.
"$bin" import --hz 1e9 --input "$tmp/noise.txt" --output "$tmp/n.trace" &&
  "$bin" export --input "$tmp/n.trace" --output "$tmp/back.txt" &&
  cmp -s "$tmp/noise.txt" "$tmp/back.txt" && echo "ok       loggopsim round trip" ||
  { echo "FAILED   loggopsim round trip"; fail=1; }
# Simulate: one CSV row per mode and task count, and the slowdowns derived by hand below.
"$bin" simulate --trace "$tmp/n.trace" --tasks 1,64 --phases 20 --quantum-us 0.2 --reps 3 \
  --mode unsync,sync --send-ns 1 --recv-ns 1 --wire-ns 1 --csv "$tmp/s.csv" >"$tmp/s.out" 2>&1
rows=$(($(wc -l <"$tmp/s.csv") - 1))
if [ "$rows" = 4 ] && head -1 "$tmp/s.csv" | grep -q '^label,tasks,slowdown,ci95'; then
  echo "ok       simulate: $rows rows"
else
  echo "FAILED   simulate: $rows rows"; cat "$tmp/s.out"; fail=1
fi
# Expected slowdowns, by hand (docs/jitter.md, src/jitter/simulate.hpp; 1 GHz: 1 ns = 1 cycle).
# The trace is a circle of L = 1030 cycles with events [100,150), [400,420), [1000,1030): 100
# cycles of jitter a lap (noise fraction f = 100/1030; 1/(1 - f) = 1.1075, the mean slowdown
# of long work). A window of 5 laps holds 500 of jitter; one of at most 360 cycles touches at
# most two events (all three span 402 at least), so at most 80 (the 30 and 50 cycle ones).
# - One task (either mode): no barrier, 20 x 200 = 4000 cycles of work from a random point
#   (an event under way is waited out). 4 laps give 3720 free cycles and 400 of jitter; the
#   other 280 free cycles meet 0 to 80 more: 4400 to 4480 cycles, each rep in [1.10, 1.12].
# - Quiet 64-task run (binary heap tree, send = recv = wire = 1 cycle): all finish phase 1's
#   compute at 200; 63's message climbs 6 levels and the release comes down: 63 (depth 6) is
#   free at 241, 62 (the last) at 243. Later phases repeat 63's chain every 241 cycles (every
#   other message reaches a node of that chain 5 cycles or more before 63's): Tq = 243 + 19 x 241
#   = 4822.
# - sync, 64 tasks: all start at one point, so at equal clocks all are at one place in the
#   trace. The run's binding chain is quiet ops (at most Tq) plus the events it waited out, so
#   T <= Tq + J (J: jitter in [0, T)); the quiet critical chain cannot do CPU work during an
#   event and overlaps it with at most one wire cycle, so T >= Tq + J - n (n <= 18 events met).
#   T >= 4822 + 400 - 18 exceeds 5 laps, so J >= 500 and T >= 5304; then T <= 5402 is 5 laps
#   plus at most 252 cycles, so J <= 580 and T <= 5402. Slowdown in [5304, 5402] / 4822 =
#   [1.09996, 1.12028]: the one-task range widened by 0.0003, whatever the start.
# - unsync, 64 tasks: a 200-cycle compute from a random point misses all events with
#   probability 430/1030; all 64 tasks of a phase miss with probability < 1e-24: the jitter
#   compounds, above the sync bound.
# The CSV prints 6 decimals: bounds are compared with 1e-6 of slack.
slowdown() { awk -F, -v l="\"n.trace $1\"" -v n="$2" '$1 == l && $2 == n { print $3 }' "$tmp/s.csv"; }
# expect_slowdown NAME VALUE LO HI: LO <= VALUE <= HI (within 1e-6).
expect_slowdown() {
  if [ -n "$2" ] && awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v >= lo - 1e-6 && v <= hi + 1e-6) }'; then
    echo "ok       simulate $1: slowdown $2 in [$3, $4]"
  else
    echo "FAILED   simulate $1: slowdown '$2' not in [$3, $4]"; cat "$tmp/s.csv"; fail=1
  fi
}
expect_slowdown "unsync 1 task" "$(slowdown unsync 1)" 1.10 1.12
expect_slowdown "sync 1 task" "$(slowdown sync 1)" 1.10 1.12
expect_slowdown "sync 64 tasks" "$(slowdown sync 64)" 1.09996 1.12028
expect_slowdown "unsync 64 tasks" "$(slowdown unsync 64)" 1.12028 1000
[ "$fail" = 0 ] && echo "jitter cli: all passed" || echo "jitter cli: FAILED"
exit $fail

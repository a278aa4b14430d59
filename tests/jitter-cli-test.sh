#!/usr/bin/env bash
# colltune-jitter's command line (docs/jitter.md): bad arguments and bad input give one line
# naming what is wrong and exit 2; import, export and simulate produce what they say.
#   tests/jitter-cli-test.sh BUILD_DIR
set -u
bin=$1/colltune-jitter
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# expect_error NAME REGEX ARGS...: exit 2, exactly one line on stderr, matching REGEX.
expect_error() {
  local name=$1 re=$2
  shift 2
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -Eq -e "$re" "$tmp/err"; then
    echo "ok       $name: $(cat "$tmp/err")"
  else
    echo "FAILED   $name: exit $rc, $lines lines: $(cat "$tmp/err")"
    fail=1
  fi
}
printf '100\t50\n400\t20\n1000\t30\n' >"$tmp/noise.txt"
printf '# colltune-jitter trace 1\n# hz: 1e9\n10 20\n10 x\n' >"$tmp/bad.trace"
expect_error no_command "missing command \(valid: collect, summary, import, export, latency, simulate\); --help"
expect_error unknown_command "unknown command 'simulat' \(valid: collect, summary, import, export, latency, simulate\)" simulat
expect_error unknown_option "unknown option --trase \(valid: --trace" simulate --trase x
expect_error missing_value "--phases needs a value" simulate --trace x --phases
expect_error bad_number "--phases: 'many' is not a number from 1 to" simulate --trace x --phases many
expect_error bad_mode "--mode: unknown 'fast' \(valid: unsync, sync, cosched\)" simulate --trace x --mode fast
expect_error bad_sync "--sync: unknown .ring. \(valid: barrier, bcast, scatter, gather, allreduce\)" simulate --trace x --sync ring
expect_error bad_tree "--tree: unknown 'ring' \(valid: kary:K, binomial, linear\)" simulate --trace x --tree ring
expect_error missing_trace "nonexistent.trace: file: cannot be opened" simulate --trace "$tmp/nonexistent.trace" --tasks 2
expect_error bad_row "bad.trace:4: cycles_to_next_jitter: expected a number" simulate --trace "$tmp/bad.trace" --tasks 2
expect_error foreign_file "noise.txt:1: header: not a colltune-jitter trace" summary "$tmp/noise.txt"
expect_error bad_core "core 4096 does not exist" collect --cores 4096 --duration 0.01
# Import, export: the LogGOPSim round trip is exact.
"$bin" import --hz 1e9 --input "$tmp/noise.txt" --output "$tmp/n.trace" &&
  "$bin" export --input "$tmp/n.trace" --output "$tmp/back.txt" &&
  cmp -s "$tmp/noise.txt" "$tmp/back.txt" && echo "ok       loggopsim round trip" ||
  { echo "FAILED   loggopsim round trip"; fail=1; }
# Simulate: one CSV row per mode and task count; sync stays at the one-task slowdown.
"$bin" simulate --trace "$tmp/n.trace" --tasks 1,64 --phases 20 --quantum-us 0.2 --reps 3 \
  --mode unsync,sync --send-ns 1 --recv-ns 1 --wire-ns 1 --csv "$tmp/s.csv" >"$tmp/s.out" 2>&1
rows=$(($(wc -l <"$tmp/s.csv") - 1))
if [ "$rows" = 4 ] && head -1 "$tmp/s.csv" | grep -q '^label,tasks,slowdown,ci95'; then
  echo "ok       simulate: $rows rows"
else
  echo "FAILED   simulate: $rows rows"; cat "$tmp/s.out"; fail=1
fi
[ "$fail" = 0 ] && echo "jitter cli: all passed" || echo "jitter cli: FAILED"
exit $fail

#!/usr/bin/env bash
# The calibration budget under simulation: colltune-calibrate on generated platforms (seed 11,
# never used to design a rule) must end within its budget plus 10% of simulated time, whether
# or not what it measured fits a table ("5/5 done in X s" or "failed after X s"). `third`: the
# table must hold a third root's curves (model.correction_unlike_root), quick or not.
#   budget.sh SMPI_EXEC CALIBRATE GEN WORKDIR KIND:HOSTS:BUDGET[:quick[:third]]...
set -uo pipefail
exec_=$1 cal=$2 gen=$3 work=$4
shift 4
mkdir -p "$work"
pass=0 fail=0
for c in "$@"; do
  IFS=: read -r kind n budget quick third <<<"$c"
  plat=$work/$kind$n-s11
  [ -f "$plat/platform.xml" ] || python3 "$gen" --hosts "$n" --kind "$kind" --seed 11 --out "$plat" >/dev/null
  flag=""
  [ "$quick" = quick ] && flag=--quick
  rm -f "$work/t.yaml"
  out=$(SMPI_PLATFORM=$plat "$exec_" -n "$n" "$cal" --output "$work/t.yaml" --budget "$budget" $flag 2>&1)
  took=$(grep -Eo '(5/5 done in|failed after) [0-9.e+-]+ s' <<<"$out" | grep -Eo '[0-9.e+-]+ s' | grep -Eo '^[0-9.e+-]+')
  if [ -z "$took" ]; then
    echo "FAILED   $kind $n hosts, budget $budget $flag: no time reported"; echo "$out" | tail -5
    fail=$((fail + 1)); continue
  fi
  if [ "${third:-}" = third ] && ! grep -q '^  correction_unlike_root:' "$work/t.yaml" 2>/dev/null; then
    echo "FAILED   $kind $n hosts, budget $budget $flag: no third root's curves in the table"
    fail=$((fail + 1)); continue
  fi
  cut=$(grep -Eo 'cut by it: .*' <<<"$out" | head -1)
  if [ "$(echo "$took <= 1.1 * $budget" | bc -l)" = 1 ]; then
    echo "ok       $kind $n hosts, budget $budget s $flag: $took s (${cut:-failed: $(grep -Eo 'failed after .*' <<<"$out")})"
    pass=$((pass + 1))
  else
    echo "FAILED   $kind $n hosts, budget $budget s $flag: $took s"
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]

#!/usr/bin/env bash
# `colltune-predict benchmark --occupancy N` forks N - 1 neighbours that run kernels in a loop:
# killed outright (SIGKILL, no chance to stop them), it must leave none running.
# Usage: predict-neighbours-check.sh COLLTUNE_PREDICT WORKDIR
set -u
predict=$1 work=$2
out="$work/neighbours-$$.yaml"
"$predict" benchmark --occupancy 3 --kernels dgemm --output "$out" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do  # until the neighbours exist (children of the benchmark)
  [ "$(pgrep -P "$pid" | wc -l)" -ge 2 ] && break
  sleep 0.05
done
kids=$(pgrep -P "$pid" | tr '\n' ' ')
[ -n "$kids" ] || { echo "FAIL: no neighbours were forked"; kill -9 "$pid"; exit 1; }
kill -9 "$pid"
wait "$pid" 2>/dev/null
running() {  # the neighbours still running: present and not a zombie waiting for its reaper
  local k state out=""
  for k in $kids; do
    state=$(awk '{print $3}' "/proc/$k/stat" 2>/dev/null)
    [ -n "$state" ] && [ "$state" != Z ] && out="$out $k"
  done
  echo "$out"
}
for _ in $(seq 1 50); do  # up to 5 s on a busy machine
  left=$(running)
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -n "$left" ]; then
  echo "FAIL: neighbours still running after the benchmark was killed:$left"
  kill -9 $left
  exit 1
fi
rm -f "$out"
echo "PASS: neighbours $kids gone with the benchmark"

#!/usr/bin/env bash
# hetcluster: a bad SPEC gets one line naming the file, the host and the field with its valid
# values, exit 2, before anything is created (queue_packets: an integer 2..100000).
#   spec-errors.sh BUILD_DIR
# Exits 77 (ctest: skipped) where this machine cannot host the bed (as run-bed-tests.sh).
set -uo pipefail
build=$(cd "$1" && pwd)
het=$(cd "$(dirname "$0")/../.." && pwd)/scripts/hetcluster
skip() { echo "SKIPPED: hetcluster spec errors: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
for t in ip tc iptables-legacy ethtool; do command -v $t >/dev/null || skip "$t not installed"; done
[ -x "$build/colltune-nfq-delay" ] || skip "colltune-nfq-delay not built (libnetfilter-queue-dev)"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
dir=$(mktemp -d)
# A state of its own: a spec wrongly accepted brings up a bed this test then takes down.
export HETCLUSTER_STATE=$dir/state
trap '"$het" down >/dev/null 2>&1; rm -rf "$dir"' EXIT
fail=0
check() {  # SPEC_TEXT EXPECTED_SUBSTRING
  printf '%s\n' "$1" >"$dir/spec.yaml"
  out=$("$het" up "$dir/spec.yaml" --build "$build" 2>&1)
  rc=$?
  if [ "$rc" != 2 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] ||
     [[ "$out" != *"$dir/spec.yaml: $2"* ]]; then
    echo "FAIL: rc $rc, output '$out', expected exit 2 and one line with '$2'"
    fail=1
  else
    echo "ok: $out"
  fi
}
check "hosts: [{name: a, rate_mbit: 10, delay_us: 0, queue_packets: 1}]" \
  "hosts[0].queue_packets: 1 (valid: an integer 2..100000)"
check "hosts: [{name: a, rate_mbit: 10, delay_us: 0, queue_packets: many}]" \
  "hosts[0].queue_packets: 'many' (valid: an integer 2..100000)"
check "hosts: [{name: a, rate_mbit: 10, delay_us: 0, queue: 8}]" \
  "hosts[0]: needs name, rate_mbit, delay_us and optionally queue_packets"
check "hosts: [{name: a, rate_mbit: 10}]" \
  "hosts[0]: needs name, rate_mbit, delay_us and optionally queue_packets"
[ "$fail" = 0 ] && echo "hetcluster spec errors: PASS"
exit "$fail"

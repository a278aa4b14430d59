#!/usr/bin/env bash
# Verified decisions (COLLTUNE_VERIFY, docs/node-aware.md) at np 8 on the hetcluster8 table,
# whose platform block is replaced by this host's: its model (h0..h7, shaped links of 1 ms)
# is wrong here on purpose. Emulated identities h0..h7; world rank 1 pauses 20 ms in each
# verification call of one kind (the test hook COLLTUNE_TEST_SLOW_VERIFIED), so that the
# outcome does not depend on this machine's timings.
#   verify-test.sh MODE BUILD_DIR SOURCE_DIR      MODE: slow-pick | slow-native | off
# Environment as for run-mpi.sh.
set -u
mode=$1 build=$2 src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{ echo "colltune_model: 3"; "$build/colltune-info" --platform
  sed -n '/^decisions:/,$p' "$src/tests/data/hetcluster8-table.yaml"; } >"$work/t.yaml"
export COLLTUNE_MODEL="$work/t.yaml" COLLTUNE_VERBOSE=1 COLLTUNE_STATS=1
export COLLTUNE_LIB="$build/tests/libcolltune_testhooks.so"
run() { "$src/tests/run-mpi.sh" --grep "PASS" --hosts 1:h "$@" 8 "$build/tests/mpi_verify_app" 65536 40; }
# At 64 KiB from root 0 the table picks model_linear (scatter) and linear (gather) over native,
# and native for bcast; each pick is verified over 4 pairs of calls (its predicted time is
# over 2.5 ms / 8): 4 calls of the pick per rank, 32 in all.
case $mode in
slow-pick)  # the table's picks are slower: native from the 9th call on
  COLLTUNE_TEST_SLOW_VERIFIED=pick:0.02 run \
    --grep "verified scatter on .* model_linear against native over 8 calls: .*: native from now on" \
    --grep "verified gather on .* linear against native over 8 calls: .*: native from now on" \
    --grep "op=scatter algorithm=model_linear calls=32 " --grep "op=gather algorithm=linear calls=32 " \
    --grep "op=scatter verified=1 kept=0 native=1" --grep "op=gather verified=1 kept=0 native=1" ;;
slow-native)  # native is slower: the picks stay
  COLLTUNE_TEST_SLOW_VERIFIED=native:0.02 run \
    --grep "verified scatter on .*: kept" --grep "verified gather on .*: kept" \
    --grep "op=scatter algorithm=native calls=32 " --grep "op=gather algorithm=native calls=32 " \
    --grep "op=scatter verified=1 kept=1 native=0" ;;
off)  # COLLTUNE_VERIFY=0: the picks as they are, no verification
  COLLTUNE_VERIFY=0 COLLTUNE_TEST_SLOW_VERIFIED=pick:0.02 run --no-grep "verified" \
    --grep "op=scatter algorithm=model_linear calls=320 " --no-grep "op=scatter algorithm=native" ;;
*) echo "verify-test.sh: unknown mode '$mode'"; exit 2 ;;
esac

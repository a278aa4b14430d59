#!/usr/bin/env bash
# The C API (include/colltune/predict.h) answers as colltune-predict does: the example scheduler's
# fastest grid and time for each host set equal the first row of `colltune-predict best` on the
# same members, and it chooses the faster set; with WANT (A or B) that set must be strictly faster.
# Usage: predict-api-check.sh SCHEDULER COLLTUNE_PREDICT TABLE COMP N HOSTS_A HOSTS_B [WANT]
set -euo pipefail
sched=$1 predict=$2 table=$3 comp=$4 n=$5 a=$6 b=$7 expect=${8:-}
out=$("$sched" "$table" "$comp" "$n" "$a" "$b")
echo "$out"
fail=0
for set in A B; do
  hosts=$a; [ $set = B ] && hosts=$b
  count=$(tr ',' '\n' <<<"$hosts" | wc -l)
  cli=$("$predict" best --table "$table" --model "$comp" --routine pdgemm --sizes "$n,$n,$n" \
        --processes "$count" --members "$hosts" --format csv | sed -n 2p)
  grid=$(cut -d, -f2 <<<"$cli") block=$(cut -d, -f3 <<<"$cli") secs=$(cut -d, -f4 <<<"$cli")
  line=$(grep "^set $set:" <<<"$out")
  api_grid=$(sed -E 's/.*best ([0-9]+x[0-9]+) R=([0-9]+): ([^ ]+) s/\1/' <<<"$line")
  api_block=$(sed -E 's/.*best ([0-9]+x[0-9]+) R=([0-9]+): ([^ ]+) s/\2/' <<<"$line")
  api_secs=$(sed -E 's/.*best ([0-9]+x[0-9]+) R=([0-9]+): ([^ ]+) s/\3/' <<<"$line")
  if [ "$grid" != "$api_grid" ] || [ "$block" != "$api_block" ] ||
     ! python3 -c "import sys; a, b = map(float, sys.argv[1:]); sys.exit(abs(a - b) > 1e-5 * b)" \
       "$secs" "$api_secs"; then
    echo "FAIL: set $set: API $api_grid R=$api_block $api_secs s, CLI $grid R=$block $secs s"
    fail=1
  fi
  eval "t$set=$api_secs"
done
want=$(python3 -c "import sys; print('A' if float(sys.argv[1]) <= float(sys.argv[2]) else 'B')" "$tA" "$tB")
grep -q "^choice: $want$" <<<"$out" || { echo "FAIL: the choice is not set $want"; fail=1; }
if [ -n "$expect" ] && { [ "$want" != "$expect" ] || [ "$tA" = "$tB" ]; }; then
  echo "FAIL: set $expect is not strictly faster (A $tA s, B $tB s)"
  fail=1
fi
[ $fail = 0 ] && echo PASS
exit $fail

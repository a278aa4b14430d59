#!/usr/bin/env bash
# colltune-predict app from the command line (docs/app-models.md): the LMO rows (MPICH's and
# colltune's collectives) and MERPSYS's row for one N; --best-n's pick is the least of its own
# rows by the objective, and the energy cap removes the rows above it.
#   app-cli-check.sh COLLTUNE_PREDICT SOURCE_DIR TABLE
set -u
predict=$1 src=$2 table=$3
jac=$src/config/apps/jacobi.yaml mw=$src/config/apps/master-worker.yaml
node=$src/config/nodes/galera-plus.yaml
fail() { echo "FAILED: $*"; exit 1; }

out=$("$predict" app "$mw" --table "$table" --node "$node" --costs both -n 8 --flops-rate 1e9 \
  --format csv) || fail "app -n 8 exited $?"
[ "$(echo "$out" | cut -d, -f3,4 | tail -n +2 | tr '\n' ' ')" = "lmo,mpich lmo,colltune merpsys,formulas " ] ||
  fail "rows: $out"
# Every row has a time, an energy (a node's at most the total) and a chance of finishing in (0, 1].
echo "$out" | tail -n +2 | awk -F, '!($5 > 0 && $6 > 0 && $7 > 0 && $7 <= $6 && $8 > 0 && $8 <= 1) {exit 1}' ||
  fail "values: $out"

for objective in time expected energy; do
  out=$("$predict" app "$jac" --node "$node" --costs merpsys --best-n 1:4096 --var N=8192 \
    --objective "$objective" --checkpoint 30 --format csv) || fail "--best-n exited $?"
  col=5
  [ "$objective" = expected ] && col=9
  [ "$objective" = energy ] && col=6
  best=$(echo "$out" | awk -F, -v c=$col 'NR>1 && $12 == "true" {print $c}')
  least=$(echo "$out" | awk -F, -v c=$col 'NR>1 && (m == "" || $c < m) {m = $c} END {print m}')
  [ -n "$best" ] && [ "$best" = "$least" ] || fail "$objective: best $best, least $least: $out"
  [ "$(echo "$out" | grep -c ',true$')" = 1 ] || fail "$objective: not one best row: $out"
done

# A cap between the least and the largest energy: the pick is the fastest row under it.
out=$("$predict" app "$jac" --node "$node" --costs merpsys --best-n 1:4096 --var N=8192 --format csv)
cap=$(echo "$out" | awk -F, 'NR>1 {if (lo == "" || $6 < lo) lo = $6; if ($6 > hi) hi = $6} END {print (lo + hi) / 2}')
capped=$("$predict" app "$jac" --node "$node" --costs merpsys --best-n 1:4096 --var N=8192 \
  --energy-cap "$cap" --format csv) || fail "--energy-cap exited $?"
want=$(echo "$capped" | awk -F, -v cap="$cap" 'NR>1 && $6 <= cap && (m == "" || $5 < m) {m = $5; n = $1} END {print n}')
got=$(echo "$capped" | awk -F, 'NR>1 && $12 == "true" {print $1}')
[ -n "$want" ] && [ "$got" = "$want" ] || fail "cap $cap: picked $got, expected $want: $capped"
# PDGESV's model on every grid of 8 processes (1 x 8, 2 x 4, 4 x 2, 8 x 1); p = 3 does not
# divide 8: exit 2, naming the model's line that says so.
pdg=$src/config/apps/pdgesv.yaml
for p in 1 2 4 8; do
  t=$("$predict" app "$pdg" --table "$table" -n 8 --var N=512 --var p=$p --flops-rate 1e10 \
    --format csv | awk -F, 'NR == 2 {print $5}') || fail "pdgesv p=$p exited $?"
  awk -v t="$t" 'BEGIN {exit !(t > 0)}' || fail "pdgesv p=$p: time '$t'"
done
err=$("$predict" app "$pdg" --table "$table" -n 8 --var N=512 --var p=3 --flops-rate 1e10 2>&1)
rc=$?
[ "$rc" = 2 ] || fail "pdgesv p=3: exit $rc"
line=$(grep -n 'p must divide P' "$pdg" | cut -d: -f1)
echo "$err" | grep -q "line $line: loop: count -1" || fail "pdgesv p=3: $err"
echo PASS

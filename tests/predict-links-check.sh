#!/usr/bin/env bash
# Link age and re-measurement (docs/forecast.md "Link age"): measure-link records a link with
# its date, comm takes it and says how old it is, --max-age marks older ones stale, --refresh
# measures a stale link again through the launcher (and says so when that fails, leaving the
# file as it was), routine, best and coll give the age of the oldest link under them, coll takes
# the measured rate; bad input is one line, exit 2.
# Usage: predict-links-check.sh COLLTUNE_PREDICT MPIEXEC TABLE(hetcluster8) WORKDIR
set -u
predict=$1 mpiexec=$2 table=$3 work=$4
links="$work/links-$$.yaml"
trap 'rm -f "$links" "$links".*' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
# One process per identity, as a cluster's launcher would place them (COLLTUNE_IDENTITY stands
# for the host here).
launcher="timeout 120 $mpiexec -n 1 env COLLTUNE_IDENTITY={from} {command} : -n 1 env COLLTUNE_IDENTITY={to} {command}"
column() {  # column NAME of the CSV on stdin, first row
  python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); print(r[0][sys.argv[1]])' "$1"
}

# 1. measure-link writes the pair with today's date; comm takes it, age about 0, not stale.
timeout 120 "$mpiexec" -n 1 env COLLTUNE_IDENTITY=h0 "$predict" measure-link --from h0 --to h5 \
  --links "$links" --bytes 65536 : -n 1 env COLLTUNE_IDENTITY=h5 "$predict" measure-link \
  --from h0 --to h5 --links "$links" --bytes 65536 >"$work/ml-$$.out" 2>&1 ||
  { cat "$work/ml-$$.out"; no "measure-link failed"; }
rm -f "$work/ml-$$.out"
grep -q "from: h0, to: h5" "$links" || no "measure-link wrote no h0-h5 link"
today=$(date -u +%Y-%m-%d)
grep -q "measured: ${today}T" "$links" || no "the link's date is not today ($today)"
fixed=$(python3 -c 'import sys,yaml; print(yaml.safe_load(open(sys.argv[1]))["links"][0]["fixed"])' "$links")
out=$("$predict" comm --table "$table" --from h5 --to h0 --bytes 0 --links "$links" --max-age 1h --format csv)
python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(abs(a-b)>1e-12*max(1,abs(b)))' \
  "$(echo "$out" | column seconds)" "$fixed" || no "comm did not take the measured link: $out"
age=$(echo "$out" | column age_s)
python3 -c 'import sys; sys.exit(not 0 <= float(sys.argv[1]) < 120)' "$age" || no "age $age s, not about 0"
[ "$(echo "$out" | column stale)" = false ] || no "a fresh link marked stale: $out"
# The small size (16384 B by default) gives the bytes the link passes free; comm charges the
# rest, fixed + per_byte * max(0, m - free_bytes), in the file's own numbers.
python3 - "$links" "$("$predict" comm --table "$table" --from h0 --to h5 --bytes 8192 --links "$links" --format csv | column seconds)" <<'PY' ||
import sys, yaml
l = yaml.safe_load(open(sys.argv[1]))["links"][0]
assert l["small_bytes"] == 16384, l
assert 0 <= l["free_bytes"] <= 16384, l
want = l["fixed"] + l["per_byte"] * max(0, 8192 - l["free_bytes"])
assert abs(float(sys.argv[2]) - want) <= 1e-8 * want, (sys.argv[2], want)  # 9 digits printed
PY
  no "the small size or the free bytes are not what comm charges"
# The calibrated table records no date: its links' age is unknown, stale under any --max-age.
out=$("$predict" comm --table "$table" --from h0 --to h1 --bytes 0 --links "$links" --max-age 1d --format csv)
[ "$(echo "$out" | column age_s)" = unknown ] && [ "$(echo "$out" | column stale)" = true ] ||
  no "an undated link is not unknown and stale: $out"

# 2. Backdated: stale at --max-age 1d; a failing launcher says so, exit 1, file untouched.
sed -i "s/measured: ${today}T[0-9:]*Z/measured: 2020-01-01T00:00:00Z/" "$links"
cp "$links" "$links.before"
out=$("$predict" comm --table "$table" --from h0 --to h5 --bytes 1024 --links "$links" --max-age 1d --format csv)
[ "$(echo "$out" | column stale)" = true ] || no "a link from 2020 is not stale at --max-age 1d: $out"
out=$("$predict" comm --table "$table" --from h0 --to h5 --bytes 1024 --links "$links" --max-age 1d \
  --refresh --launcher false --format csv 2>"$links.err")
rc=$?
[ $rc = 1 ] || no "a failed re-measurement exited $rc, not 1"
grep -q "re-measuring h0-h5 failed" "$links.err" || no "no line says the re-measurement failed"
[ "$(echo "$out" | column stale)" = true ] || no "the forecast on the stale link is not marked stale"
cmp -s "$links" "$links.before" || no "a failed re-measurement changed the links file"

# 3. --refresh through the launcher: measured again, dated today, not stale.
out=$("$predict" comm --table "$table" --from h0 --to h5 --bytes 1024 --links "$links" --max-age 1d \
  --refresh --launcher "$launcher" --format csv 2>"$links.err")
rc=$?
[ $rc = 0 ] || { cat "$links.err"; no "--refresh exited $rc"; }
[ "$(echo "$out" | column stale)" = false ] || no "still stale after --refresh: $out"
grep -q "measured: ${today}T" "$links" || no "--refresh did not date the link today"
[ "$(grep -c 'from: h' "$links")" = 1 ] || no "the pair is in the file more than once"

# 3b. routine, best and coll say how old the oldest link under them is: on h0 and h5 the link
# measured today (not stale at 1d); with h1 as well, h0-h1 has no date (unknown, stale).
out=$("$predict" routine --table "$table" --model "$(dirname "$table")/comp-vm.yaml" --routine pdgemm \
  --sizes 512,512,512 --block 64 --grid 1x2 --members h0,h5 --links "$links" --max-age 1d --format csv)
python3 -c 'import sys; sys.exit(not 0 <= float(sys.argv[1]) < 600)' "$(echo "$out" | column links_age_s)" &&
  [ "$(echo "$out" | column stale)" = false ] || no "routine on h0,h5: the fresh link's age is not reported: $out"
out=$("$predict" best --table "$table" --model "$(dirname "$table")/comp-vm.yaml" --routine pdgemm \
  --sizes 512,512,512 --processes 3 --members h0,h5,h1 --links "$links" --max-age 1d --format csv 2>"$links.err")
python3 - "$out" <<'PY' || no "best: ages per grid wrong: $out"
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
ok = all((r["links_age_s"] == "unknown") == (r["grid"] in ("1x3", "3x1")) for r in rows)
ok = ok and all((r["stale"] == "true") == (r["grid"] in ("1x3", "3x1")) for r in rows)
sys.exit(not (ok and rows))
PY
grep -q "measure-link --from h0 --to h1" "$links.err" || no "best: no line names the stale link h0-h1"
out=$("$predict" coll --table "$table" --op bcast --root 0 --bytes 8 --members h0,h5 --links "$links" \
  --max-age 1d --format csv)
[ "$(echo "$out" | column stale)" = false ] || no "coll on h0,h5 marked stale: $out"

# 4. coll takes the measured rate: a link made 100x slower slows a scatter from h0.
slow="$links.slow"
python3 - "$links" "$slow" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
d["links"][0]["per_byte"] = 1e-5
d["links"][0]["measured"] = "2026-01-01T00:00:00Z"
open(sys.argv[2], "w").write(yaml.safe_dump(d))
PY
a=$("$predict" coll --table "$table" --op scatter --root 0 --bytes 65536 --algorithm linear --format csv | column seconds)
b=$("$predict" coll --table "$table" --op scatter --root 0 --bytes 65536 --algorithm linear --links "$slow" --format csv | column seconds)
python3 -c 'import sys; sys.exit(not float(sys.argv[2]) > float(sys.argv[1]) + 0.5)' "$a" "$b" ||
  no "coll did not take the slow link (65536 B at 10 us/B is 0.66 s more): $a -> $b s"

# 5. Bad input: one line naming the file or option, exit 2.
printf 'colltune_links: 1\nlinks:\n  - {from: h0, to: h5, fixed: 1, per_byte: 1}\n' >"$links.bad"
err=$("$predict" comm --table "$table" --from h0 --to h5 --bytes 1 --links "$links.bad" 2>&1 >/dev/null)
rc=$?
{ [ $rc = 2 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "\.bad:.*links\[0\]\.measured"; } ||
  no "a broken links file: exit $rc, '$err'"
err=$("$predict" comm --table "$table" --from h0 --to h5 --bytes 1 --links "$work/absent-$$.yaml" 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] && echo "$err" | grep -q "absent-$$.yaml" || no "a missing links file: exit $rc, '$err'"
"$predict" comm --table "$table" --from h0 --to h5 --bytes 1 --refresh >/dev/null 2>&1
[ $? = 2 ] || no "--refresh without --links and --max-age is accepted"
err=$(timeout 120 "$mpiexec" -n 2 "$predict" measure-link --from h0 --to h5 --links "$links" 2>&1)
rc=$?
[ $rc = 2 ] && echo "$err" | grep -q "valid: h0 and h5" || no "measure-link on the wrong identities: exit $rc, '$err'"
err=$(timeout 120 "$mpiexec" -n 2 "$predict" measure-link --from h0 --to h5 --links "$links" \
  --bytes 4096 --small-bytes 4096 2>&1)
rc=$?
[ $rc = 2 ] && [ "$(echo "$err" | grep -c small-bytes)" = 1 ] && echo "$err" | grep -q "below --bytes" ||
  no "a small size not below --bytes: exit $rc, '$err'"

[ $fail = 0 ] && echo PASS
exit $fail

#!/usr/bin/env bash
# Link age on the hetcluster bed (docs/forecast.md "Link age"): how far colltune-predict comm is
# from a measured transfer with the calibrated table, and after `comm --refresh` measured the
# link again, on the platform as calibrated and on one whose links changed afterwards (h5 and h2
# at half and twice their rate, h7's delay doubled: a link re-routed or degraded).
# "Measured" is MPIBlib's p2p roundtrip of B bytes each way (colltune-bench --op p2p), halved:
# an experiment other than measure-link's (B out, nothing back, minus the empty roundtrip).
#   bench/link-refresh-hetcluster.sh BUILD OUT [TABLE]     # as root; about 4 minutes here
set -euo pipefail
build=$(realpath "${1:?usage: link-refresh-hetcluster.sh BUILD OUT [TABLE]}")
out=${2:?usage: link-refresh-hetcluster.sh BUILD OUT [TABLE]}
src=$(cd "$(dirname "$0")/.." && pwd)
table=$(realpath "${3:-$src/bench/results/model-trees-hetcluster8-chain/het8-table.yaml}")
mkdir -p "$out"
out=$(realpath "$out")
het=$src/scripts/hetcluster
predict=$build/colltune-predict
sizes=4096,65536,1048576
pairs="h0:h5 h2:h7 h1:h3 h4:h6"
cp "$src/config/hetcluster/8hosts.yaml" "$out/as-calibrated.yaml"
python3 - "$out/as-calibrated.yaml" "$out/changed.yaml" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
for h in d["hosts"]:
    if h["name"] == "h5": h["rate_mbit"] = h["rate_mbit"] / 2
    if h["name"] == "h2": h["rate_mbit"] = h["rate_mbit"] * 2
    if h["name"] == "h7": h["delay_us"] = h["delay_us"] * 2
open(sys.argv[2], "w").write(yaml.safe_dump(d))
PY
echo "platform,from,to,bytes,measured_s,table_s,refreshed_s" >"$out/links.csv"
trap '"$het" down >/dev/null 2>&1 || true' EXIT
for platform in as-calibrated changed; do
  "$het" down >/dev/null 2>&1 || true
  "$het" up "$out/$platform.yaml" --build "$build"
  links=$out/links-$platform.yaml
  rm -f "$links"
  for pair in $pairs; do
    a=${pair%:*} b=${pair#*:}
    "$het" run --no-preload --hosts "$a,$b" -- "$build/bench/colltune-bench" --op p2p \
      --sizes "$sizes" --min-reps 5 --max-reps 30 --csv "$out/p2p-$platform-$a-$b.csv" \
      >/dev/null 2>&1
    "$predict" comm --table "$table" --from "$a" --to "$b" --bytes "$sizes" --format csv \
      >"$out/table-$platform-$a-$b.csv"
    "$predict" comm --table "$table" --from "$a" --to "$b" --bytes "$sizes" --links "$links" \
      --max-age 1h --refresh --launcher "$het run --no-preload --hosts {hosts} --" \
      --format csv >"$out/refreshed-$platform-$a-$b.csv" 2>>"$out/refresh.log"
    python3 - "$platform" "$a" "$b" "$out" >>"$out/links.csv" <<'PY'
import csv, sys
platform, a, b, out = sys.argv[1:]
meas = {int(r["bytes"]): float(r["mean_s"]) / 2
        for r in csv.DictReader(open(f"{out}/p2p-{platform}-{a}-{b}.csv"))}
tab = {int(float(r["bytes"])): float(r["seconds"])
       for r in csv.DictReader(open(f"{out}/table-{platform}-{a}-{b}.csv"))}
ref = {int(float(r["bytes"])): float(r["seconds"])
       for r in csv.DictReader(open(f"{out}/refreshed-{platform}-{a}-{b}.csv"))}
for m in sorted(meas):
    print(f"{platform},{a},{b},{m},{meas[m]:.6g},{tab[m]:.6g},{ref[m]:.6g}")
PY
  done
  "$het" down >/dev/null
done
python3 - "$out/links.csv" <<'PY' | tee "$out/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| platform | pair | bytes | measured | table | error | refreshed | error |")
print("|---|---|---|---|---|---|---|---|")
err = {}
for r in rows:
    m, t, f = float(r["measured_s"]), float(r["table_s"]), float(r["refreshed_s"])
    et, ef = (t - m) / m * 100, (f - m) / m * 100
    err.setdefault(r["platform"], []).append((abs(et), abs(ef)))
    print(f"| {r['platform']} | {r['from']}-{r['to']} | {r['bytes']} | {m*1e3:.3f} ms | "
          f"{t*1e3:.3f} ms | {et:+.1f}% | {f*1e3:.3f} ms | {ef:+.1f}% |")
for p, e in err.items():
    print(f"{p}: |error| median / max: table {statistics.median(x for x, _ in e):.1f}% / "
          f"{max(x for x, _ in e):.1f}%, refreshed {statistics.median(y for _, y in e):.1f}% / "
          f"{max(y for _, y in e):.1f}%")
PY

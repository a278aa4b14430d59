#!/usr/bin/env bash
# Every link of the hetcluster bed measured again with a small size as well (colltune-predict
# measure-link --small-bytes, docs/forecast.md "Small messages"), into one links file that
# `replay`, `app`, `comm` and the routines take with --links; and each link's one-message time
# at a few sizes (MPIBlib's roundtrip, halved) against the table alone and with the file.
#   bench/links-hetcluster.sh BUILD OUT TABLE [HOSTS]    # as root; about 3 minutes for 8 hosts
set -euo pipefail
usage="usage: links-hetcluster.sh BUILD OUT TABLE [HOSTS]"
build=$(realpath "${1:?$usage}")
out=${2:?$usage}
table=$(realpath "${3:?$usage}")
hosts=${4:-8}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
het=$src/scripts/hetcluster
links=$out/links.yaml
sizes=${SIZES:-512,2048,4096,8192,24000,65536}
rm -f "$links"
trap '"$het" down >/dev/null 2>&1 || true' EXIT
"$het" down >/dev/null 2>&1 || true
"$het" up "$src/config/hetcluster/${hosts}hosts.yaml" --build "$build" >/dev/null
echo "from,to,bytes,measured_s,table_s,links_s" >"$out/links.csv"
for ((i = 0; i < hosts; i++)); do
  for ((j = i + 1; j < hosts; j++)); do
    "$het" run --no-preload --hosts "h$i,h$j" -- "$build/colltune-predict" measure-link \
      --from "h$i" --to "h$j" --links "$links" 2>>"$out/measure.log" >/dev/null
  done
done
# Out of sample: MPIBlib's roundtrip of B bytes each way (another experiment than
# measure-link's B out and nothing back), at sizes measure-link does not time.
for pair in ${PAIRS:-h0:h5 h2:h7 h1:h3 h4:h6}; do
  a=${pair%:*} b=${pair#*:}
  "$het" run --no-preload --hosts "$a,$b" -- "$build/bench/colltune-bench" --op p2p \
    --sizes "$sizes" --min-reps 5 --max-reps 30 --csv "$out/p2p-$a-$b.csv" >/dev/null 2>&1
  "$build/colltune-predict" comm --table "$table" --from "$a" --to "$b" --bytes "$sizes" \
    --format csv >"$out/table-$a-$b.csv"
  "$build/colltune-predict" comm --table "$table" --from "$a" --to "$b" --bytes "$sizes" \
    --links "$links" --format csv >"$out/links-$a-$b.csv"
  python3 - "$a" "$b" "$out" >>"$out/links.csv" <<'PY'
import csv, sys
a, b, out = sys.argv[1:]
meas = {int(r["bytes"]): float(r["mean_s"]) / 2
        for r in csv.DictReader(open(f"{out}/p2p-{a}-{b}.csv"))}
def col(f):
    return {int(float(r["bytes"])): float(r["seconds"]) for r in csv.DictReader(open(f))}
tab, lnk = col(f"{out}/table-{a}-{b}.csv"), col(f"{out}/links-{a}-{b}.csv")
for m in sorted(meas):
    print(f"{a},{b},{m},{meas[m]:.6g},{tab[m]:.6g},{lnk[m]:.6g}")
PY
done
python3 - "$out/links.csv" <<'PY' | tee "$out/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| pair | bytes | measured | table | error | links file | error |")
print("|---|---|---|---|---|---|---|")
et, el = [], []
for r in rows:
    m, t, l = float(r["measured_s"]), float(r["table_s"]), float(r["links_s"])
    et.append(abs(t / m - 1)); el.append(abs(l / m - 1))
    print(f"| {r['from']}-{r['to']} | {r['bytes']} | {m*1e3:.3f} ms | {t*1e3:.3f} ms | "
          f"{100*(t/m-1):+.1f}% | {l*1e3:.3f} ms | {100*(l/m-1):+.1f}% |")
print(f"|error| median / max: table {100*statistics.median(et):.1f}% / {100*max(et):.1f}%, "
      f"links file {100*statistics.median(el):.1f}% / {100*max(el):.1f}%")
PY

#!/usr/bin/env bash
# The hand model's forecast of a bench/app-validation.sh run's PDGESV cases again, with
# config/apps/pdgesv.yaml as it is now and the same run's measured costs (rates.txt), beside
# the run's measured time and trace forecast (docs/app-models.md "pdgesv").
#   bench/pdgesv-remodel.sh BUILD RUN_DIR TABLE EAGER
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1 dir=$2 table=$3 eager=$4
echo "platform,np,params,measured,model_mpich,model_colltune,trace_mpich,error_model,error_trace"
grep '^bed\|^vm' "$dir/cases.csv" | grep ',pdgesv,' | while IFS=, read -r plat _ np params med _ _ _ _ tm _; do
  line=$(grep "^pdgesv, $np single" "$dir/rates.txt" | tail -1)
  r3=$(sed 's/.*level 3 \([0-9.e+]*\), panel.*/\1/' <<<"$line")
  r2=$(sed 's/.*panel \([0-9.e+]*\) flops.*/\1/' <<<"$line")
  sw=$(sed 's/.*exchanges \([0-9.e+-]*\) s per.*/\1/' <<<"$line")
  vars=()
  for v in $params; do vars+=(--var "$v"); done
  out=$("$build/colltune-predict" app "$src/config/apps/pdgesv.yaml" --table "$table" -n "$np" \
        --flops-rate "$r3" --eager "$eager" "${vars[@]}" --var panel_rate="$r2" --var swap_s="$sw" --format csv |
        awk -F, 'NR>1{printf "%s,", $5}')
  IFS=, read -r m c <<<"$out"
  echo "$plat,$np,$params,$med,$m,$c,$tm,$(awk -v f="$m" -v x="$med" 'BEGIN{printf "%+.1f%%", 100*(f/x-1)}'),$(awk -v f="$tm" -v x="$med" 'BEGIN{printf "%+.1f%%", 100*(f/x-1)}')"
done

#!/usr/bin/env bash
# The third way to forecast bench/app-validation.sh's cases: each recorded run turned into a
# model (colltune-predict replay --to-model) and forecast by colltune-predict app on the same
# table, beside the measured time. Prints platform,app,np,params,measured,forecast,error.
#   bench/app-tomodel.sh BUILD RESULTS_DIR TABLE EAGER
set -euo pipefail
build=$(cd "$1" && pwd) dir=$2 table=$3 eager=$4
predict=$build/colltune-predict
echo "platform,app,np,params,measured,tomodel,error"
tail -n +2 "$dir/cases.csv" | while IFS=, read -r plat app np params med _; do
  trace=$dir/trace-$plat-$app-$np-$(echo "$params" | tr -c 'a-zA-Z0-9' _)
  model=$(mktemp --suffix=.yaml)
  if "$predict" replay "$trace" --to-model "$model" 2>/dev/null; then
    f=$("$predict" app "$model" --table "$table" -n "$np" --eager "$eager" --mpich \
        --format csv | awk -F, 'NR>1{print $5}')
    echo "$plat,$app,$np,$params,$med,$f,$(awk -v f="$f" -v m="$med" 'BEGIN{printf "%+.1f%%", 100 * (f / m - 1)}')"
  else
    echo "$plat,$app,$np,$params,$med,refused,"
  fi
  rm -f "$model"
done

#!/usr/bin/env bash
# colltune-predict app against real runs of three unmodified MPI programs (bench/apps: a 2-D
# Jacobi stencil, a master-worker program, ScaLAPACK's PDGESV on 1 x P and P x 1 grids),
# forecast two ways: from the hand-written model
# (config/apps/*.yaml) and from a run recorded by libcolltune_record.so (`replay`), both on a
# table calibrated on the same platform (docs/app-models.md "Validation").
#   bench/app-validation.sh BUILD OUT vm          # np 2 on this host (the one real-speed case)
#   bench/app-validation.sh BUILD OUT bed TABLE   # hetcluster bed, 4 and 8 hosts (as root)
# Each application's compute rate (flops per second of one process) is measured 3 times, on
# sizes the forecasts never use (Jacobi N 1280 and 2560, master-worker work 1e7 flops and chunk 4096), from the program's
# own compute timer, at the platform's occupancy (the median). Cases: 3 runs each (median, min, max).
# PDGESV's compute costs come from single-process solves at N 1536 (held out), as many at once
# as the platform has processes, their kernels timed by libcolltune_blas_timer.so
# (bench/pdgesv-rates.py).
# vm: the table is calibrated here first (np 2, 20 s) unless TABLE is given.
# APPS (default "jacobi mw pdgesv") picks the applications; LINKS, a links file (measure-link,
# bench/links-hetcluster.sh) that the LMO forecasts (model and trace) take with --links;
# BED_JAC_N, BED_MW_CASES (CHUNK:WORK ...), BED_PDG_N: the bed's cases; SHARED_CORES, the
# cores the bed's processes share, for the trace's replay (--shared-cores; the bed: nproc).
set -euo pipefail
export OPENBLAS_NUM_THREADS=1  # one core per process, as the platform's occupancy says
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd) out=$2 mode=$3
mkdir -p "$out"
out=$(cd "$out" && pwd)
predict=$build/colltune-predict
jac=$build/bench/app_jacobi mw=$build/bench/app_master_worker pdg=$build/bench/app_pdgesv
timer=$build/bench/libcolltune_blas_timer.so
apps=" ${APPS:-jacobi mw pdgesv} "
rec=$build/libcolltune_record.so
runs=${RUNS:-3}
csv=$out/cases.csv
echo "platform,app,np,params,measured_median,measured_min,measured_max,model_mpich,model_colltune,trace_mpich,trace_colltune,model_merpsys,merpsys_rate" >"$csv"
het=$src/scripts/hetcluster
links=()
[ -z "${LINKS:-}" ] || links=(--links "$(realpath "$LINKS")")
cores=()
[ -z "${SHARED_CORES:-}" ] || [ "$mode" = vm ] || cores=(--shared-cores "$SHARED_CORES")

launch() {  # NP CMD...: one run on the platform, no preload
  local np=$1
  shift
  if [ "$mode" = vm ]; then
    mpiexec.mpich -n "$np" "$@"
  else
    "$het" run --no-preload -- "$@"
  fi
}
record() {  # NP DIR CMD...: one run with the recorder preloaded (after the bed's own shim)
  local np=$1 dir=$2
  shift 2
  if [ "$mode" = vm ]; then
    mpiexec.mpich -n "$np" env LD_PRELOAD="$rec" COLLTUNE_RECORD="$dir" COLLTUNE_RECORD_WINDOW="$window" "$@"
  else
    COLLTUNE_RECORD="$dir" COLLTUNE_RECORD_WINDOW="$window" "$het" run --no-preload --preload "$rec" -- "$@"
  fi
}
median3() { python3 -c 'import sys,statistics as s; v=sorted(map(float,sys.argv[1:])); print(s.median(v), v[0], v[-1])' "$@"; }

# One case: measure RUNS times, record once, forecast from the model and from the trace.
case_run() {  # PLATFORM NP APP MODEL VARS... -- CMD...
  local plat=$1 np=$2 app=$3 model=$4
  shift 4
  local vars=() rvars=()
  while [ "$1" != -- ]; do vars+=(--var "$1"); shift; done
  shift
  # PDGESV's measured costs: model variables, not the case's parameters.
  if [ "$app" = pdgesv ]; then
    rvars=(--var panel_rate="${rate[pdgesv_panel]}" --var swap_s="${rate[pdgesv_swap]}")
  fi
  local times=() line
  for _ in $(seq "$runs"); do
    line=$(launch "$np" "$@" | tail -1)
    if [ "$app" = jacobi ]; then times+=("$(echo "$line" | awk '{print $5}')")
    else times+=("$(echo "$line" | awk '{print $6}')"); fi
  done
  read -r med lo hi < <(median3 "${times[@]}")
  local dir=$out/trace-$plat-$app-$np-$(echo "${vars[*]}" | sed 's/--var //g' | tr -c 'a-zA-Z0-9' _)
  rm -rf "$dir"
  mkdir -p "$dir"
  window=1  # the run; PDGESV's window 2 is its timed solve (window 1: the warm-up)
  if [ "$app" = pdgesv ]; then window=2; fi
  record "$np" "$dir" "$@" >/dev/null
  local m
  # PDGESV exchanges rows with MPI_Isend, MPI_Wait, MPI_Recv on both sides: on this VM its
  # 512-byte messages are eager (MPICH's shared-memory threshold here is near 8 KiB).
  local e=$eager
  if [ "$mode" = vm ] && [ "$app" = pdgesv ]; then e=8192; fi
  m=$("$predict" app "$model" --table "$table" "${links[@]}" -n "$np" --flops-rate "${rate[$app]}" \
      --eager "$e" "${vars[@]}" "${rvars[@]}" --format csv | awk -F, 'NR>1{printf "%s,", $5}')
  local t
  t=$("$predict" replay "$dir" --table "$table" "${links[@]}" "${cores[@]}" --eager "$e" --format csv |
      awk -F, 'NR>1{printf "%s,", $3}')
  local f
  f=$("$predict" app "$model" --costs merpsys --node "$node" -n "$np" --per-node 1 \
      "${vars[@]}" "${rvars[@]}" \
      --format csv | awk -F, 'NR>1{print $5}')
  local fr
  fr=$("$predict" app "$model" --costs merpsys --node "$node" -n "$np" --per-node 1 \
      "${vars[@]}" "${rvars[@]}" \
      --flops-rate "${rate[$app]}" --format csv | awk -F, 'NR>1{print $5}')
  local params
  params=$(printf '%s ' "${vars[@]}" | sed 's/--var //g; s/ $//')
  echo "$plat,$app,$np,$params,$med,$lo,$hi,${m}${t}$f,$fr" | tee -a "$csv"
}

# MERPSYS's formulas fitted on the platform (colltune-predict fit): every block over sizes the
# cases do not use, at the process counts given, the compute block over 1-4 threads, and this
# host's disk (a local one here, not a network disk).
fit_merpsys() {  # NAME NP...
  local name=$1 np blocks=$out/blocks-$1.csv
  shift
  : >"$blocks"
  for np in "$@"; do
    if [ "$mode" = vm ]; then
      mpiexec.mpich -n "$np" "$build/bench/merpsys_blocks" comm 1000,5000,30000,200000,1000000 15 >>"$blocks"
    else
      "$het" run --no-preload --hosts "$(seq -s, -f 'h%g' 0 $((np - 1)))" -- \
        "$build/bench/merpsys_blocks" comm 1000,5000,30000,200000 9 >>"$blocks"
    fi
  done
  mpiexec.mpich -n 1 "$build/bench/merpsys_blocks" compute 2e7 4 5 >>"$blocks"
  mpiexec.mpich -n 1 "$build/bench/merpsys_blocks" disk "$out" 4096,65536,1048576,8388608 5 >>"$blocks"
  node=$out/node-$name.yaml
  "$predict" fit "$blocks" --output "$node" --p-low 2 --p-high 2 \
    --like "$src/config/nodes/galera-plus.yaml" | tee "$out/fit-$name.txt"
}

# Each rate is the median of RATE_RUNS (3) runs: one run's rate on the bed's shared cores
# differs from the next by up to 71% (docs/app-models.md "New sizes, rates the median of three").
declare -A rate
# Jacobi's at each of JAC_RATE_N (default 1280 2560: in and out of this host's 32 MiB cache at
# np 2), each with its working set, 16 N^2 / NP bytes a process (--flops-rate F@W,...).
measure_rates() {  # NP
  local line jr=() mr=() i n all=() f at=()
  for n in ${JAC_RATE_N:-1280 2560}; do
    jr=()
    for i in $(seq "${RATE_RUNS:-3}"); do
      line=$(launch "$1" "$jac" "$n" 100 10 | tail -1)
      jr+=("$(echo "$line" | awk -v p="$1" -v n="$n" '{print 5 * n * n / p * 100 / $6}')")
    done
    read -r f _ _ < <(median3 "${jr[@]}")
    at+=("$f@$(awk -v p="$1" -v n="$n" 'BEGIN{printf "%d", 16 * n * n / p}')")
    all+=("${jr[@]}" "|")
  done
  for i in $(seq "${RATE_RUNS:-3}"); do
    line=$(launch "$1" "$mw" 10 4096 1e7 | tail -1)
    mr+=("$(echo "$line" | awk '{print 1e7 * 10 / $7}')")
  done
  rate[jacobi]=$(IFS=,; echo "${at[*]}")
  read -r 'rate[mw]' _ _ < <(median3 "${mr[@]}")
  echo "rates at np $1 (median of ${all[*]} ${mr[*]}): jacobi ${rate[jacobi]} master-worker" \
    "${rate[mw]} flops/s" | tee -a "$out/rates.txt"
}

# PDGESV's compute costs at the platform's occupancy: NP single-process solves at once (one a
# host on the bed), N 1536, NB 64 (sizes the cases do not use), 3 times; the median of all.
measure_pdgesv() {  # NP
  local runs_out=() i k pids
  for i in 1 2 3; do
    pids=()
    for k in $(seq 0 $(($1 - 1))); do
      rm -f "$out"/blas-"$i"-"$k".*
      if [ "$mode" = vm ]; then
        mpiexec.mpich -n 1 env COLLTUNE_BLAS_TIMER="$out/blas-$i-$k" LD_PRELOAD="$timer" \
          "$pdg" 1536 64 1 1 >"$out/one-$i-$k.txt" &
      else
        COLLTUNE_BLAS_TIMER="$out/blas-$i-$k" "$het" run --no-preload --hosts "h$k" \
          --preload "$timer" -- "$pdg" 1536 64 1 1 >"$out/one-$i-$k.txt" &
      fi
      pids+=($!)
    done
    wait "${pids[@]}"
    for k in $(seq 0 $(($1 - 1))); do
      runs_out+=("$(tail -1 "$out/one-$i-$k.txt" | awk '{print $6 + $8}'):$out/blas-$i-$k")
    done
  done
  read -r "rate[pdgesv]" "rate[pdgesv_panel]" "rate[pdgesv_swap]" < <("$src/bench/pdgesv-rates.py" 1536 64 "${runs_out[@]}")
  echo "pdgesv, $1 single-process solves at once: level 3 ${rate[pdgesv]}, panel" \
    "${rate[pdgesv_panel]} flops/s, row exchanges ${rate[pdgesv_swap]} s per element" |
    tee -a "$out/rates.txt"
}

cases() {  # PLATFORM NP, then the sizes in JAC_N, MW_CASES and PDG_N
  local plat=$1 np=$2 n c w p
  for n in $JAC_N; do
    [[ $apps == *" jacobi "* ]] || break
    case_run "$plat" "$np" jacobi "$src/config/apps/jacobi.yaml" N=$n iters=100 check=10 -- \
      "$jac" "$n" 100 10
  done
  for c in $MW_CASES; do
    [[ $apps == *" mw "* ]] || break
    w=${c#*:} c=${c%:*}
    case_run "$plat" "$np" mw "$src/config/apps/master-worker.yaml" rounds=20 chunk=$c work=$w -- \
      "$mw" 20 "$c" "$w"
  done
  for n in $PDG_N; do
    [[ $apps == *" pdgesv "* ]] || break
    for p in 1 "$np"; do
      case_run "$plat" "$np" pdgesv "$src/config/apps/pdgesv.yaml" N="$n" nb=64 p="$p" -- \
        "$pdg" "$n" 64 "$p" $((np / p))
    done
  done
}

if [ "$mode" = vm ]; then
  table=${4:-$out/table.yaml}
  if [ ! -f "$table" ]; then
    mpiexec.mpich -n 2 "$build/colltune-calibrate" --budget 20 --output "$table" >"$out/calibrate.log" 2>&1
  fi
  eager=0
  fit_merpsys vm 2
  measure_rates 2
  [[ $apps != *" pdgesv "* ]] || measure_pdgesv 2
  JAC_N="1536 2048 3072 4096" MW_CASES="16384:2e6 16384:2e7 262144:2e6 262144:2e7 1048576:2e6 1048576:2e7" \
    PDG_N="1024 2048 3072" cases vm 2
else
  table=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")
  eager=inf  # the bed runs UCX with UCX_RNDV_THRESH=inf: every message eager
  trap '"$het" down >/dev/null' EXIT
  for hosts in 4 8; do
    "$het" up "$src/config/hetcluster/${hosts}hosts.yaml" --build "$build" >/dev/null
    if [ "$hosts" = 4 ]; then fit_merpsys bed4 2 4; else fit_merpsys bed8 2 4 8; fi
    measure_rates "$hosts"
    [[ $apps != *" pdgesv "* ]] || measure_pdgesv "$hosts"
    JAC_N=${BED_JAC_N:-"1024 2048"} MW_CASES=${BED_MW_CASES:-"16384:2e6 16384:2e7 65536:2e6 65536:2e7"} \
      PDG_N=${BED_PDG_N:-"1024 2048"} cases "bed$hosts" "$hosts"
    "$het" down >/dev/null
  done
fi
python3 "$src/bench/app-summary.py" "$csv" | tee "$out/summary.txt"
# The recorded runs turned into models (replay --to-model) and forecast like the hand models.
"$src/bench/app-tomodel.sh" "$build" "$out" "$table" "$eager" | tee "$out/tomodel.csv"

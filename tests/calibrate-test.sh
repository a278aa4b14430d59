#!/usr/bin/env bash
# colltune-calibrate and first-launch calibration at np 2 (docs/calibration.md).
#   calibrate-test.sh MODE BUILD_DIR
# MODE: table | bad-args | kill | first-launch | concurrent | heap. Environment as for run-mpi.sh.
set -u
mode=$1 build=$2
cal=$build/colltune-calibrate
lib=$build/libcolltune.so
app=$build/tests/mpi_correctness
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mpi() { timeout 240 "${MPIEXEC:-mpiexec}" "$@"; }
preloaded() { mpi -n 2 env LD_PRELOAD="$lib" "$@"; }

case "$mode" in
table)
  # A table with the model, a report and a plot; the library then decides from the model and
  # every result stays correct.
  mpi -n 2 "$cal" --output "$work/t.yaml" --report "$work/r.txt" --budget 5 >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "calibrate exited $?"; }
  cat "$work/out"
  grep -q '^colltune_model: 3' "$work/t.yaml" || fail "no schema-3 table"
  for k in identities: inv_beta: thresholds: correction: error:; do
    grep -q "^  $k" "$work/t.yaml" || fail "table lacks model.$k"
  done
  grep -Eq '^scatter +linear +[0-9.]+% +[0-9.]+% +[0-9]+$' "$work/r.txt" || fail "report lacks scatter linear"
  [ -s "$work/r.txt.gp" ] || fail "no gnuplot script"
  if command -v gnuplot >/dev/null; then [ -s "$work/r.txt.png" ] || fail "no PNG"; fi
  [ "$(stat -c %a "$work/t.yaml")" = 644 ] || fail "table mode is not 0644"
  COLLTUNE_MODEL="$work/t.yaml" COLLTUNE_VERBOSE=1 COLLTUNE_STATS=1 preloaded "$app" --skip-native-defects >"$work/run" 2>&1
  rc=$?
  cat "$work/run"
  [ $rc = 0 ] || fail "application exited $rc"
  grep -q ' 0 failed' "$work/run" || fail "results changed"
  grep -Eq 'colltune: (bcast|scatter|gather) on .*\(model, predicted at [0-9]+ B: native [0-9.e+-]+ us, linear' "$work/run" ||
    fail "no model decision with its predicted times in the verbose log"
  # colltune-info --predict: every algorithm's predicted time at root 1, one pick per size.
  "$build/colltune-info" --predict "$work/t.yaml" scatter 1 1024,65536 >"$work/pred" || fail "--predict failed"
  cat "$work/pred"
  [ "$(grep -Ec '^scatter,(1024|65536),1,(native|linear|binomial),[0-9.e+-]+,[01]$' "$work/pred")" = 6 ] ||
    fail "--predict: expected 6 rows"
  [ "$(grep -c ',1$' "$work/pred")" = 2 ] || fail "--predict: expected one pick per size"
  awk -F, 'NR > 1 && !($5 > 0) {exit 1}' "$work/pred" || fail "--predict: a time is not positive"
  for args in "scat 1 1024" "scatter 2 1024" "scatter 1 0" "scatter 1 1k"; do
    # shellcheck disable=SC2086
    out=$("$build/colltune-info" --predict "$work/t.yaml" $args 2>&1); rc=$?
    [ $rc = 2 ] || fail "--predict $args exited $rc, expected 2"
    grep -q 'valid' <<<"$out" || fail "--predict $args: message names no valid choice: $out"
  done
  ;;
bad-args)
  for args in "--budget 0" "--budget x" "--timing fast" "--output" "--frobnicate"; do
    # shellcheck disable=SC2086
    out=$(mpi -n 2 "$cal" $args 2>&1); rc=$?
    echo "$args -> $rc: $out"
    [ $rc = 2 ] || fail "'$args' exited $rc, expected 2"
    [ "$(grep -c '^colltune-calibrate: ' <<<"$out")" = 1 ] || fail "'$args': expected one error line"
    grep -q 'valid\|needs a' <<<"$out" || fail "'$args': message names no valid choice"
  done
  # --help: the usage on standard output, exit 0, nothing measured.
  out=$(mpi -n 1 "$cal" --help 2>/dev/null); rc=$?
  [ $rc = 0 ] || fail "--help exited $rc"
  grep -q '^usage: colltune-calibrate' <<<"$out" && grep -q -- '--budget' <<<"$out" ||
    fail "--help printed no usage: $out"
  grep -q 'processes, budget' <<<"$out" && fail "--help ran a calibration"
  ;;
kill)
  # Killed midway: no table and no temporary left; the previous table is kept.
  echo "previous" >"$work/t.yaml"
  timeout -s KILL 0.5 "${MPIEXEC:-mpiexec}" -n 2 "$cal" --output "$work/t.yaml" --budget 30 >/dev/null 2>&1
  sleep 1
  [ "$(cat "$work/t.yaml")" = previous ] || fail "the previous table was replaced"
  ls "$work" | grep -q tmp && fail "a temporary file was left: $(ls "$work")"
  echo "killed midway: previous table kept, nothing else written"
  ;;
first-launch)
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=first-launch COLLTUNE_CALIBRATE_BUDGET=2
  preloaded "$app" --skip-native-defects >"$work/1" 2>&1 || { cat "$work/1"; fail "first run failed"; }
  cat "$work/1"
  grep -q 'colltune: no model table for this platform: calibrating MPI_COMM_WORLD' "$work/1" ||
    fail "first run did not calibrate"
  grep -q ' 0 failed' "$work/1" || fail "first run: results changed"
  table=$(ls "$work/cache"/model-*.yaml) || fail "no cached table"
  [ "$(stat -c %a "$table")" = 644 ] || fail "cached table mode is not 0644"
  COLLTUNE_VERBOSE=1 preloaded "$app" --skip-native-defects >"$work/2" 2>&1 || fail "second run failed"
  grep -q "colltune: using the cached model table $table" "$work/2" || { cat "$work/2"; fail "second run did not reuse the cache"; }
  grep -q 'calibrating' "$work/2" && fail "second run calibrated again"
  # A corrupt cached table is refused clearly and replaced; the job runs on.
  echo "colltune_model: [" >"$table"
  preloaded "$app" --skip-native-defects >"$work/3" 2>&1 || fail "run with a corrupt cache failed"
  cat "$work/3"
  grep -q "warning: $table:.*calibrating again" "$work/3" || fail "corrupt cache not reported"
  grep -q ' 0 failed' "$work/3" || fail "results changed"
  grep -q '^colltune_model: 3' "$table" || fail "corrupt cache not replaced"
  # The cache path a symlink: replaced by a file, its target untouched.
  echo victim >"$work/victim"
  ln -sf "$work/victim" "$table"
  COLLTUNE_CALIBRATE=always preloaded "$app" --skip-native-defects >"$work/4" 2>&1 || fail "run with a symlinked cache failed"
  [ "$(cat "$work/victim")" = victim ] || fail "the symlink's target was written"
  [ -L "$table" ] && fail "the symlink was kept"
  COLLTUNE_CALIBRATE=never COLLTUNE_CACHE_DIR=$work/none preloaded "$app" --skip-native-defects >"$work/5" 2>&1
  grep -q calibrating "$work/5" && fail "COLLTUNE_CALIBRATE=never calibrated"
  [ -e "$work/none" ] && fail "COLLTUNE_CALIBRATE=never wrote a cache"
  echo "first launch: calibrated, cached (0644), reused, corrupt replaced, symlink not followed"
  ;;
concurrent)
  # Two jobs calibrating at once into one cache: one valid table, no temporaries.
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=always COLLTUNE_CALIBRATE_BUDGET=2
  preloaded "$app" --skip-native-defects >"$work/a" 2>&1 & a=$!
  preloaded "$app" --skip-native-defects >"$work/b" 2>&1 & b=$!
  wait $a || { cat "$work/a"; fail "job a failed"; }
  wait $b || { cat "$work/b"; fail "job b failed"; }
  [ "$(ls "$work/cache" | grep -c '^model-.*\.yaml$')" = 1 ] || fail "expected one table: $(ls -a "$work/cache")"
  ls -a "$work/cache" | grep -q tmp && fail "temporary left: $(ls -a "$work/cache")"
  COLLTUNE_CALIBRATE=first-launch COLLTUNE_VERBOSE=1 preloaded "$app" --skip-native-defects >"$work/c" 2>&1
  grep -q 'using the cached model table' "$work/c" || { cat "$work/c"; fail "the table left is not valid"; }
  echo "two concurrent calibrations: one valid table"
  ;;
heap)
  # Loading a model table at MPI_Init leaves malloc's mmap threshold where the application has it
  # (src/mapped_alloc.hpp): a probe's 1 and 4 MiB blocks still come from fresh mappings. The
  # table is padded beyond 256 KiB (in its kept-as-is calibration section) so that any whole
  # copy of its text, at load or when the cached table is shared, would be a large block.
  probe=$build/tests/mpi_heap_probe
  mapped() { [ "$(grep -c 'heap_probe rank [01]: 2 of 2 mapped' "$1")" = 2 ]; }
  mpi -n 2 "$probe" >"$work/native" 2>&1
  cat "$work/native"
  mapped "$work/native" || fail "control: without colltune the probe's blocks are not mapped"
  export COLLTUNE_CACHE_DIR=$work/cache
  COLLTUNE_CALIBRATE=always COLLTUNE_CALIBRATE_BUDGET=2 preloaded "$probe" >"$work/cal" 2>&1 ||
    { cat "$work/cal"; fail "calibrating run failed"; }
  table=$(ls "$work/cache"/model-*.yaml) || fail "no cached table"
  { echo "  padding: [$(seq 100000 140000 | paste -sd, -)]"; } >"$work/pad"
  sed -i "/^calibration:\$/r $work/pad" "$table"
  [ "$(stat -c %s "$table")" -gt 262144 ] || fail "padded table is not larger than 256 KiB"
  for v in 0 1; do
    COLLTUNE_VERBOSE=$v COLLTUNE_CALIBRATE=first-launch preloaded "$probe" >"$work/cached$v" 2>&1
    cat "$work/cached$v"
    grep -q calibrating "$work/cached$v" && fail "the padded cached table was not used"
    mapped "$work/cached$v" || fail "loading the cached table moved malloc's mmap threshold (verbose $v)"
    COLLTUNE_VERBOSE=$v COLLTUNE_MODEL=$table preloaded "$probe" >"$work/model$v" 2>&1
    cat "$work/model$v"
    mapped "$work/model$v" || fail "loading COLLTUNE_MODEL moved malloc's mmap threshold (verbose $v)"
  done
  echo "heap: a 256 KiB table loaded at MPI_Init leaves malloc's mmap threshold alone"
  ;;
*) echo "calibrate-test: unknown mode $mode"; exit 2 ;;
esac
echo PASS

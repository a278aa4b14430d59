#!/usr/bin/env bash
# colltune-calibrate and first-launch calibration at np 2 (docs/calibration.md).
#   calibrate-test.sh MODE BUILD_DIR
# MODE: table | bad-args | kill | first-launch | concurrent | layout | lock | foreign-dir |
#       fit-throws | failed | forced | budget | heap | stalls. Environment as for run-mpi.sh.
set -u
mode=$1 build=$2
# The test-hook builds (src/test_hooks.hpp): some modes slow a write or fail a fit.
cal=$build/tests/colltune-calibrate-testhooks
lib=$build/tests/libcolltune_testhooks.so
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
  # When calibration finished (UTC, today): the age of every link it measured.
  grep -q "^  finished: $(date -u +%Y-%m-%d)T[0-9:]*Z$" "$work/t.yaml" || fail "table lacks calibration.finished of today"
  grep -Eq '^scatter +linear +[0-9.]+% +[0-9.]+% +[0-9]+$' "$work/r.txt" || fail "report lacks scatter linear"
  # Every model-built tree (an algorithm other than native, linear and binomial) is swept on
  # the trees the table builds: a validation row of its own, and chain (a candidate only where
  # swept) predicted where it was; unless the report names it as not kept (budget) or as
  # its stand-in's schedule on this table (split without escalations).
  dropped=$(grep -o 'so not kept: [^(]*' "$work/r.txt" | head -1)
  # split without escalations is linear: named as its stand-in, not swept
  dropped="$dropped $(grep "^not swept, their stand-ins' schedules on this table" "$work/r.txt")"
  for op in bcast scatter gather; do
    for a in $("$build/colltune-info" --algorithms $op); do
      case $a in native | linear | binomial) continue ;; esac
      grep -qw -- "$a" <<<"$dropped" && continue
      grep -Eq "^$op +$a +[0-9.]+% +[0-9.]+% +[0-9]+$" "$work/r.txt" || fail "report lacks $op $a"
      if [ $a = chain ]; then  # swept from 4 KiB: validated, so predicted, at 8 KiB
        "$build/colltune-info" --predict "$work/t.yaml" bcast 0 8192 | grep -q '^bcast,8192,0,chain,' ||
          fail "chain not predicted at 8192 B"
      fi
    done
  done
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
    grep '^colltune-calibrate: ' <<<"$out" | grep -qF -- "${args%% *}" ||
      fail "'$args': the error line names no option"
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
  # Killed while the table is being written (COLLTUNE_TEST_SLOW_WRITE pauses the writer halfway):
  # the previous table is intact; what was cut short is only the temporary.
  echo "previous" >"$work/t.yaml"
  COLLTUNE_TEST_SLOW_WRITE=60 "${MPIEXEC:-mpiexec}" -n 2 "$cal" --output "$work/t.yaml" --budget 1 \
    >"$work/out" 2>&1 &
  # Mid-write: a temporary appeared, or (a writer in place) the table itself changed.
  for _ in $(seq 1200); do
    ls "$work" | grep -q '^t.yaml.tmp' && break
    [ "$(cat "$work/t.yaml")" = previous ] || break
    sleep 0.1
  done
  sleep 0.5
  pkill -KILL -f -- "--output $work/t.yaml"
  wait
  [ "$(cat "$work/t.yaml")" = previous ] || fail "the previous table was damaged: $(head -c 200 "$work/t.yaml")"
  tmp=$(ls "$work" | grep '^t.yaml.tmp') || { cat "$work/out"; fail "the writer never started the table"; }
  [ -s "$work/$tmp" ] || fail "the temporary is empty: not killed mid-write"
  echo "killed mid-write ($(stat -c %s "$work/$tmp") bytes of the temporary written): previous table intact"
  ;;
first-launch)
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=first-launch COLLTUNE_CALIBRATE_BUDGET=3
  preloaded "$app" --skip-native-defects >"$work/1" 2>&1 || { cat "$work/1"; fail "first run failed"; }
  cat "$work/1"
  grep -q 'colltune: no model table for this platform and layout (.*): calibrating MPI_COMM_WORLD' "$work/1" ||
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
  # Two jobs contend for one cache entry: job a holds the cache lock while it writes (slowly),
  # job b calibrates meanwhile and must wait for the lock (or give up caching after its time-out).
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=always
  COLLTUNE_TEST_SLOW_WRITE=8 COLLTUNE_CALIBRATE_BUDGET=3 preloaded "$app" --skip-native-defects \
    >"$work/a" 2>&1 & a=$!
  for _ in $(seq 1200); do ls -a "$work/cache" 2>/dev/null | grep -q '^model-.*tmp' && break; sleep 0.1; done
  ls -a "$work/cache" | grep -q tmp || { cat "$work/a"; fail "job a never started writing"; }
  COLLTUNE_CALIBRATE_BUDGET=3 preloaded "$app" --skip-native-defects >"$work/b" 2>&1 ||
    { cat "$work/b"; fail "job b failed"; }
  wait $a || { cat "$work/a"; fail "job a failed"; }
  cat "$work/a" "$work/b"
  grep -Eq 'waited [0-9.]+ s for the cache lock|held by another process' "$work/b" ||
    fail "job b did not meet job a's lock"
  grep -q ' 0 failed' "$work/b" || fail "job b: results changed"
  [ "$(ls "$work/cache" | grep -c '^model-.*\.yaml$')" = 1 ] || fail "expected one table: $(ls -a "$work/cache")"
  ls -a "$work/cache" | grep -q tmp && fail "temporary left: $(ls -a "$work/cache")"
  COLLTUNE_CALIBRATE=first-launch COLLTUNE_VERBOSE=1 preloaded "$app" --skip-native-defects >"$work/c" 2>&1
  grep -q 'using the cached model table' "$work/c" || { cat "$work/c"; fail "the table left is not valid"; }
  echo "two jobs contended for one cache entry: b waited for a's lock; one valid table"
  ;;
layout)
  # A table serves the layout it measured: np 2 then np 4 on an empty cache calibrate twice; a
  # np-2 table named by COLLTUNE_MODEL does not decide for np 4 (native, said once).
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=first-launch COLLTUNE_CALIBRATE_BUDGET=3
  np4() { mpi -n 4 env LD_PRELOAD="${COLLTUNE_TEST_SHIM:+$COLLTUNE_TEST_SHIM:}$lib" "$@"; }
  preloaded "$app" --skip-native-defects --no-big >"$work/2" 2>&1 || { cat "$work/2"; fail "np 2 failed"; }
  grep -q 'calibrating MPI_COMM_WORLD (2 processes' "$work/2" || { cat "$work/2"; fail "np 2 did not calibrate"; }
  t2=$(ls "$work/cache"/model-*.yaml) || fail "np 2: no cached table"
  COLLTUNE_VERBOSE=1 np4 "$app" --skip-native-defects --no-big >"$work/4" 2>&1 || { cat "$work/4"; fail "np 4 failed"; }
  cat "$work/4" | grep colltune | head -3
  grep -q 'using the cached model table' "$work/4" && fail "np 4 used the np 2 table"
  grep -Eq 'no model table for this platform and layout \([^)]*x4\): calibrating MPI_COMM_WORLD \(4 processes' "$work/4" ||
    fail "np 4 did not calibrate for its layout"
  grep -q ' 0 failed' "$work/4" || fail "np 4: results changed"
  [ "$(ls "$work/cache" | grep -c '^model-.*\.yaml$')" = 2 ] ||
    { cat "$work/4"; fail "expected two tables: $(ls "$work/cache")"; }
  COLLTUNE_VERBOSE=1 preloaded "$app" --skip-native-defects --no-big >"$work/2b" 2>&1
  grep -q "using the cached model table $t2" "$work/2b" || { cat "$work/2b"; fail "np 2 did not reuse its table"; }
  COLLTUNE_MODEL=$t2 COLLTUNE_STATS=1 np4 "$app" --skip-native-defects --no-big >"$work/4m" 2>&1 ||
    { cat "$work/4m"; fail "np 4 with the np 2 table failed"; }
  [ "$(grep -c "does not serve this job: it was calibrated with 2 process(es) on identity '[^']*', this job has 4 there" "$work/4m")" = 1 ] ||
    { cat "$work/4m"; fail "np 4 with the np 2 table: expected one line saying why it runs native"; }
  grep -Eq 'algorithm=(linear|binomial) ' "$work/4m" && fail "np 4 decided from the np 2 table"
  grep -q ' 0 failed' "$work/4m" || fail "np 4 with the np 2 table: results changed"
  echo "layout: np 2 and np 4 each calibrated their own table; np 2's table did not decide for np 4"
  ;;
lock)
  # A cache lock held by someone else (another job, a stale lock): the job goes on, uses its
  # table without caching it and says so; it never waits for the lock without a time-out.
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=always COLLTUNE_CALIBRATE_BUDGET=3
  mkdir -m 700 "$work/cache"
  flock "$work/cache/.lock" sleep 120 >/dev/null 2>&1 & holder=$!
  sleep 0.3
  preloaded "$app" --skip-native-defects --no-big >"$work/l" 2>&1; rc=$?
  pkill -P $holder; kill $holder 2>/dev/null
  cat "$work/l"
  [ $rc = 0 ] || fail "the job exited $rc with the lock held"
  grep -q 'this run uses its table without caching it: .*\.lock: held by another process' "$work/l" ||
    fail "no line saying the table was not cached"
  grep -q ' 0 failed' "$work/l" || fail "results changed"
  ls "$work/cache" | grep -q '^model-' && fail "a table was written without the lock"
  echo "held lock: timed out, table used uncached"
  ;;
foreign-dir)
  # A cache directory another user owns, or that others may write, is refused with one line.
  export COLLTUNE_CALIBRATE=first-launch COLLTUNE_CALIBRATE_BUDGET=0.5
  mkdir -m 777 "$work/open"
  COLLTUNE_CACHE_DIR=$work/open preloaded "$app" --skip-native-defects --no-big >"$work/o" 2>&1 ||
    { cat "$work/o"; fail "run with a world-writable cache failed"; }
  [ "$(grep -c "cache directory refused: $work/open: writable by group or others" "$work/o")" = 1 ] ||
    { cat "$work/o"; fail "world-writable cache directory not refused with one line"; }
  ls "$work/open" | grep -q model- && fail "a table was written into the refused directory"
  grep -q ' 0 failed' "$work/o" || fail "results changed"
  if [ "$(id -u)" = 0 ]; then
    mkdir -m 755 "$work/theirs" && chown 65534 "$work/theirs"
    COLLTUNE_CACHE_DIR=$work/theirs preloaded "$app" --skip-native-defects --no-big >"$work/t" 2>&1 ||
      { cat "$work/t"; fail "run with a foreign cache failed"; }
    grep -q "cache directory refused: $work/theirs: owned by uid 65534" "$work/t" ||
      { cat "$work/t"; fail "foreign cache directory not refused"; }
    ls "$work/theirs" | grep -q model- && fail "a table was written into another user's directory"
  else
    echo "(not root: the other-owner case is skipped)"
  fi
  # A symbolic link as the directory (a planted /tmp/colltune-UID) redirects nothing: refused
  # with one line, native collectives, nothing written where it points.
  mkdir -m 700 "$work/target" && ln -s "$work/target" "$work/link"
  COLLTUNE_CACHE_DIR=$work/link COLLTUNE_STATS=1 preloaded "$app" --skip-native-defects --no-big \
    >"$work/s" 2>&1 || { cat "$work/s"; fail "run with a symlinked cache failed"; }
  [ "$(grep -c "cache directory refused: $work/link: a symbolic link" "$work/s")" = 1 ] ||
    { cat "$work/s"; fail "symlinked cache directory not refused with one line"; }
  [ -z "$(ls -A "$work/target")" ] || fail "something was written through the link: $(ls -A "$work/target")"
  grep -Eq 'algorithm=(linear|binomial|ecef|chain|model_linear|split) ' "$work/s" &&
    fail "a refused cache directory still tuned"
  grep -q ' 0 failed' "$work/s" || fail "results changed"
  if [ "$(id -u)" = 0 ]; then  # a link on the way that another user owns
    ln -s "$work/target" "$work/their-link" && chown -h 65534 "$work/their-link"
    COLLTUNE_CACHE_DIR=$work/their-link/cache preloaded "$app" --skip-native-defects --no-big \
      >"$work/u" 2>&1 || { cat "$work/u"; fail "run with another user's link failed"; }
    grep -q "cache directory refused: $work/their-link: a symbolic link owned by uid 65534" \
      "$work/u" || { cat "$work/u"; fail "another user's link on the way not refused"; }
    [ -z "$(ls -A "$work/target")" ] || fail "something was written through another user's link"
  fi
  echo "cache directories of others, open to others or behind links: refused"
  ;;
fit-throws)
  # The fit on rank 0 throws (test hook): every rank learns it, the job runs native, no hang.
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=always COLLTUNE_CALIBRATE_BUDGET=3
  COLLTUNE_TEST_FIT_THROW=1 COLLTUNE_STATS=1 timeout 60 "${MPIEXEC:-mpiexec}" -n 2 \
    env LD_PRELOAD="$lib" "$app" --skip-native-defects --no-big >"$work/f" 2>&1; rc=$?
  cat "$work/f"
  [ $rc = 0 ] || fail "the job exited $rc (124: it hung)"
  grep -q 'calibration failed after [0-9.]* s: the model fit failed: test hook' "$work/f" || fail "the failure was not named"
  grep -q ' 0 failed' "$work/f" || fail "results changed"
  grep -Eq 'algorithm=(linear|binomial) ' "$work/f" && fail "tuned algorithms ran without a table"
  echo "a fit that throws on rank 0: agreed, native, no hang"
  ;;
failed)
  # A failed first launch is remembered for its key and budget: the next job of the same layout
  # runs native at once and says why; COLLTUNE_CALIBRATE=always, a larger budget or a day later
  # calibrate again; a malformed record is ignored.
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=first-launch COLLTUNE_CALIBRATE_BUDGET=3
  e2e=$build/tests/e2e_c_app
  run() { mpi -n 2 env LD_PRELOAD="$lib" "$e2e" >"$work/o" 2>&1 || { cat "$work/o"; fail "$1: run failed"; }
          grep -q PASS "$work/o" || { cat "$work/o"; fail "$1: results changed"; }; }
  COLLTUNE_TEST_FIT_THROW=1 run "failing"
  grep -q 'calibration failed after' "$work/o" || { cat "$work/o"; fail "the hook did not fail calibration"; }
  rec=$(ls "$work"/cache/model-*.failed 2>/dev/null) || fail "no failure record in the cache"
  cat "$rec"
  run "after a failure"
  cat "$work/o"
  grep -q 'calibrating' "$work/o" && fail "calibrated again at the same budget after a failure"
  grep -q "calibration failed here [0-9]* min ago at budget 3.00 s (the model fit failed: test hook" "$work/o" ||
    fail "the skip does not name the earlier failure"
  grep -qF "$rec" "$work/o" || fail "the skip does not name the record"
  COLLTUNE_CALIBRATE_BUDGET=2 run "a smaller budget"
  grep -q 'calibrating' "$work/o" && fail "calibrated at a smaller budget after a failure"
  COLLTUNE_CALIBRATE=always run "always"
  grep -q 'calibrated in' "$work/o" || { cat "$work/o"; fail "COLLTUNE_CALIBRATE=always did not calibrate"; }
  [ -e "$rec" ] && fail "a successful calibration left the failure record"
  rm -f "$work"/cache/model-*.yaml
  COLLTUNE_TEST_FIT_THROW=1 run "failing again"
  [ -e "$rec" ] || fail "no failure record the second time"
  COLLTUNE_CALIBRATE_BUDGET=4 run "a larger budget"
  grep -q 'calibrated in' "$work/o" || { cat "$work/o"; fail "a larger budget did not calibrate"; }
  rm -f "$work"/cache/model-*.yaml
  echo "3 $(($(date +%s) - 25 * 3600)) an old failure" >"$rec"
  run "a day later"
  grep -q 'calibrated in' "$work/o" || { cat "$work/o"; fail "a failure 25 h old kept calibration off"; }
  rm -f "$work"/cache/model-*.yaml
  for bad in "garbage" "3 $(($(date +%s) + 3600)) a failure in the future" "nan 0 x" "3"; do
    rm -f "$work"/cache/model-*.yaml
    echo "$bad" >"$rec"
    run "record '$bad'"
    grep -q 'calibrated in' "$work/o" || { cat "$work/o"; fail "record '$bad' kept calibration off"; }
  done
  echo "a failed first launch: remembered per key and budget; always, a larger budget, a day later and a malformed record calibrate"
  ;;
forced)
  # Every op forced: nothing would use a table, so none is calibrated.
  export COLLTUNE_CACHE_DIR=$work/cache COLLTUNE_CALIBRATE=always COLLTUNE_VERBOSE=1
  COLLTUNE_BCAST_ALGORITHM=native COLLTUNE_SCATTER_ALGORITHM=linear COLLTUNE_GATHER_ALGORITHM=binomial \
    preloaded "$app" --skip-native-defects --no-big >"$work/x" 2>&1 || { cat "$work/x"; fail "run failed"; }
  grep -q 'calibrating' "$work/x" && fail "calibrated although every op is forced"
  grep -q 'every op is forced' "$work/x" || fail "no line saying why nothing was calibrated"
  [ -e "$work/cache" ] && fail "a cache was written"
  echo "every op forced: no calibration"
  ;;
budget)
  # The budget is a promise: first-launch calibration ends within it plus 10% at np 2 and 4, at
  # budgets 0.5, 3 and 10 s (whether or not it fits a table), and the job as a whole takes at most
  # that much longer than the same job without calibration (plus 2 s for MPI start-up's noise).
  export COLLTUNE_CACHE_DIR=$work/cache
  e2e=$build/tests/e2e_c_app
  now() { date +%s.%N; }
  for np in 2 4; do
    pre=$lib
    [ $np -gt 2 ] && pre="${COLLTUNE_TEST_SHIM:+$COLLTUNE_TEST_SHIM:}$lib"
    t0=$(now)
    COLLTUNE_CALIBRATE=never mpi -n $np env LD_PRELOAD="$pre" "$e2e" >"$work/base" 2>&1 || fail "np $np: baseline run failed"
    base=$(echo "$(now) - $t0" | bc)
    # 0.5 s three times: the reserve for the table is what an oversubscribed np 4 overran.
    for b in 0.5 0.5 0.5 3 10; do
      t0=$(now)
      COLLTUNE_CALIBRATE=always COLLTUNE_CALIBRATE_BUDGET=$b mpi -n $np env LD_PRELOAD="$pre" "$e2e" >"$work/b" 2>&1 ||
        { cat "$work/b"; fail "np $np budget $b: run failed"; }
      wall=$(echo "$(now) - $t0" | bc)
      took=$(grep -Eo 'calibrat(ed in|ion failed after) [0-9.]+ s' "$work/b" | grep -Eo '[0-9.]+') ||
        { cat "$work/b"; fail "np $np budget $b: no calibration time reported"; }
      grep -q PASS "$work/b" || { cat "$work/b"; fail "np $np budget $b: results changed"; }
      echo "np $np budget $b s: calibration $took s, job $wall s (without calibration $base s)"
      grep -E 'calibrat(ed in|ion failed)' "$work/b"
      [ "$(echo "scale=3; $took <= 1.1 * $b" | bc)" = 1 ] || fail "np $np: calibration took $took s, budget $b s (+10%)"
      [ "$(echo "scale=3; $wall <= $base + 1.1 * $b + 2" | bc)" = 1 ] ||
        fail "np $np: the job took $wall s, $base s without calibration, budget $b s"
    done
  done
  # Four processes on fewer CPUs: the reserve grows by the crowding (said in verbose mode).
  if [ "$(nproc)" -lt 4 ]; then
    COLLTUNE_VERBOSE=1 COLLTUNE_CALIBRATE=always COLLTUNE_CALIBRATE_BUDGET=0.5 mpi -n 4 \
      env LD_PRELOAD="${COLLTUNE_TEST_SHIM:+$COLLTUNE_TEST_SHIM:}$lib" "$e2e" >"$work/b" 2>&1 ||
      { cat "$work/b"; fail "np 4 verbose run failed"; }
    grep -Eq "[0-9.]+ per CPU on rank 0's host" "$work/b" ||
      { cat "$work/b"; fail "np 4 on $(nproc) CPUs: no crowding"; }
  fi
  echo "budget kept at np 2 and 4, 0.5 / 3 / 10 s"
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
  COLLTUNE_CALIBRATE=always COLLTUNE_CALIBRATE_BUDGET=3 preloaded "$probe" >"$work/cal" 2>&1 ||
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
stalls)
  # A process preempted three times for 3 ms during the empty roundtrips (tests/support/
  # stall_send.c) must not move the LMO estimate: each series keeps its median, as the sweeps
  # do. Here C is about 0.65 us; the mean of up to 40 repetitions would put it near 100 us.
  stall=$build/tests/libcolltune_test_stall.so
  mpi -n 2 env LD_PRELOAD="$stall" COLLTUNE_TEST_STALL_RANK=1 COLLTUNE_TEST_STALL_US=3000 \
    "$cal" --output "$work/t.yaml" --budget 5 >"$work/out" 2>&1 || { cat "$work/out"; fail "calibrate exited $?"; }
  cat "$work/out"
  grep -Eq ': C = [0-9]\.[0-9]+ \+- [0-9.]+ us' "$work/out" ||
    fail "three stalled roundtrips moved C past 10 us ($(grep -o 'C = [^,]*' "$work/out"))"
  echo "stalls: C stays under 10 us with three 3 ms stalls in the empty roundtrips"
  ;;
*) echo "calibrate-test: unknown mode $mode"; exit 2 ;;
esac
echo PASS

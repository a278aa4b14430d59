#!/usr/bin/env bash
# cmake --install into a fresh prefix, then: find_package(colltune) from a consumer project
# (which builds the forecasts' example scheduler against colltune::predict and runs it),
# pkg-config's preload variable, and an unmodified program preloaded from the installed tree
# that picks up the installed default configuration (found next to the library).
#   install-test.sh BUILD_DIR SOURCE_DIR APP
set -euo pipefail
build=$1 src=$2 app=$3
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in lib/libcolltune.so etc/colltune/colltune.yaml bin/colltune-info \
         lib/cmake/colltune/colltuneConfig.cmake lib/pkgconfig/colltune.pc \
         lib/libcolltune_predict.so include/colltune/predict.h include/colltune/predict.hpp \
         share/colltune/examples/predict_scheduler.c; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
cmake -S "$src/tests/install" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DSCHEDULER_SOURCE="$prefix/share/colltune/examples/predict_scheduler.c" | grep colltune_PRELOAD_LIBRARY
# The forecasts' C API from the installed tree: the example scheduler built and run.
cmake --build "$prefix/consumer" >/dev/null
"$prefix/consumer/predict_scheduler" "$src/tests/data/hetcluster8-table.yaml" \
  "$src/tests/data/comp-vm.yaml" 1024 h0,h1 h2,h3 | grep -q '^choice: [AB]$' ||
  { echo "FAIL: the installed forecasts' API did not answer"; exit 1; }
"$prefix/consumer/predict_cpp" "$src/tests/data/hetcluster8-table.yaml" | grep -q '^comm: ' ||
  { echo "FAIL: the installed C++ wrapper did not answer"; exit 1; }
lib=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --variable=preload colltune)
[ -e "$lib" ] || { echo "FAIL: pkg-config preload '$lib' does not exist"; exit 1; }
out=$(env -u COLLTUNE_CONFIG COLLTUNE_VERBOSE=1 mpiexec -n 2 env LD_PRELOAD="$lib" "$app" 2>&1)
echo "$out"
grep -q "config $(realpath "$prefix")/etc/colltune/colltune.yaml" <<<"$out" ||
  { echo "FAIL: the installed default configuration was not used"; exit 1; }
grep -q PASS <<<"$out"  # a here-string: with pipefail, grep -q closing early fails a pipe
echo "install test: PASS"

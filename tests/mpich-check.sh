#!/usr/bin/env bash
# The suite runs MPICH even where Open MPI is installed beside it (Debian's ScaLAPACK pulls it in,
# and its alternatives then own mpicc, mpiexec and mpirun): the launcher ctest uses, the one on
# PATH the scripts use, and the MPI the library and a test program are linked with must be MPICH's.
# Usage: mpich-check.sh MPIEXEC LIBCOLLTUNE VERSION_PROGRAM
set -u
mpiexec_ctest=$1 lib=$2 prog=$3
fail=0
for launcher in "$mpiexec_ctest" mpiexec mpirun; do
  if ! "$launcher" --version 2>&1 | grep -q HYDRA; then
    echo "FAIL: $launcher is not MPICH's launcher (Hydra): $("$launcher" --version 2>&1 | head -1)"
    fail=1
  fi
done
for f in "$lib" "$prog"; do
  if ldd "$f" | grep -q 'libmpi\.so\.[0-9]'; then
    echo "FAIL: $f is linked with Open MPI: $(ldd "$f" | grep 'libmpi\.so')"; fail=1
  fi
  if ! ldd "$f" | grep -q 'libmpich\.so'; then echo "FAIL: $f is not linked with MPICH"; fail=1; fi
done
out=$(timeout 60 "$mpiexec_ctest" -n 2 "$prog" 2>&1)
if [ "$(grep -c 'MPICH Version' <<<"$out")" != 2 ]; then
  echo "FAIL: two ranks did not both report MPICH:"; echo "$out"; fail=1
fi
[ $fail = 0 ] && echo "MPICH throughout: $(head -1 <<<"$out")"
exit $fail

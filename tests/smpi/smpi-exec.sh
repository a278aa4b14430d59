#!/usr/bin/env bash
# An mpiexec look-alike for tests/run-mpi.sh under SimGrid SMPI:
#   smpi-exec.sh -n NP [env] [VAR=VAL...] PROG [ARGS...]
# exports the VAR=VAL pairs (every simulated rank shares this process's environment) and runs
# PROG under smpirun on the platform in $SMPI_PLATFORM (a platform-gen.py output folder) with
# the exact settings of docs/testbeds.md, plus $SMPI_EXTRA_CFG (space-separated --cfg=...).
# MPI_Allgather(v) run MPICH's algorithms: SimGrid 3.32's default ones (built on the
# nonblocking collectives) leave work behind that makes every later completion slower: 20
# allgathers of 128 ranks cost 200 s of wall time, the calibration's all-pairs roundtrips of
# 128 ranks 36 s instead of 3 (docs/testbeds.md). Only the bench library's bookkeeping uses
# them; no measured collective does.
set -euo pipefail
[ "$1" = -n ] || { echo "smpi-exec: usage: -n NP [env] [VAR=VAL...] PROG [ARGS...]" >&2; exit 2; }
np=$2
shift 2
[ "${1:-}" = env ] && shift
while [ $# -gt 0 ] && [[ "$1" == *=* ]] && [[ "$1" != /* ]]; do export "$1"; shift; done
cd "$(mktemp -d)"  # smpirun writes its deployment files to the working directory
exec smpirun -np "$np" -platform "$SMPI_PLATFORM/platform.xml" -hostfile "$SMPI_PLATFORM/hostfile" \
  --cfg=network/model:CM02 --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 \
  --cfg=smpi/send-is-detached-thresh:2147483647 --cfg=smpi/allgather:mpich \
  --cfg=smpi/allgatherv:mpich --log=root.thresh:warning \
  ${SMPI_EXTRA_CFG:-} "$@"

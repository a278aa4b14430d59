#!/usr/bin/env bash
# Runs PROG with VAR=VAL0 on MPI rank 0 and VAR=VAL1 on every other rank (hydra sets PMI_RANK).
# A value of @unset leaves VAR out of that rank's environment.
#   per-rank-env.sh VAR VAL0 VAL1 PROG [ARGS...]
set -eu
var=$1 v0=$2 v1=$3
shift 3
v=$v1
[ "${PMI_RANK:-0}" = 0 ] && v=$v0
if [ "$v" = @unset ]; then unset "$var"; else export "$var=$v"; fi
exec "$@"

#!/usr/bin/env bash
# Runs PROG with VAR=VAL0 on MPI rank 0 and VAR=VAL1 on every other rank (hydra sets PMI_RANK).
#   per-rank-env.sh VAR VAL0 VAL1 PROG [ARGS...]
set -eu
var=$1 v0=$2 v1=$3
shift 3
if [ "${PMI_RANK:-0}" = 0 ]; then export "$var=$v0"; else export "$var=$v1"; fi
exec "$@"

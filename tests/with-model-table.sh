#!/usr/bin/env bash
# Writes a model table for this host (colltune-info's platform block + DECISIONS) to TABLE,
# then runs the rest of the command line.
#   with-model-table.sh COLLTUNE_INFO DECISIONS TABLE CMD [ARGS...]
set -euo pipefail
info=$1 decisions=$2 table=$3
shift 3
{ echo "colltune_model: 1"; "$info" --platform; cat "$decisions"; } >"$table"
exec "$@"

#!/usr/bin/env bash
# The README's environment table is the one colltune-info generates from src/settings.cpp.
#   check-readme-env.sh COLLTUNE_INFO README
set -euo pipefail
want=$("$1" --env --markdown)
have=$(sed -n '/<!-- env-table:begin -->/,/<!-- env-table:end -->/p' "$2" | sed '1d;$d')
if [ "$want" != "$have" ]; then
  echo "README.md's environment table differs from 'colltune-info --env --markdown':"
  diff <(echo "$have") <(echo "$want") || true
  exit 1
fi
echo "readme env table: PASS ($(echo "$want" | grep -c '^| `COLLTUNE_') settings)"

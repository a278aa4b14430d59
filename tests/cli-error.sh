#!/usr/bin/env bash
# One bad-argument or bad-input case of a tool: exit status 2 and, on stderr, one line
# "<tool>[ <command>]: ..." matching REGEX, followed by nothing but the tool's usage lines.
#   cli-error.sh REGEX PROGRAM [ARGS...]
set -u
re=$1 prog=$2
shift 2
tool=$(basename "$prog")
err=$("$prog" "$@" 2>&1 >/dev/null)
rc=$?
first=$(head -n 1 <<<"$err")
others=$(tail -n +2 <<<"$err" | grep -Ev "^(usage: $tool | )")
if [ "$rc" = 2 ] && grep -Eq -e "^$tool( [a-z]+)?: .*($re)" <<<"$first" && [ -z "$others" ]; then
  echo "ok       $tool $*: $first"
  exit 0
fi
echo "FAILED   $tool $*: exit $rc (expected 2), stderr: $err"
exit 1

#!/usr/bin/env bash
# Sets up (Debian packages, build) and runs every test of both build flavours:
# native MPICH (build/) and SimGrid SMPI (build-smpi/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build-smpi -DCOLLTUNE_SMPI=ON >/dev/null
cmake --build build-smpi -j"$(nproc)"
status=0
ctest --test-dir build --output-on-failure -j1 || status=1
ctest --test-dir build-smpi --output-on-failure -j2 || status=1
exit $status

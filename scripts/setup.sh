#!/usr/bin/env bash
# Installs colltune's build and test dependencies from Debian packages (as root, or with sudo)
# and builds the project into ./build. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(build-essential cmake pkg-config gfortran mpich libmpich-dev libhwloc-dev libyaml-cpp-dev
      libgtest-dev libucx-dev valgrind bc python3 python3-yaml simgrid libsimgrid-dev
      iproute2 iptables ethtool libnetfilter-queue-dev libgsl-dev gnuplot-nox libcli11-dev
      libopenblas-dev libscalapack-mpich-dev libmuparser-dev)
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
# libscalapack-mpich-dev pulls in Open MPI, whose alternatives then own mpicc, mpiexec and mpirun:
# pin them to MPICH, the MPI colltune is built for (tests/mpich-check.sh proves it).
$SUDO update-alternatives --quiet --set mpi /usr/bin/mpicc.mpich
$SUDO update-alternatives --quiet --set mpirun /usr/bin/mpirun.mpich
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"

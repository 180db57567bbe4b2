#!/usr/bin/env bash
# Installs the dri build in $1 into a fresh prefix, then builds and runs the
# consumer project against it twice: with CMake's find_package(dri) and with
# pkg-config. $2: mpiexec, $3: the MPI C++ compiler wrapper.
set -euo pipefail
build=$1
mpiexec=$2
mpicxx=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
echo "installed into $work/prefix"

echo "-- find_package(dri)"
cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DMPI_CXX_COMPILER="$mpicxx" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$mpiexec" -n 2 "$work/cmake/consumer"

echo "-- pkg-config dri"
libdir=$(dirname "$(find "$work/prefix" -name dri.pc)")
export PKG_CONFIG_PATH="$libdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
static=()
if [ ! -e "$(pkg-config --variable=libdir dri)/libdri.so" ]; then static=(--static); fi
# shellcheck disable=SC2046
"$mpicxx" -std=c++20 "$here/consumer.cpp" -o "$work/consumer-pc" $(pkg-config --cflags --libs "${static[@]}" dri) \
  -Wl,-rpath,"$(pkg-config --variable=libdir dri)"
"$mpiexec" -n 2 "$work/consumer-pc"

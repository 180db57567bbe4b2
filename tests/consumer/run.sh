#!/usr/bin/env bash
# Installs the dri build in $1 into a fresh prefix, then builds and runs the
# consumer project against it twice: with CMake's find_package(dri 1.0) and
# with pkg-config. Both must report the build's version ($4, CMake's
# project()), and find_package must refuse another major (2.0, 0.1).
# $2: mpiexec, $3: the MPI C++ compiler wrapper, $4: the version (default:
# the build's, from its CMakeCache.txt). $1 may instead be
# --prefix=DIR, an install made elsewhere (tests/package/run.sh: the Debian
# packages unpacked into a scratch root), with the version as $4.
set -euo pipefail
build=$1
mpiexec=$2
mpicxx=$3
version=${4:-$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")}
major=${version%%.*}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
if [[ $build == --prefix=* ]]; then
  prefix=${build#--prefix=}
  echo "using the install in $prefix"
else
  cmake --install "$build" --prefix "$prefix" >/dev/null
  echo "installed into $prefix"
fi

echo "-- find_package(dri $major.0)"
cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DMPI_CXX_COMPILER="$mpicxx" -DDRI_REQUIRED_VERSION="$major.0" >"$work/configure.log"
grep -q "found dri $version\$" "$work/configure.log" || {
  cat "$work/configure.log"; echo "find_package(dri $major.0) did not find dri $version: WRONG"; exit 1; }
cmake --build "$work/cmake" >/dev/null
"$mpiexec" -n 2 "$work/cmake/consumer"

# Another major is refused (the package's SameMajorVersion compatibility).
for other in "$((major + 1)).0" "$((major - 1)).1"; do
  if cmake -S "$here" -B "$work/cmake-$other" -DCMAKE_PREFIX_PATH="$prefix" \
    -DMPI_CXX_COMPILER="$mpicxx" -DDRI_REQUIRED_VERSION="$other" >"$work/refused.log" 2>&1; then
    echo "find_package(dri $other) accepted dri $version: WRONG"
    exit 1
  fi
  # CMake wraps its message: compare it as one line.
  tr -s ' \n' ' ' <"$work/refused.log" | grep -q "compatible with requested version \"$other\"" || {
    cat "$work/refused.log"; echo "find_package(dri $other) failed for another reason: WRONG"; exit 1; }
  echo "-- find_package(dri $other): refused (dri $version is not compatible)"
done

echo "-- pkg-config dri"
libdir=$(dirname "$(find "$prefix" -name dri.pc)")
export PKG_CONFIG_PATH="$libdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
[ "$(pkg-config --modversion dri)" = "$version" ] || {
  echo "pkg-config --modversion dri: $(pkg-config --modversion dri), not $version: WRONG"; exit 1; }
static=()
if [ ! -e "$(pkg-config --variable=libdir dri)/libdri.so" ]; then static=(--static); fi
# shellcheck disable=SC2046
"$mpicxx" -std=c++20 "$here/consumer.cpp" -o "$work/consumer-pc" $(pkg-config --cflags --libs "${static[@]}" dri) \
  -Wl,-rpath,"$(pkg-config --variable=libdir dri)"
"$mpiexec" -n 2 "$work/consumer-pc"

#!/usr/bin/env bash
# Configures and builds dri; prints the optional components it found.
# tools/build.sh --help says how.
set -euo pipefail
usage() {
  cat <<'EOF'
usage: tools/build.sh [BUILD_DIR] [CMAKE_FLAGS...]

Configures and builds dri in BUILD_DIR (default: build/ in the source tree)
with MPICH named explicitly (mpicc.mpich, mpicxx.mpich, mpiexec.mpich): Open
MPI may be installed beside it and own the generic names. Prints which
optional components were found and what is left out without each.

  CMAKE_FLAGS        passed to cmake's configure step, e.g.
                     -DDRI_BUILD_BENCH=OFF, -DBUILD_SHARED_LIBS=OFF,
                     -DDRI_WITHOUT=all (build as if no optional component
                     were installed), -DPython3_EXECUTABLE=/path/to/python3
  DRI_TARGETS=...    (environment) build only these targets, space separated
  DRI_BUILD_TYPE=... (environment) CMAKE_BUILD_TYPE, default Release

Open MPI instead of MPICH (for Debian's mpi4py and mpi4py-fft, which are
built on Open MPI; needs libopenmpi-dev):

  tools/build.sh build-openmpi -DMPI_C_COMPILER=/usr/bin/mpicc.openmpi -DMPI_CXX_COMPILER=/usr/bin/mpicxx.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi

Only the Python module (and the library it needs), in either build:

  DRI_TARGETS=dri_python tools/build.sh build

then run a script with build/python/dri-python (the interpreter the module
was built for, with the module on its path).
EOF
}
case ${1:-} in
  -h | --help) usage; exit 0 ;;
  -*) echo "tools/build.sh: the build directory comes first (see --help)" >&2; exit 2 ;;
esac
# Physical paths: a build reached through a symbolic link keeps the paths it
# was configured with.
root=$(cd -P "$(dirname "$0")/.." && pwd)
dir=$(realpath -m "${1:-$root/build}")
shift || true
# MPICH by default, on the first configure only: a build directory keeps the
# MPI library it was configured with (an Open MPI build rebuilt without its
# flags must not switch to MPICH's wrappers over Open MPI's cached paths).
mpi=()
if [ ! -f "$dir/CMakeCache.txt" ]; then
  mpi=(-DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich
       -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich)
fi
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE="${DRI_BUILD_TYPE:-Release}" "${mpi[@]}" "$@" \
  >/dev/null
echo "== $dir: optional components"
cat "$dir/optional-components.txt"
targets=()
for t in ${DRI_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"

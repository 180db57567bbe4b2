#!/usr/bin/env bash
# Configures and builds dri in build dir $1 (default build/) with MPICH named
# explicitly: Open MPI may be installed beside it and own the generic names.
# Further arguments go to cmake's configure step. DRI_TARGETS (space
# separated) builds only those targets.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" \
  -DCMAKE_BUILD_TYPE="${DRI_BUILD_TYPE:-Release}" \
  -DMPI_C_COMPILER=/usr/bin/mpicc.mpich \
  -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
  "$@" >/dev/null
targets=()
for t in ${DRI_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"

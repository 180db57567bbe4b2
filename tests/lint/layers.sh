#!/usr/bin/env bash
# The folders are the layers (docs/architecture.md); this holds the code to
# them. Includes are written from two roots, src/ and backends/, whose layer
# folders have distinct names, so that the first folder of an include names
# its layer. Every include of a library source is folder-qualified, and each
# layer includes only what it may:
#   src/core          core/ only, never <mpi.h>
#   src/kernels       core/, kernels/, never <mpi.h>
#   backends/mpi      core/, kernels/, mpi/ (never a public header or a binding)
#   src/bindings/*    their own folder, the public headers, core/, and of the
#                     backend only its interface (mpi/interface.hpp,
#                     mpi/objects.hpp, mpi/strategy.hpp)
# Every folder under src/ and backends/ is one of these, and no library
# source file is longer than 450 lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
complain() { echo "$1"; fail=1; }

check() { # folder (from the top), allowed-include regex
  local dir=$1 allowed=$2 f line inc
  [ -d "$top/$dir" ] || complain "$dir: no such layer folder"
  while IFS= read -r f; do
    while IFS= read -r line; do
      inc=${line#*\"}; inc=${inc%\"*}
      [[ $inc =~ $allowed ]] || complain "${f#$top/}: includes \"$inc\", outside its layer"
    done < <(grep -E '^#include "' "$f" || true)
  done < <(find "$top/$dir" -name '*.[ch]pp')
}

interface='mpi/(interface|objects|strategy)\.hpp'
check src/core '^core/'
check src/kernels '^(core|kernels)/'
check backends/mpi '^(core|kernels|mpi)/'
check src/bindings/c "^(dri/dri\.h|dri/dri10\.h|$interface)\$|^(core|bindings/c)/"
check src/bindings/cxx "^(dri/dri\.hpp|$interface)\$|^(core|bindings/cxx)/"

# A folder the checks above do not know would escape them.
while IFS= read -r d; do
  case ${d#$top/} in
    src/core | src/kernels | src/bindings | src/bindings/c | src/bindings/cxx | backends/mpi) ;;
    *) complain "${d#$top/}: a folder of the library that tests/lint/layers.sh does not check" ;;
  esac
done < <(find "$top/src" "$top/backends" -mindepth 1 -maxdepth 2 -type d \
  ! -path "$top/backends/mpi/*")

for f in $(grep -rlE '#include <mpi\.h>' "$top/src/core" "$top/src/kernels" || true); do
  complain "${f#$top/}: includes <mpi.h> (core and kernels are MPI-free)"
done
while IFS= read -r f; do
  n=$(wc -l <"$f")
  ((n <= 450)) || complain "${f#$top/}: $n lines (at most 450)"
done < <(find "$top/src" "$top/backends" -name '*.[ch]pp')

((fail == 0)) && echo "layers: every include within its layer, every file at most 450 lines"
exit $fail

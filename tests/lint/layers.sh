#!/usr/bin/env bash
# The folders are the layers (docs/architecture.md); this holds the code to
# them. Every include of a library source is folder-qualified from src/, and
# each layer includes only what it may:
#   core       core/ only, never <mpi.h>
#   kernels    core/, kernels/, never <mpi.h>
#   backend    core/, kernels/, backend/ (never a public header or a binding)
#   bindings   their own folder, the public headers, core/, and of the
#              backend only its interface (interface.hpp, objects.hpp,
#              strategy.hpp)
# and no library source file is longer than 450 lines.
set -euo pipefail
src=$(cd "$(dirname "$0")/../../src" && pwd)
fail=0
complain() { echo "$1"; fail=1; }

check() { # folder, allowed-include regex
  local dir=$1 allowed=$2 f line inc
  while IFS= read -r f; do
    while IFS= read -r line; do
      inc=${line#*\"}; inc=${inc%\"*}
      [[ $inc =~ $allowed ]] || complain "${f#$src/}: includes \"$inc\", outside its layer"
    done < <(grep -E '^#include "' "$f" || true)
  done < <(find "$src/$dir" -name '*.[ch]pp')
}

check core '^core/'
check kernels '^(core|kernels)/'
check backend '^(core|kernels|backend)/'
check bindings/c '^(dri/dri\.h|dri/dri10\.h|backend/(interface|objects|strategy)\.hpp)$|^(core|bindings/c)/'
check bindings/cxx '^(dri/dri\.hpp|backend/(interface|objects|strategy)\.hpp)$|^(core|bindings/cxx)/'

for f in $(grep -rlE '#include <mpi\.h>' "$src/core" "$src/kernels" || true); do
  complain "${f#$src/}: includes <mpi.h> (core and kernels are MPI-free)"
done
while IFS= read -r f; do
  n=$(wc -l <"$f")
  ((n <= 450)) || complain "${f#$src/}: $n lines (at most 450)"
done < <(find "$src" -name '*.[ch]pp')

((fail == 0)) && echo "layers: every include within its layer, every file at most 450 lines"
exit $fail

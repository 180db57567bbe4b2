#!/usr/bin/env bash
# Times one execute() of the same 64 x 64 corner turn from C++ and from
# Python at n ranks and prints the binding's overhead per call.
#   execute_overhead.sh MPIEXEC N PYTHON CXX_PROGRAM
set -euo pipefail
mpiexec=$1 n=$2 python=$3 program=$4
here=$(cd "$(dirname "$0")" && pwd)
cxx=$("$mpiexec" -n "$n" "$program")
py=$("$mpiexec" -n "$n" "$python" "$here/execute_overhead.py")
echo "$cxx"
echo "$py"
us() { sed -E 's/.*: ([0-9.]+) us.*/\1/' <<<"$1"; }
case "$cxx$py" in *WRONG*) exit 1 ;; esac
awk -v c="$(us "$cxx")" -v p="$(us "$py")" \
  'BEGIN { printf "Python overhead per execute(): %.2f us (%.2fx the C++ time)\n", p - c, p / c }'

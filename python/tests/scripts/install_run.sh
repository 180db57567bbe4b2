#!/usr/bin/env bash
# Installs the build in $1 into a fresh prefix and runs the Python corner
# turn example from there, as a user would:
#   PYTHONPATH=<prefix>/<python dir> mpiexec -n 2 python3 corner_turn.py
# $2: the package's directory under the prefix, $3: mpiexec, $4: python3,
# $5: the example.
set -euo pipefail
build=$1 pydir=$2 mpiexec=$3 python=$4 example=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PYTHONPATH="$work/prefix/$pydir"
# The package and the library it loads are the installed ones.
"$python" - "$work/prefix" <<'PY'
import os, sys
import dri
prefix = sys.argv[1]
assert dri.__file__.startswith(prefix), dri.__file__
maps = open("/proc/self/maps").read()
libdri = {line.split()[-1] for line in maps.splitlines() if "libdri.so" in line}
assert libdri and all(p.startswith(prefix) for p in libdri), libdri
print("loaded", os.path.relpath(dri.__file__, prefix), "and", *[os.path.relpath(p, prefix) for p in libdri])
PY
cd "$work"
"$mpiexec" -n 2 "$python" "$example" --n 64 --m 48 --frames 4

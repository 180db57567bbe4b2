#!/usr/bin/env bash
# The demo: installs what is missing, builds a Release build, prints the plan
# of a small corner turn, then runs the corner-turn example on 4 ranks
# (rows -> columns of a complex-float matrix, double buffered, every element
# of every frame verified; prints "verified", exits non-zero otherwise).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
"$root/tools/build.sh" "$root/build"
echo "== The plan of a 8x6 corner turn, 2 row blocks -> 3 column blocks (columns contiguous):"
"$root/build/tools/dri-plan" --shape 8x6 --type cfloat --send block,whole --send-procs 2 \
  --recv whole,block --recv-procs 3 --recv-order 1,0
echo
echo "== Corner turn on 4 ranks:"
mpiexec.mpich -n 4 "$root/build/examples/corner_turn/corner_turn" --n 2048 --m 1024 --frames 20 --buffers 2

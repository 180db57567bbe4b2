#!/usr/bin/env bash
# The demo: installs what is missing, builds a Release build and shows the
# plan of a corner turn (rows on 2 processes -> columns on 3 processes,
# columns stored contiguously, one column of wrap-around halo on each side).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
"$root/tools/build.sh" "$root/build"
"$root/build/tools/dri-plan" --shape 8x6 --type cfloat \
  --send block,whole --send-procs 2 \
  --recv whole,block~1:1:wrap --recv-procs 3 --recv-order 1,0

#!/usr/bin/env bash
# Redraws the pictures in docs/images from real plans with dri-plan --svg.
#   tools/docs_images.sh [build dir]   (default build/, built by tools/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
plan=${1:-$root/build}/tools/dri-plan
out=$root/docs/images
mkdir -p "$out"
# The corner turn: 3 row blocks (row-major) -> 4 column blocks (column-major).
"$plan" --shape 12x16 --send block,whole --recv whole,block --send-procs 3 --recv-procs 4 \
  --recv-order 1,0 --svg "$out/corner_turn.svg" >/dev/null
# Row blocks -> row blocks with 2 rows of overlap on each side (halo), zero edges.
"$plan" --shape 16x12 --send block,whole --recv "block~2:2:zero,whole" --send-procs 2 \
  --recv-procs 3 --svg "$out/halo.svg" >/dev/null
# 2-D blocks on a 2 x 2 grid -> block-cyclic rows (blocks of 2) over 3 processes.
"$plan" --shape 12x12 --send block,block --recv "cyclic(2),whole" --send-procs 4 \
  --recv-procs 3 --svg "$out/block_to_cyclic.svg" >/dev/null
# A hybrid plan: the corner turn over 4 processes on 2 nodes of 2, and how
# HYBRID moves each piece (local copy, node shared memory, message).
"$plan" --shape 16x16 --send block,whole --recv whole,block --send-procs 4 --recv-procs 4 \
  --recv-order 1,0 --ranks-per-node 2 --svg "$out/hybrid_plan.svg" >/dev/null
# A fan-out: 2 row blocks -> 2 column blocks and, as a second receiving
# side, 3 row blocks with a wrapped halo row on each side.
"$plan" --shape 12x8 --send block,whole --send-procs 2 --recv whole,block/2 \
  --also-recv "block/3~1:1:wrap,whole" --svg "$out/fanout_plan.svg" >/dev/null
# The reverse of a halo exchange: where each receiver cell goes back.
"$plan" --shape 12x8 --send block,whole --send-procs 3 --recv "block/3~1:1:wrap,whole" \
  --reverse --svg "$out/reverse_plan.svg" >/dev/null
# Box partitions: a recursive bisection over 4 processes (two of them with
# two boxes) -> 3 row blocks.
"$plan" --shape 12x16 --recv block,whole --recv-procs 3 \
  --send "boxes:0:5,0:9/6:11,0:5;4:7,10:15/6:11,6:9/0:3,10:15;8:11,10:15" \
  --svg "$out/boxes_plan.svg" >/dev/null
echo "wrote $out/{corner_turn,halo,block_to_cyclic,hybrid_plan,fanout_plan,reverse_plan,boxes_plan}.svg"

#!/usr/bin/env bash
# Draws a dri-bench JSON document (any run, any sweep) as PNG and SVG:
# throughput per method against the global array size (or against ranks
# per node for a ranks-per-node sweep), with latency percentile bars.
#
#   tools/bench_plot.sh FILE.json [OUT]          redraw: OUT.png and OUT.svg (default: FILE's name)
#   tools/bench_plot.sh [scenario] [type] [reps] run a size sweep at 2 ranks first
#                                                (defaults corner_turn cfloat 9), then draw
#                                                out/bench_<scenario>.{json,png,svg}
# Upper panel: GB/s (global bytes over the median time), bars from the p99
# time (bottom) to the fastest rep (top). Lower panel: time per
# reorganization, median with bars from the median to p99 and a mark at the
# worst rep (max). Needs gnuplot (gnuplot-nox) and python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ ${1:-} == *.json ]]; then
  json=$1
  out=${2:-${json%.json}}
else
  scenario=${1:-corner_turn}
  type=${2:-cfloat}
  reps=${3:-9}
  "$root/tools/deps.sh" gnuplot-nox libscalapack-mpich-dev
  "$root/tools/build.sh" "$root/build"
  mkdir -p "$root/out"
  json="$root/out/bench_${scenario}.json"
  out="$root/out/bench_${scenario}"
  shape=4096x4096
  [[ $scenario == pencil ]] && shape=256x256x256
  mpiexec.mpich -n 2 "$root/build/bench/dri-bench" --scenario "$scenario" --shape "$shape" \
    --type "$type" --reps "$reps" --sweep sizes --json "$json"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One data file per method (x, GB/s median, GB/s p99, GB/s min, ms median,
# ms p99, ms max) and the plot's labels, from the JSON.
python3 - "$json" "$tmp" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
tmp = sys.argv[2]
by_rpn = doc.get("sweep") == "ranks-per-node"
rows = {}
for run in doc["runs"]:
    x = run["ranks_per_node"] if by_rpn else run["bytes"] / 1048576
    for m in run["methods"]:
        b = run["bytes"] / 1e9
        rows.setdefault(m["name"], []).append(
            (x, b / m["median_s"], b / m["p99_s"], b / m["min_s"],
             m["median_s"] * 1e3, m["p99_s"] * 1e3, m["max_s"] * 1e3))
names = list(rows)
for k, name in enumerate(names):
    with open(f"{tmp}/{k}.dat", "w") as f:
        for r in sorted(rows[name]):
            # methods side by side around each x, so the bars do not overlap
            shift = (1 + 0.025 * (k - len(names) / 2)) if not by_rpn else 1
            x = r[0] * shift if not by_rpn else r[0] + 0.04 * (k - len(names) / 2)
            f.write(" ".join(f"{v:.6g}" for v in (x,) + r[1:]) + "\n")
xs = [r[0] for v in rows.values() for r in v]
run0 = doc["runs"][0]
flags = run0["flags"]
if doc.get("sweep") == "sizes":
    flags = flags.replace(f"--shape {run0['shape']}", "--shape (swept)")
title = (f"dri-bench {run0['label']}: {flags}\\n"
         f"{doc['mpi']['library']}, {doc['ranks']} ranks on {doc['nodes']} node(s), "
         f"{doc['memory']} send memory, {doc['buffers']} buffer(s) per ring, {doc['reps']} reps")
with open(f"{tmp}/meta.gp", "w") as f:
    f.write(f"methods = {len(names)}\n")
    f.write("names = \"" + " ".join(names) + "\"\n")
    f.write(f"set title \"{title}\" noenhanced font ',10'\n")
    lo, hi = min(xs), max(xs)
    if by_rpn:
        f.write(f"set xrange [{lo - 0.5}:{hi + 0.5}]\nset xtics 1\n")
        f.write("xlabel = 'ranks per node'\nlogx = 0\n")
    else:
        f.write(f"set xrange [{lo / 1.6}:{hi * 1.6}]\n")
        f.write("xlabel = 'global array size (MiB)'\nlogx = 1\n")
PY
plot_to() { # terminal, file
  gnuplot <<GP
set terminal $1
set output '$2'
load '$tmp/meta.gp'
# Ten distinct colours (Tableau 10) and point shapes, one per method.
colours = "#4e79a7 #f28e2b #59a14f #e15759 #b07aa1 #76b7b2 #edc948 #9c755f #ff9da7 #000000"
do for [k=1:10] { set linetype k lc rgb word(colours, k) lw 1.5 pt (k % 7) + 4 }
set lmargin at screen 0.09
set rmargin at screen 0.74
set multiplot layout 2,1
if (logx) set logscale x 2
set logscale y 10
set grid
set key outside right top noenhanced
set ylabel 'GB/s (median; bars p99..min)'
set format x ''
set bmargin 1
plot for [k=0:methods-1] '$tmp/'.k.'.dat' using 1:2:3:4 with yerrorlines lt k+1 ps 0.7 title word(names, k+1)
unset title
set format x '%g'
set bmargin
set tmargin 1
set xlabel xlabel
set ylabel 'ms per reorganization (median; bars to p99; x = max)'
plot for [k=0:methods-1] '$tmp/'.k.'.dat' using 1:5:5:6 with yerrorlines lt k+1 ps 0.7 notitle, \
     for [k=0:methods-1] '$tmp/'.k.'.dat' using 1:7 with points lt k+1 pt 2 ps 0.9 notitle
unset multiplot
GP
}
plot_to "pngcairo size 1200,900 noenhanced" "$out.png"
plot_to "svg size 1200,900 dynamic noenhanced" "$out.svg"
echo "bench_plot: wrote $out.png and $out.svg from $json"

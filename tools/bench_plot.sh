#!/usr/bin/env bash
# Benchmarks every method of one scenario over a range of sizes at 2 ranks
# and plots GB/s against size (PNG). Usage:
#   tools/bench_plot.sh [scenario] [type] [reps]      (defaults: corner_turn cfloat 9)
# Writes out/bench_<scenario>.json (one JSON object per line) and
# out/bench_<scenario>.png. Installs gnuplot and ScaLAPACK (MPICH) if missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scenario=${1:-corner_turn}
type=${2:-cfloat}
reps=${3:-9}
"$root/tools/deps.sh" gnuplot-nox libscalapack-mpich-dev
"$root/tools/build.sh" "$root/build"
out="$root/out"
mkdir -p "$out"
json="$out/bench_${scenario}.json"
: > "$json"
case "$scenario" in
  pencil) sizes="32x32x32 64x64x64 128x128x128 192x192x192 256x256x256" ;;
  *) sizes="256x256 512x512 1024x1024 2048x2048 4096x4096" ;;
esac
for s in $sizes; do
  echo "bench_plot: $scenario $s" >&2
  mpiexec.mpich -n 2 "$root/build/bench/dri_bench" --scenario "$scenario" --size "$s" --type "$type" \
    --reps "$reps" --json "$json"
done
# One data file per method: global MiB and GB/s.
tmp=$(mktemp -d)
grep -o '"method":"[^"]*"' "$json" | cut -d'"' -f4 | sort -u > "$tmp/methods"
plot=""
while read -r m; do
  grep "\"method\":\"$m\"" "$json" |
    sed -E 's/.*"bytes":([0-9]+).*"gbps":([0-9.eE+-]+).*/\1 \2/' |
    awk '{printf "%.4f %s\n", $1 / 1048576, $2}' > "$tmp/$m.dat"
  plot+="${plot:+, }'$tmp/$m.dat' using 1:2 with linespoints title '$m'"
done < "$tmp/methods"
gnuplot <<GP
set terminal pngcairo size 1000,650 noenhanced
set output '$out/bench_${scenario}.png'
set title 'dri_bench $scenario ($type, 2 ranks on 2 cores): throughput by method'
set xlabel 'global array size (MiB)'
set ylabel 'GB/s (global bytes / median time)'
set logscale x 2
set logscale y 10
set key outside right
set grid
plot $plot
GP
rm -rf "$tmp"
echo "bench_plot: wrote $json and $out/bench_${scenario}.png"

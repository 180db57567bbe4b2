#!/usr/bin/env bash
# HPC Challenge's own PTRANS (Debian package hpcc 1.5.0, built on Open MPI)
# against dri-bench --scenario ptrans (one DRI transfer with heap buffers)
# in the Open MPI build of dri, at 2 ranks on the 1x2 and 2x1 grids.
#
#   bench/ptrans_vs_hpcc.sh [BUILD_DIR]     (default: build-openmpi in the tree)
#   environment: SIZES="2000 4000 8000" NB=80 REPS=5 ROUNDS=3
#
# ROUNDS rounds, alternating: HPCC over every size and grid, then dri-bench
# over the same, so that a drift of the machine reaches both alike. Each
# round prints its table; the summary gives, per row, the median over the
# rounds of each time and the smallest ratio of any round.
#
# What both time. HPCC's PTRANS (PTRANS/pdtransdriver.c of 1.5.0) runs each
# (N, NB, grid) 5 times, each time on a newly created BLACS grid whose
# processes are a random permutation of the ranks; one run is
# Cblacs_barrier, then the wall time of one pdtrans call (C := A' + C:
# packing, messages and the add into C; A and C were generated before, the
# workspace allocated before), the slowest process's time. It reports the
# MINIMUM rate of the 5 (GB/s = N*N*8 bytes / time), that is the worst time:
# the time in the table is 8e-9*N*N / (the last GB/s of the 5 WALL lines),
# read from GB/s because hpccoutf.txt prints times with 2 decimals only.
# dri-bench times the same operation the same way (MPI_Barrier, one DRI_Do
# of the committed transfer with combine-on-receive, the slowest rank's
# time) REPS times after one cold call and its warm-up, and the table shows
# the worst of those reps (its max, like HPCC's) and the median. HPCC's own
# median cannot be had: each WALL line prints the running minimum rate, so
# a run faster than an earlier one leaves no trace. Each is
# checked: HPCC's residual check must say PASSED, dri-bench compares every
# element with its oracle. 1x2 and 2x1 numberings are the same in row-major
# and column-major order, and at 2 ranks a random permutation of the grid
# is the same problem with the two ranks' roles swapped.
#
# HPCC runs its other tests after PTRANS whatever the input; the input file
# keeps them small (HPL N = 100), and they do not affect the PTRANS times,
# which are taken first. HPCC also runs PTRANS at HPL's N / 2 = 50 (its
# rule), which the table leaves out. Prints "skipped: <reason>" and exits 0
# where hpcc or the Open MPI build is absent.
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-openmpi}")
sizes=${SIZES:-2000 4000 8000}
nb=${NB:-80}
reps=${REPS:-5}
rounds=${ROUNDS:-3}
bench="$build/bench/dri-bench"
mpiexec=/usr/bin/mpiexec.openmpi

skip() {
  echo "skipped: $*"
  exit 0
}
command -v hpcc >/dev/null || skip "hpcc is not installed (Debian package hpcc: tools/deps.sh hpcc)"
[ -x "$mpiexec" ] || skip "no $mpiexec (hpcc runs on Open MPI)"
[ -x "$bench" ] || skip "no $bench: build dri with Open MPI first (tools/build.sh --help)"
grep -q "^MPIEXEC_EXECUTABLE.*openmpi" "$build/CMakeCache.txt" ||
  skip "$build is not an Open MPI build of dri (tools/build.sh --help)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# hpccinf.txt: HPL's lines 1-31 (N = 100, NB, the grids 1x2 and 2x1), the
# separator line 32, then PTRANS's additional sizes and (no) block sizes.
nsizes=$(echo "$sizes" | wc -w)
cat >"$work/hpccinf.txt" <<EOF
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
100          Ns
1            # of NBs
$nb          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
2            # of process grids (P x Q)
1 2          Ps
2 1          Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
$nsizes      Number of additional problem sizes for PTRANS
$sizes       values of N
0            number of additional blocking sizes for PTRANS
$nb          values of NB
EOF
# One round: HPCC, then dri-bench, each over every size and grid; appends
# "N grid hpcc_worst dri_worst dri_median" rows to $work/rows.
run_round() {
  (cd "$work" && rm -f hpccoutf.txt && timeout 1800 "$mpiexec" --oversubscribe -n 2 hpcc \
    >hpcc.log 2>&1) || { cat "$work/hpcc.log" >&2; echo "hpcc failed" >&2; exit 1; }
  local out="$work/hpccoutf.txt"
  if grep -q "^WALL.*FAILED" "$out"; then
    echo "HPCC's PTRANS check FAILED:" >&2
    grep "^WALL" "$out" >&2
    exit 1
  fi
  local grid p q n gbs hpcc_ms csv worst median
  for grid in 1x2 2x1; do
    p=${grid%x*} q=${grid#*x}
    for n in $sizes; do
      # The last WALL line of (N, P, Q) holds the minimum rate of its 5 runs.
      gbs=$(awk -v n="$n" -v p="$p" -v q="$q" \
        '$1 == "WALL" && $2 == n && $3 == n && $6 == p && $7 == q { g = $10 } END { print g }' "$out")
      [ -n "$gbs" ] || { echo "no HPCC PTRANS result for N=$n grid $grid" >&2; exit 1; }
      hpcc_ms=$(awk -v n="$n" -v g="$gbs" 'BEGIN { printf "%.3f", 8e-6 * n * n / g }')
      csv="$work/dri_${n}_$grid.csv"
      if ! timeout 1800 "$mpiexec" --oversubscribe -n 2 "$bench" --scenario ptrans \
        --shape "${n}x$n" --grid "$grid" --nb "$nb" --memory heap --reps "$reps" \
        --csv "$csv" >"$work/dri.log" 2>&1; then
        cat "$work/dri.log" >&2
        exit 1
      fi
      read -r worst median < <(awk -F, '$8 == "dri_ptrans" { print 1e3 * $14, 1e3 * $10 }' "$csv")
      echo "$n $grid $hpcc_ms $worst $median" >>"$work/rows"
    done
  done
}

# Prints rows "N grid hpcc_worst dri_worst dri_median" with both ratios.
table() {
  printf '%6s %5s %12s %12s %12s %14s %15s\n' N grid "HPCC worst" "dri worst" "dri median" \
    "HPCC/dri worst" "HPCC/dri median"
  awk '{ printf "%6s %5s %12.3f %12.3f %12.3f %14.2f %15.2f\n", $1, $2, $3, $4, $5, $3 / $4, $3 / $5 }'
}

echo "PTRANS, C := A' + C, n x n double, NB $nb, 2 ranks, $rounds round(s) ($(uptime | sed 's/.*load/load/'))"
echo "times in ms: HPCC's reported run (the worst of its 5); dri's worst and median of $reps reps"
: >"$work/rows"
for round in $(seq 1 "$rounds"); do
  before=$(wc -l <"$work/rows")
  run_round
  echo "round $round:"
  tail -n +$((before + 1)) "$work/rows" | table
done
if [ "$rounds" -gt 1 ]; then
  echo "over $rounds rounds: each time the median of the rounds' (ms), each ratio the smallest of any round"
  printf '%6s %5s %12s %12s %12s %14s %15s\n' N grid "HPCC worst" "dri worst" "dri median" \
    "HPCC/dri worst" "HPCC/dri median"
  for grid in 1x2 2x1; do
    for n in $sizes; do
      awk -v n="$n" -v g="$grid" '
        function median(a, k,   i, j, t) {
          for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
          return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
        $1 == n && $2 == g { k++; h[k] = $3; w[k] = $4; m[k] = $5
          rw = $3 / $4; rm = $3 / $5
          if (k == 1 || rw < minw) minw = rw
          if (k == 1 || rm < minm) minm = rm }
        END { printf "%6s %5s %12.3f %12.3f %12.3f %14.2f %15.2f\n", n, g, median(h, k), median(w, k), median(m, k), minw, minm }' \
        "$work/rows"
    done
  done
fi

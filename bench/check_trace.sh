#!/usr/bin/env bash
# Checks a dri-bench --trace file: its header, one row per timed rep, method
# and rank, and each row's parts adding up to its time. With "balanced" (a
# run with --rotate over whole cycles of its order), also that within the
# reps every method ran right after every other equally often.
#   check_trace.sh FILE REPS METHODS RANKS [balanced]
set -euo pipefail
file=$1 reps=$2 methods=$3 ranks=$4 balanced=${5:-}
head -1 "$file" | grep -q '^method,rep,rank,ms,before_first_wait_ms,in_mpi_ms,after_ms,minor_faults,' ||
  { echo "check_trace: unexpected header in $file"; exit 1; }
awk -F, -v want=$((reps * methods * ranks)) '
  NR == 1 { next }
  { rows++
    parts = $5 + $6 + $7
    if ($4 <= 0 || $5 < 0 || $6 < 0 || $7 < -0.001 || parts - $4 > 0.001 || $4 - parts > 0.001) {
      print "check_trace: row " NR " does not add up: " $0; bad = 1 } }
  END { if (rows != want) { print "check_trace: " rows " rows, expected " want; bad = 1 }
        if (bad) exit 1
        print "check_trace: " rows " rows, each time split into its parts" }' "$file"
[ "$balanced" = balanced ] || exit 0
# Rank 0's rows, in the order the calls ran: the ordered pairs of methods
# that ran one right after the other within a rep.
awk -F, -v want=$((methods * (methods - 1))) '
  NR == 1 || $3 != 0 { next }
  { if (seen && $2 == rep) pairs[prev " -> " $1]++
    seen = 1; rep = $2; prev = $1 }
  END { for (p in pairs) { n++; if (!(pairs[p] in counts)) kinds++; counts[pairs[p]] = 1
                           list = list "\n  " p ": " pairs[p] }
        if (kinds != 1 || n != want) { print "check_trace: unbalanced order:" list; exit 1 }
        print "check_trace: " n " ordered pairs of methods, each as often" }' "$file"

#!/usr/bin/env bash
# Checks a dri-bench --trace file: its header, one row per timed rep, method
# and rank, and each row's parts adding up to its time.
#   check_trace.sh FILE REPS METHODS RANKS
set -euo pipefail
file=$1 reps=$2 methods=$3 ranks=$4
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

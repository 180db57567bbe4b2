#!/usr/bin/env bash
# Kills one rank of a job that uses dri's node shared memory, at the given
# moment, and checks that nothing the job's user owns is left in /dev/shm
# or in the job's temporary directory (a fresh TMPDIR, so that other
# programs' temporary files do not count). Usage: killed_rank.sh MPIEXEC
# PROGRAM RANKS WHEN (WHEN: before-commit, after-commit, in-do). Run
# serially: another MPI job of the same user would change /dev/shm.
set -uo pipefail
mpiexec=$1 program=$2 ranks=$3 when=$4
job_tmp=$(mktemp -d)
trap 'rm -rf "$job_tmp"' EXIT
dirs=(/dev/shm "$job_tmp")
listing() { find "${dirs[@]}" -maxdepth 1 -mindepth 1 -user "$(id -u)" 2>/dev/null | sort; }
before=$(listing)
out=$(TMPDIR=$job_tmp timeout 120 "$mpiexec" -n "$ranks" "$program" "$when" 2>&1)
rc=$?
after=$(listing)
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || grep -q "killed_rank:" <<<"$out"; then
  echo "the job did not end by the kill (exit $rc):"
  echo "$out"
  exit 1
fi
left=$(comm -13 <(echo "$before") <(echo "$after"))
if [ -n "$left" ]; then
  echo "left behind after a rank was killed $when:"
  echo "$left"
  exit 1
fi
echo "killed $when (exit $rc): nothing left in ${dirs[*]}"

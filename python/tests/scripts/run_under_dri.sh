#!/usr/bin/env bash
# Runs `python -m dri SCRIPT ARGS...` at n ranks and checks how the job ends:
#   run_under_dri.sh MPIEXEC N PYTHON EXPECT MARKER SCRIPT [ARGS...]
# EXPECT "fails": one process failed, so the job must end non-zero (MPI_Abort)
# with MARKER in its output; a hang is ctest's timeout. EXPECT "passes": the
# program ends well and the job exits 0 with MARKER in its output.
set -uo pipefail
mpiexec=$1 n=$2 python=$3 expect=$4 marker=$5
shift 5
out=$("$mpiexec" -n "$n" "$python" -m dri "$@" 2>&1)
rc=$?
echo "$out"
echo "run_under_dri: mpiexec exited with status $rc"
case "$out" in *WRONG*) exit 1 ;; esac
case "$out" in *"$marker"*) ;; *) echo "run_under_dri: '$marker' not in the output"; exit 1 ;; esac
if [ "$expect" = fails ]; then
  [ "$rc" -ne 0 ] && echo "run_under_dri: the job ended, as expected"
else
  [ "$rc" -eq 0 ] && echo "run_under_dri: the job exited 0, as expected"
fi

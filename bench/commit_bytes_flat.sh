#!/bin/sh
# Usage: commit_bytes_flat.sh MPIEXEC COMMIT_BYTES
# The bytes a process receives while a pencil reshape commits, at 2 and at 8
# processes: the larger run must receive less than twice the smaller.
set -eu
max_bytes() {
  "$1" -n "$3" "$2" --commits 1 | sed -n 's/.*max \([0-9]*\);.*/\1/p'
}
a=$(max_bytes "$1" "$2" 2)
b=$(max_bytes "$1" "$2" 8)
echo "commit bytes per process: 2 ranks $a, 8 ranks $b"
[ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt $((2 * a)) ]

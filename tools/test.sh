#!/usr/bin/env bash
# The full test suite: installs what is missing, builds, runs every ctest test
# in a Release build, then the unit and MPI tests again under AddressSanitizer
# and UndefinedBehaviorSanitizer. Exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
start=$SECONDS

echo "== Release build and tests"
"$root/tools/build.sh" "$root/build"
(cd "$root/build" && ctest --output-on-failure -j 2 --timeout 900)

echo "== Sanitizer build (ASan + UBSan) and tests"
DRI_BUILD_TYPE=RelWithDebInfo "$root/tools/build.sh" "$root/build-sanitize" -DDRI_SANITIZE=ON \
  -DDRI_BUILD_EXAMPLES=OFF -DDRI_BUILD_BENCH=OFF
(cd "$root/build-sanitize" && ctest --output-on-failure -j 2 --timeout 900 -L "unit|mpi")

echo "== all tests passed in $((SECONDS - start)) s"

#!/usr/bin/env bash
# Builds the API reference (Doxygen, from include/dri and docs/*.md) into
# build-docs/html; any Doxygen warning fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh" doxygen
cd "$root"
rm -rf build-docs
doxygen docs/Doxyfile
echo "API reference: $root/build-docs/html/index.html"

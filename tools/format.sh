#!/usr/bin/env bash
# Formats every C and C++ source of the project with the repository's
# .clang-format; with --check, only reports files that differ (exit 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' 2>/dev/null || true)
((${#files[@]})) || exit 0
if [ "${1:-}" = "--check" ]; then
  exec clang-format --dry-run -Werror "${files[@]}"
fi
clang-format -i "${files[@]}"

#!/usr/bin/env bash
# The programs (bench/, tools/, tests/, examples/, python/) share code only
# through programs/ and the library, never by reaching into one another's
# folders (README.md, "Layout of the repository"). Fails when
#   - a C or C++ file of one of these folders, or of programs/, includes a
#     "../" path that leaves its top-level folder, or
#   - a CMakeLists.txt of one of them names another one's C or C++ file, or
#     a folder of another one that holds C or C++ files (an include
#     directory, sources); running another folder's script or Python file
#     from a test is fine.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
folders=(bench tools tests examples python programs)
fail=0
complain() { echo "$1"; fail=1; }
is_code() { [[ $1 =~ \.(c|cc|cpp|h|hpp)$ ]]; }

for own in "${folders[@]}"; do
  while IFS= read -r f; do
    while IFS= read -r inc; do
      target=$(realpath -m "$(dirname "$f")/$inc")
      [[ $target == "$top/$own/"* ]] || complain "${f#$top/}: includes \"$inc\", outside $own/"
    done < <(sed -nE 's/^#include "(([^"]*\/)?\.\.\/[^"]*)".*/\1/p' "$f")
  done < <(find "$top/$own" -type f \( -name '*.[ch]' -o -name '*.[ch]pp' \))

  while IFS= read -r f; do
    while IFS= read -r ref; do
      other=${ref%%/*}
      [ "$other" = "$own" ] && continue
      path=$top/${ref%/}
      if [ -d "$path" ]; then
        [ -z "$(find "$path" -type f \( -name '*.[ch]' -o -name '*.[ch]pp' \) | head -1)" ] ||
          complain "${f#$top/}: names $ref, a folder of $other/ with C or C++ files"
      elif is_code "$ref"; then
        complain "${f#$top/}: names $ref, a source of $other/"
      fi
    done < <(grep -oE '\$\{(PROJECT|CMAKE)_SOURCE_DIR\}/[A-Za-z0-9_./-]+' "$f" |
      sed -E 's/^\$\{[A-Z_]+\}\///' | grep -E "^($(IFS='|'; echo "${folders[*]}"))(/|$)" || true)
  done < <(find "$top/$own" -name CMakeLists.txt)
done

((fail == 0)) && echo "programs: none reaches into another's folder"
exit $fail

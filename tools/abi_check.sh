#!/usr/bin/env bash
# The ABI guard (docs/release.md): compares the ABI of a built libdri.so (its
# exported C and C++ functions and variables, and the layouts of the types
# they reach that the public headers define) with the baseline stored in
# abi/, using libabigail's abidw and abidiff (Debian: abigail-tools).
#
#   tools/abi_check.sh [BUILD_DIR]            check (default BUILD_DIR: build/)
#   tools/abi_check.sh --update [BUILD_DIR]   write the baseline abi/<SONAME>.abi
#
# Verdicts:
#   PASS  no change, or additions only (new functions or variables; listed)
#   FAIL  an incompatible change: a function or variable removed or changed
#         (its parameters, its return type or a type it reaches: a public
#         struct's or class's layout, an enumerator's value), unless the
#         SONAME changed with the major version; then PASS, with the changes
#         listed and a reminder to regenerate the baseline
#   FAIL  the SONAME does not follow the major version (libdri.so.<major>)
# Only the types the public headers define count: the library's own types
# behind the handles' and classes' pointers (dri::detail::*Impl and what they
# hold), which the headers only declare, are free to change.
#
# Another library than a build's libdri (tests/abi checks the verdicts on
# small libraries built from planted changes):
#   tools/abi_check.sh [--update] --lib FILE --headers DIR [--headers DIR...]
#                      --major N --baseline-dir DIR
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }

update=0 build="" lib="" major="" baseline_dir="$root/abi"
headers=()
while (($#)); do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --update) update=1 ;;
    --lib) lib=$2; shift ;;
    --headers) headers+=("$2"); shift ;;
    --major) major=$2; shift ;;
    --baseline-dir) baseline_dir=$2; shift ;;
    -*) echo "abi_check: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done

for tool in abidw abidiff readelf; do
  command -v "$tool" >/dev/null || {
    echo "abi_check: $tool is not installed (Debian: abigail-tools, binutils; tools/deps.sh)" >&2
    exit 2
  }
done

if [ -z "$lib" ]; then
  build=$(realpath -m "${build:-$root/build}")
  lib=$build/libdri.so
  [ -e "$lib" ] || { echo "abi_check: no $lib: build libdri first (tools/build.sh $build)" >&2; exit 2; }
  headers=("$root/include/dri" "$build/include/dri")
  major=$(sed -n 's/^#define DRI_VERSION_MAJOR \([0-9]*\)$/\1/p' "$build/include/dri/version.h")
fi
if [ -z "$major" ] || ((${#headers[@]} == 0)); then
  echo "abi_check: give --lib, --headers and --major" >&2
  exit 2
fi
lib=$(realpath "$lib")

# Without DWARF abidw sees symbols only, no types: the layouts would go unchecked.
grep -q '\.debug_info' <<<"$(readelf -S "$lib")" || {
  echo "abi_check: FAIL: $lib has no debug information, so no types to check" \
    "(libdri's bindings are compiled with -g: src/CMakeLists.txt)"
  exit 1
}
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ -n "$soname" ] || { echo "abi_check: FAIL: $lib has no SONAME"; exit 1; }
if [[ $soname != *.so."$major" ]]; then
  echo "abi_check: FAIL: SONAME $soname does not follow the major version $major (*.so.$major)"
  exit 1
fi

# The dump: public types only (those the headers define), no paths or source
# locations (the baseline changes only when the ABI does), stable type ids.
dump() {
  local hd=()
  for h in "${headers[@]}"; do hd+=(--headers-dir "$h"); done
  abidw "${hd[@]}" --drop-private-types --no-corpus-path --no-comp-dir-path --no-show-locs \
    --type-id-style hash --out-file "$1" "$lib"
  # Source files relative to the tree, wherever it is checked out.
  sed -i "s|path='$root/|path='|" "$1"
}

if ((update)); then
  mkdir -p "$baseline_dir"
  rm -f "$baseline_dir"/*.abi
  dump "$baseline_dir/$soname.abi"
  echo "abi_check: wrote the baseline $baseline_dir/$soname.abi:" \
    "$(grep -c '<elf-symbol ' "$baseline_dir/$soname.abi") exported symbols"
  exit 0
fi

shopt -s nullglob
baselines=("$baseline_dir"/*.abi)
shopt -u nullglob
if ((${#baselines[@]} != 1)); then
  echo "abi_check: FAIL: expected one baseline in $baseline_dir, found ${#baselines[@]}:" \
    "write it with tools/abi_check.sh --update"
  exit 1
fi
baseline=${baselines[0]}
old_soname=$(basename "$baseline" .abi)
old_major=${old_soname##*.so.}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dump "$work/current.abi"
rc=0
abidiff --no-show-locs "$baseline" "$work/current.abi" >"$work/report" 2>&1 || rc=$?
if ((rc & 3)); then
  echo "abi_check: FAIL: abidiff could not compare (exit $rc):"
  cat "$work/report"
  exit 1
fi
# "N Removed, M Changed (K filtered out), L Added": filtered changes are
# libabigail's harmless ones (an enumerator appended, a typedef renamed).
count() {
  { grep 'summary:' "$work/report" || true; } | { grep -Eo "[0-9]+ $1" || true; } |
    awk '{s += $1} END {print s + 0}'
}
removed=$(count Removed)
changed=$(count Changed)
added=$(count Added)
harmless=$(count 'filtered out')
incompatible=$((removed + changed + (rc & 8 ? 1 : 0)))

echo "abi_check: $lib ($soname) against $(basename "$baseline"):" \
  "$removed removed, $changed changed, $added added, $harmless harmless (not counted)"
if ((added)); then
  echo "added (compatible):"
  grep -E '^ *\[A\] ' "$work/report" | sed -E 's/^ *\[A\] /  /'
fi
if ((incompatible == 0)); then
  if ((added)); then
    echo "abi_check: PASS: compatible additions only"
  else
    echo "abi_check: PASS: no ABI change"
  fi
  exit 0
fi
echo "incompatible: abidiff's report:"
sed 's/^/  /' "$work/report"
if [ "$soname" != "$old_soname" ] && ((${soname##*.so.} > old_major)); then
  echo "abi_check: PASS: the incompatible changes come with a new major version" \
    "($old_soname -> $soname); regenerate the baseline: tools/abi_check.sh --update"
  exit 0
fi
echo "abi_check: FAIL: an incompatible ABI change within $soname. Undo it, or raise the" \
  "major version in CMakeLists.txt's project() (the SONAME follows) and regenerate the" \
  "baseline with tools/abi_check.sh --update"
exit 1

#!/usr/bin/env bash
# Builds dri's Debian packages with CPack (cmake/DriPackage.cmake) and runs
# lintian on them: an error fails, warnings are listed.
# tools/package.sh --help says how.
set -euo pipefail
usage() {
  cat <<'EOF'
usage: tools/package.sh [BUILD_DIR] [OUT_DIR]

Builds the Debian packages libdri<major> (the shared library), libdri-dev
(headers, libdri.so, CMake package, pkg-config file), dri-tools (dri-bench,
dri-plan) and python3-dri (the Python module) from BUILD_DIR (default:
build-deb/ in the source tree) into OUT_DIR (default: BUILD_DIR/packages),
prints their sizes and Depends, and runs lintian on them.

The packages need Debian's install layout (-DCMAKE_INSTALL_PREFIX=/usr: the
library in /usr/lib/<multiarch>, the Python module in
/usr/lib/python3/dist-packages). A new BUILD_DIR is configured so, without
tests and examples. An existing build configured for another prefix (the
suite passes its Release build, build/) is configured for /usr while the
packages are made, then back to its own prefix: nothing is recompiled, the
programs whose install run-time path changes are relinked.

Then tests/package/run.sh OUT_DIR installs them into a scratch root and
builds and runs programs against them, and
  sudo apt install ./OUT_DIR/*.deb
installs them on the system.
EOF
}
case ${1:-} in
  -h | --help) usage; exit 0 ;;
  -*) echo "tools/package.sh: the build directory comes first (see --help)" >&2; exit 2 ;;
esac
root=$(cd -P "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-deb}")
out=$(realpath -m "${2:-$build/packages}")
for tool in cpack dpkg-deb dpkg-shlibdeps lintian; do
  command -v "$tool" >/dev/null || { echo "tools/package.sh: $tool is missing (tools/deps.sh installs it)" >&2; exit 1; }
done

cache=$build/CMakeCache.txt
cache_value() { sed -n "s|^$1:[A-Z]*=||p" "$cache"; }
if [ -f "$cache" ]; then
  flags=(-DCMAKE_INSTALL_PREFIX=/usr -UDRI_PYTHON_INSTALL_DIR)
  old_prefix=$(cache_value CMAKE_INSTALL_PREFIX)
  if [ "$old_prefix" != /usr ]; then
    restore=(-DCMAKE_INSTALL_PREFIX:PATH="$old_prefix" -UDRI_PYTHON_INSTALL_DIR)
    old_python_dir=$(cache_value DRI_PYTHON_INSTALL_DIR)
    if [ -n "$old_python_dir" ]; then restore=(-DCMAKE_INSTALL_PREFIX:PATH="$old_prefix"
      -DDRI_PYTHON_INSTALL_DIR:STRING="$old_python_dir"); fi
    back() {
      echo "== $build: configured back for CMAKE_INSTALL_PREFIX=$old_prefix"
      cmake "$build" "${restore[@]}" >/dev/null
    }
    trap back EXIT
  fi
else
  flags=(-DCMAKE_INSTALL_PREFIX=/usr -DDRI_BUILD_TESTS=OFF -DDRI_BUILD_EXAMPLES=OFF)
fi
# Only what the packages hold (the target dri_packaged).
DRI_TARGETS=dri_packaged "$root/tools/build.sh" "$build" "${flags[@]}"
echo "== $build: libdir $(cache_value CMAKE_INSTALL_LIBDIR), Python package in $(cache_value DRI_PYTHON_INSTALL_DIR)"

rm -rf "$out"
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out")
rm -rf "$out/_CPack_Packages"
debs=("$out"/*.deb)
[ -e "${debs[0]}" ] || { echo "tools/package.sh: cpack made no package" >&2; exit 1; }

echo "== packages in $out"
printf '%-14s %-12s %10s %14s  %s\n' package version ".deb KiB" "installed KiB" Depends
for deb in "${debs[@]}"; do
  printf '%-14s %-12s %10s %14s  %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
    "$(( ($(stat -c %s "$deb") + 1023) / 1024 ))" "$(dpkg-deb -f "$deb" Installed-Size)" \
    "$(dpkg-deb -f "$deb" Depends)"
done

# lintian: its errors fail (--fail-on error), its warnings and the tags the
# packages override (packaging/debian/*.lintian-overrides, each with its
# reason) are listed.
echo "== lintian"
status=0
lintian --fail-on error --show-overrides --tag-display-limit 0 "${debs[@]}" >"$out/lintian.txt" 2>&1 ||
  status=$?
grep -v "running with root privileges" "$out/lintian.txt" || true
echo "lintian: $(grep -c '^E: ' "$out/lintian.txt" || true) errors, $(grep -c '^W: ' "$out/lintian.txt" || true)" \
  "warnings, $(grep -c '^O: ' "$out/lintian.txt" || true) overridden (exit $status; the list is in $out/lintian.txt)"
exit "$status"

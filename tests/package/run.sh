#!/usr/bin/env bash
# Installs the Debian packages of $1 (tools/package.sh's OUT_DIR) into a
# scratch root with dpkg-deb -x (no root needed, the system is not touched)
# and uses that install as a user of the packages would:
#   - apt-get's simulation installs them on this system: every Depends resolves;
#   - no file is in two packages;
#   - the consumer project (tests/consumer/run.sh) builds against libdri-dev,
#     with find_package(dri) and with pkg-config, and runs at 2 ranks;
#   - python3 imports dri from python3-dri (its module loading the scratch
#     root's libdri) and runs examples/python/corner_turn.py at 2 ranks;
#   - dri-bench and dri-plan from dri-tools start (--version) on the scratch
#     root's libraries.
# A file missing from a package fails one of these.
# usage: tests/package/run.sh OUT_DIR   (MPIEXEC, MPICXX: MPICH's by default)
set -euo pipefail
out=$(realpath "$1")
mpiexec=${MPIEXEC:-/usr/bin/mpiexec.mpich}
mpicxx=${MPICXX:-/usr/bin/mpicxx.mpich}
python=/usr/bin/python3
src=$(cd -P "$(dirname "$0")/../.." && pwd)
scratch=$(realpath "$(mktemp -d)")
trap 'rm -rf "$scratch"' EXIT
fail() { echo "tests/package: $*: WRONG" >&2; exit 1; }

dev=("$out"/libdri-dev_*.deb)
[ -e "${dev[0]}" ] || fail "no libdri-dev package in $out"
version=$(dpkg-deb -f "${dev[0]}" Version)
version=${version%-*}
major=${version%%.*}
debs=()
for name in "libdri$major" libdri-dev dri-tools python3-dri; do
  deb=("$out/${name}_${version}"-*.deb)
  [ -e "${deb[0]}" ] || fail "no package $name $version in $out"
  debs+=("${deb[0]}")
done
echo "-- packages of dri $version: ${debs[*]##*/}"

echo "-- apt-get install --simulate"
apt-get install --simulate --no-install-recommends "${debs[@]}" >"$scratch/apt.log" 2>&1 || {
  cat "$scratch/apt.log"; fail "the packages' Depends do not resolve on this system"; }
grep '^Inst ' "$scratch/apt.log" | cut -d' ' -f1-3

root=$scratch/root
for deb in "${debs[@]}"; do
  dpkg-deb -x "$deb" "$root"
  dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' >>"$scratch/files"
done
dups=$(sort "$scratch/files" | uniq -d)
[ -z "$dups" ] || fail "files in two packages: $dups"
echo "-- unpacked into $root: $(wc -l <"$scratch/files") files"

arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=$root/usr/lib/$arch
"$src/tests/consumer/run.sh" --prefix="$root/usr" "$mpiexec" "$mpicxx" "$version"

echo "-- python3 -c 'import dri' (python3-dri)"
export PYTHONPATH=$root/usr/lib/python3/dist-packages
"$python" - "$root" "$version" <<'EOF'
import sys

import dri

root, version = sys.argv[1], sys.argv[2]
libdri = sorted({line.split()[-1] for line in open("/proc/self/maps") if "/libdri.so" in line})
print(f"dri {dri.__version__} from {dri.__file__}, libdri: {' '.join(libdri)}")
assert dri.__file__.startswith(root + "/"), "dri imported from outside the scratch root: WRONG"
assert dri.__version__ == version, f"dri.__version__ is not {version}: WRONG"
assert libdri and all(p.startswith(root + "/") for p in libdri), "libdri from elsewhere: WRONG"
EOF
"$mpiexec" -n 2 "$python" "$src/examples/python/corner_turn.py" --n 64 --m 48 --frames 2 |
  tee "$scratch/python.log"
grep -q "verified" "$scratch/python.log" || fail "the Python corner turn did not verify"

echo "-- dri-tools"
for tool in dri-plan dri-bench; do
  got=$("$root/usr/bin/$tool" --version)
  [ "$got" = "$tool (dri) $version" ] || fail "$tool --version printed '$got'"
  echo "$got"
done
ldd "$root/usr/bin/dri-bench" >"$scratch/ldd.log"
for lib in "libdri.so.$major" libdri-message-count.so; do
  path=$(awk -v lib="$lib" '$1 == lib && $2 == "=>" {print $3}' "$scratch/ldd.log")
  case $(realpath -m "${path:-none}") in
    "$libdir"/*) echo "dri-bench loads $(realpath "$path")" ;;
    *) cat "$scratch/ldd.log"; fail "dri-bench does not load $lib from $libdir" ;;
  esac
done
echo "-- the packages of dri $version install and work"

#!/usr/bin/env bash
# Fails when libdri exports anything but the public API: the DRI_* C
# functions of dri.h / dri10.h and the public classes and functions of
# namespace dri (dri.hpp). Usage: exported_symbols.sh path/to/libdri.so
set -euo pipefail
lib=$1
# Names only (before the argument list), demangled, defined, dynamic.
names=$(nm -D --defined-only "$lib" | awk '{print $3}' | c++filt | sed 's/(.*//' | sort -u)
[ -n "$names" ] || { echo "no exported symbols read from $lib"; exit 1; }
public='^(DRI_[A-Za-z0-9_]+|dri::(init|finalize|initialized|corner_turn|corner_turn_blocks|commit)|dri::(Error|GlobalData|Partition|Group|Layout|Distribution|Transfer|SharedMemory)::[~A-Za-z_][A-Za-z0-9_]*( ?[^ ]*)?|(typeinfo|typeinfo name|vtable) for dri::(Error|GlobalData|Partition|Group|Layout|Distribution|Transfer|SharedMemory))$'
bad=$(grep -Ev "$public" <<<"$names" || true)
count=$(wc -l <<<"$names")
if [ -n "$bad" ]; then
  echo "libdri exports symbols outside the public API:"
  echo "$bad"
  exit 1
fi
# The public API is there (a version script that hid everything would pass the check above).
for must in DRI_Init DRI_Do DRI_Reorg_create "dri::init" "dri::Transfer::execute"; do
  grep -qx "$must" <<<"$names" || { echo "missing public symbol: $must"; exit 1; }
done
echo "exported symbols: $count, all public"

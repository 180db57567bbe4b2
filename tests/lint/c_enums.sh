#!/usr/bin/env bash
# C passes any int where the C API takes an enum, but C++ code that loads an
# enum object holding a value outside the enumeration's range is undefined
# (UndefinedBehaviorSanitizer stops there, and only when a test passes such a
# value). So the C binding reads every enum parameter through raw(), never
# by comparing, casting or switching on it directly; this holds it to that.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
enums=$(grep -hoE 'typedef enum DRI_[A-Za-z0-9_]+' "$top"/include/dri/*.h | awk '{print $3}' | sort -u)
[ -n "$enums" ] || { echo "no C enums found in include/dri"; exit 1; }
fail=0
for f in "$top"/src/bindings/c/*.cpp; do
  for e in $enums; do
    # Enum parameters taken by value (the ones a caller fills with any int).
    for p in $(grep -oE "\b$e [a-z_][a-z0-9_]*[,)]" "$f" | sed -E "s/^$e //; s/[,)]$//" | sort -u); do
      if grep -nE "\b$p *[!=]=|[!=]= *$p\b|_cast<[^>]*>\( *$p *\)|switch *\( *$p *\)" "$f"; then
        echo "${f#$top/}: reads the $e parameter '$p' directly; use raw($p)"
        fail=1
      fi
    done
  done
done
exit $fail

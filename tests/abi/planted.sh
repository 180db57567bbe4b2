#!/usr/bin/env bash
# The ABI guard's verdicts on planted changes (issue 47): a small library
# shaped like libdri (C functions over a public struct and an enum, a C++
# class with exported members, hidden visibility, debug information) is
# built once as the baseline and once per planted change, and
# tools/abi_check.sh, the very script CI runs on libdri, judges each
# variant against the baseline. Every verdict must be the expected one.
# Usage: planted.sh ABI_CHECK CXX. Exit 77 (skipped) without libabigail.
set -euo pipefail
check=$1
cxx=$2
if ! command -v abidw >/dev/null || ! command -v abidiff >/dev/null; then
  echo "SKIPPED: abidw/abidiff not installed (Debian package abigail-tools)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/plant.h" <<'EOF'
#include <stdint.h>
#define PLANT_API __attribute__((visibility("default")))
#ifdef __cplusplus
extern "C" {
#endif
typedef enum PLANT_Kind { PLANT_A = 0, PLANT_B = 1 } PLANT_Kind;
typedef struct PLANT_Box {
    int64_t first;
    int64_t last;
    int dims;
} PLANT_Box;
PLANT_API int PLANT_Box_size(const PLANT_Box* box, int64_t* size);
PLANT_API int PLANT_Kind_code(PLANT_Kind kind);
PLANT_API int PLANT_Twice(int x);
#ifdef __cplusplus
}
namespace plant {
namespace detail {
struct History; // the library's own (defined in plant.cpp), as libdri's dri::detail::*Impl
}
class PLANT_API Counter {
  public:
    explicit Counter(int start);
    int next();

  private:
    int value_;
    detail::History* history_;
};
} // namespace plant
#endif
EOF
cat >"$work/plant.cpp" <<'EOF'
#include "plant.h"
int PLANT_Box_size(const PLANT_Box* box, int64_t* size) {
    *size = box->last - box->first + 1;
    return box->dims;
}
int PLANT_Kind_code(PLANT_Kind kind) { return static_cast<int>(kind) + PLANT_B; }
int PLANT_Twice(int x) { return 2 * x; }
int plant_internal(int x) { return x - 1; }
struct plant::detail::History {
    int calls;
};
plant::Counter::Counter(int start) : value_(start), history_(new detail::History{0}) {}
int plant::Counter::next() { return ++history_->calls, value_++; }
EOF

# variant NAME SONAME_MAJOR HEADER_EDIT SOURCE_EDIT: the library with its
# header and its source edited by the two sed scripts (empty: unchanged),
# SONAME libplant.so.SONAME_MAJOR.
variant() {
  local dir=$work/$1
  mkdir -p "$dir/include"
  sed -e "$3" "$work/plant.h" >"$dir/include/plant.h"
  sed -e "$4" "$work/plant.cpp" >"$dir/plant.cpp"
  "$cxx" -std=c++20 -g -O1 -fPIC -shared -fvisibility=hidden -I"$dir/include" "$dir/plant.cpp" \
    -Wl,-soname,"libplant.so.$2" -o "$dir/libplant.so.$2"
}

variant baseline 1 '' ''
"$check" --update --lib "$work/baseline/libplant.so.1" --headers "$work/baseline/include" \
  --major 1 --baseline-dir "$work/abi"

# name | expected verdict | SONAME's major | the build's major | header edit | source edit
cases=(
  "unchanged|PASS|1|1||"
  "added C function|PASS|1|1|/PLANT_API int PLANT_Twice/a PLANT_API int PLANT_Thrice(int x);|\$a int PLANT_Thrice(int x) { return 3 * x; }"
  "added C++ member function|PASS|1|1|s/    int next();/    int next();\n    void reset(int start);/|\$a void plant::Counter::reset(int start) { value_ = start; }"
  "enumerator appended|PASS|1|1|s/PLANT_B = 1 }/PLANT_B = 1, PLANT_C = 2 }/|"
  "removed function|FAIL|1|1|/PLANT_Twice/d|/PLANT_Twice/d"
  "changed struct (member inserted)|FAIL|1|1|s/    int64_t first;/    int64_t first;\n    int64_t stride;/|"
  "changed struct (member type)|FAIL|1|1|s/    int dims;/    int64_t dims;/|"
  "changed parameter type|FAIL|1|1|s/PLANT_Twice(int x)/PLANT_Twice(int64_t x)/|s/PLANT_Twice(int x)/PLANT_Twice(int64_t x)/"
  "changed enumerator value|FAIL|1|1|s/PLANT_B = 1 }/PLANT_B = 2 }/|"
  "changed C++ class layout|FAIL|1|1|s/    int value_;/    int value_;\n    int step_ = 1;/|"
  "changed own type behind a pointer|PASS|1|1||s/    int calls;/    long first;\n    int calls;/"
  "removed function, new major and SONAME|PASS|2|2|/PLANT_Twice/d|/PLANT_Twice/d"
  "SONAME not following the major version|FAIL|2|1||"
)
wrong=0
summary=()
for c in "${cases[@]}"; do
  IFS='|' read -r name expected soname_major major hedit sedit <<<"$c"
  dir=v$((${#summary[@]} + 1))
  variant "$dir" "$soname_major" "$hedit" "$sedit"
  rc=0
  out=$("$check" --lib "$work/$dir/libplant.so.$soname_major" --headers "$work/$dir/include" \
    --major "$major" --baseline-dir "$work/abi" 2>&1) || rc=$?
  # The verdict line's first clause, e.g. "FAIL: an incompatible ABI change within libplant.so.1".
  verdict=$({ grep -E '^abi_check: (PASS|FAIL)' <<<"$out" || true; } | tail -1 |
    sed -E 's/^abi_check: //; s/(\. |; | \().*//')
  got=${verdict%%:*}
  # The exit status must agree with the verdict printed.
  if { [ "$got" = PASS ] && ((rc != 0)); } || { [ "$got" = FAIL ] && ((rc != 1)); } ||
    [ -z "$got" ]; then
    got="exit $rc"
  fi
  ok=ok
  if [ "$got" != "$expected" ]; then ok=WRONG; wrong=$((wrong + 1)); fi
  summary+=("$(printf '  %-40s expected %s, got %-4s %-5s %s' "$name" "$expected" "$got" "$ok" \
    "$verdict")")
  if [ "$ok" != ok ] || [ -n "${ABI_PLANTED_VERBOSE:-}" ]; then
    echo "--- $name:"
    echo "$out"
  fi
done
echo "verdicts of tools/abi_check.sh on planted changes:"
printf '%s\n' "${summary[@]}"
if ((wrong)); then
  echo "planted ABI changes: $wrong of ${#cases[@]} verdicts WRONG"
  exit 1
fi
echo "planted ABI changes: ${#cases[@]} verdicts, all as expected"

#!/usr/bin/env bash
# Builds the libFuzzer target over the planning core (clang, ASan + UBSan,
# every error fatal) and runs it.
#   tools/fuzz.sh [seconds] [more libFuzzer flags]
# Default 60 s. The corpus grows in build-fuzz/corpus (seeded from
# tests/fuzz/corpus); a crash leaves its input in build-fuzz/ and fails.
# Longer run, e.g. ten minutes:  tools/fuzz.sh 600
# Replay one input:              build-fuzz/fuzz_plan build-fuzz/crash-<sha>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh" clang libclang-rt-14-dev
seconds=${1:-60}
shift || true
out=$root/build-fuzz
mkdir -p "$out/corpus"
cxx=$(command -v clang++-14 || command -v clang++)
srcs=("$root"/src/core/*.cpp "$root"/src/kernels/*.cpp)
if [ ! -x "$out/fuzz_plan" ] || [ -n "$(find "$root/src/core" "$root/src/kernels" "$root/tests/fuzz" \
    "$root/tests/support" "$root/programs" -newer "$out/fuzz_plan" -name '*.[ch]pp' | head -1)" ]; then
  echo "fuzz: building $out/fuzz_plan with $cxx"
  "$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -fno-omit-frame-pointer -I"$root/src" -I"$root/tests/support" -I"$root/programs" \
    "$root/tests/fuzz/fuzz_plan.cpp" "${srcs[@]}" -o "$out/fuzz_plan"
fi
cp -n "$root"/tests/fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
cd "$out"
# -rss_limit_mb: a plan must not need more; -timeout: nor take longer (s).
rc=0
./fuzz_plan -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=512 \
  -print_final_stats=1 "$@" corpus >fuzz.log 2>&1 || rc=$?
grep -E "^#[0-9]+ +DONE|runtime error|ERROR|SUMMARY|oracle|stat::number_of_executed_units|stat::average_exec_per_sec" fuzz.log || true
if [ "$rc" -ne 0 ]; then
  echo "fuzz: FAILED (exit $rc); the log is $out/fuzz.log" >&2
  tail -40 fuzz.log >&2
  exit 1
fi
echo "fuzz: clean"

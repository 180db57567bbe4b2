#!/usr/bin/env bash
# The full test suite: installs what is missing, builds (printing which
# optional components were found and what is left out without each), runs
# every ctest test in a Release build (the docs test runs every command of
# README.md and docs/*.md), libdri's ABI against its baseline in abi/
# (tools/abi_check.sh), the Debian packages (tools/package.sh, lintian)
# installed into a scratch root and used, the 2.5 GiB large-count test when
# the memory is there, MPI tests through the MPI-3 code paths in a build
# with every optional component hidden, the Open MPI build when
# libopenmpi-dev is installed, the unit and MPI tests (the lifetime state
# machine included) again under AddressSanitizer and
# UndefinedBehaviorSanitizer, the thread-contract test under
# ThreadSanitizer, the Doxygen reference and 60 s of fuzzing.
# Exits non-zero on any failure.
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
start=$SECONDS
# Each stage says when it starts, so that a slow suite shows where its time goes.
stage() { echo "== [$((SECONDS - start)) s] $*"; }

stage "Release build and tests"
"$root/tools/build.sh" "$root/build"
# The lifetime state machine runs in the sanitizer stage below; here only
# on simulated nodes, which that stage leaves out.
(cd "$root/build" && ctest --output-on-failure -j 2 --timeout 900 -LE large \
  -E '^test_lifetime_mpi\.[0-9]+$')

# libdri's ABI against the baseline in abi/ (docs/release.md): an
# incompatible change fails unless the major version and the SONAME change
# with it; additions pass and are listed.
if command -v abidw >/dev/null && command -v abidiff >/dev/null; then
  stage "ABI of libdri against abi/ (libabigail)"
  "$root/tools/abi_check.sh" "$root/build"
else
  stage "SKIPPED the ABI check: abidw/abidiff are not installed (Debian package abigail-tools)"
fi

# Debian packages from the Release build (configured for /usr while they are
# made, then back; nothing recompiled): lintian's errors fail, its warnings
# are listed; then installed into a scratch root (dpkg-deb -x, the system
# untouched), where the consumer builds and runs and python3 imports dri.
stage "Debian packages (tools/package.sh, lintian), installed into a scratch root and used"
"$root/tools/package.sh" "$root/build" "$root/build/packages"
"$root/tests/package/run.sh" "$root/build/packages"

# The 2.5 GiB message (issue 6) needs about 7.5 GiB: run it only when the
# machine has that much to spare, and say so when it does not.
need_gib=10
avail_gib=$(awk '/^MemAvailable:/ {print int($2 / 1048576)}' /proc/meminfo)
if [ "$avail_gib" -ge "$need_gib" ]; then
  stage "Large-count test (${avail_gib} GiB available)"
  (cd "$root/build" && ctest --output-on-failure --timeout 900 -L large -V)
else
  stage "SKIPPED the large-count test: ${avail_gib} GiB of memory available, it needs ${need_gib} GiB"
fi

# MPI-3 code paths (what Open MPI 4 and other MPI-3 libraries get): no _c
# functions, byte-range datatypes above INT_MAX. Built as a static library,
# which the installed-package test then covers too. The same build hides
# every optional component (-DDRI_WITHOUT=all), so that code compiled only
# without one builds with warnings as errors on every machine, not only on
# one that lacks the package: the library, the examples (FFTW's are left
# out) and the test programs this stage runs (dri_all_but_tests,
# cmake/DriAllButTests.cmake). The one file of dri-bench that a component
# changes (the ScaLAPACK baseline) was compiled without it in the Release
# build unless ScaLAPACK is installed; only then are dri-bench and its
# corner turn built and run here too. The tools change with no component.
stage "MPI-3 code paths on MPICH (-DDRI_FORCE_MPI3=ON), static library, no optional component"
mpi3_bench=OFF
if grep -q '^ScaLAPACK  *found' "$root/build/optional-components.txt"; then mpi3_bench=ON; fi
DRI_TARGETS="dri_all_but_tests test_large_mpi test_random_mpi test_transfer_mpi test_c_api test_errors_mpi" \
  "$root/tools/build.sh" "$root/build-mpi3" -DDRI_FORCE_MPI3=ON -DBUILD_SHARED_LIBS=OFF \
  -DDRI_WITHOUT=all -DDRI_BUILD_BENCH=$mpi3_bench -DDRI_BUILD_TOOLS=OFF
(cd "$root/build-mpi3" && ctest --output-on-failure -j 2 --timeout 900 -R \
  '^(test_large_mpi\.[12]|test_random_mpi\.[23]|test_transfer_mpi\.(3|nodes2)|test_c_api\.2|test_errors_mpi\.[23]|install\.consumer|bench\.corner_turn\.2|corner_turn\.clique\.2)$')
if [ "$avail_gib" -ge "$need_gib" ]; then
  (cd "$root/build-mpi3" && ctest --output-on-failure --timeout 900 -L large -V)
fi

# Open MPI (Debian's libopenmpi-dev), when it is installed beside MPICH.
if grep -q '^OpenMPI  *found' "$root/build/optional-components.txt"; then
  stage "Open MPI build and tests"
  # The unit tests and dri-plan hold no MPI: the Release build ran them.
  "$root/tools/build.sh" "$root/build-openmpi" -DMPI_C_COMPILER=/usr/bin/mpicc.openmpi \
    -DMPI_CXX_COMPILER=/usr/bin/mpicxx.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi \
    -DDRI_BUILD_BENCH=OFF -DDRI_BUILD_UNIT_TESTS=OFF -DDRI_BUILD_TOOLS=OFF
  # Not the thread-contract test: Open MPI 4.1 can hang when threads create
  # communicators at once (docs/api.md, "Open MPI 4.1: commit from one thread
  # at a time"); MPICH and ThreadSanitizer run it. Not mpi4py-fft's
  # test_mpifft.py at 4 ranks either: 12 484 commits took 86 s on 2 cores
  # (it runs at 2 ranks, and test_pencil.py and test_darray.py at 4; run it
  # by hand with ctest -R mpifft.4, docs/python.md).
  (cd "$root/build-openmpi" && ctest --output-on-failure -j 2 --timeout 900 \
    -LE 'large|lint|lifetime|threads' -E '^python\.client\.mpi4py_fft\.mpifft\.4$')
else
  stage "SKIPPED the Open MPI build: libopenmpi-dev is not installed"
fi

# -O1, as the sanitizers' authors advise: a third less compile time than -O2;
# -g1 (line tables: the reports' file:line, not variables) halves it again
# (test_transfer_mpi.cpp: 31 s with -g, 16.5 s with -g1).
stage "Sanitizer build (ASan + UBSan) and tests"
DRI_BUILD_TYPE=RelWithDebInfo "$root/tools/build.sh" "$root/build-sanitize" -DDRI_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DDRI_BUILD_EXAMPLES=OFF -DDRI_BUILD_BENCH=OFF -DDRI_BUILD_PYTHON=OFF -DDRI_BUILD_TOOLS=OFF
# 7 ranks and the reversed communicator run in the Release stage only, and
# the unit property tests draw a third of their cases: the memory errors
# ASan finds do not wait for them, and the suite must stay within its time.
# Nor do the learning, grid-layout and thread tests run at 3 ranks here
# (13, 13 and 12 s): the Release stage runs them at 3, and the thread test
# runs at 3 under ThreadSanitizer below too.
(cd "$root/build-sanitize" && DRI_CASES=800 ctest --output-on-failure -j 2 --timeout 900 \
  -L "unit|mpi" -LE "large|nodes" -E '\.(7|reversed)$|^test_(learning|grid_layout|threads)_mpi\.3$')
# One run on simulated nodes: NODES' relay through the leaders (and AUTO's
# choice of it) only moves data when there are several nodes.
(cd "$root/build-sanitize" && ctest --output-on-failure --timeout 900 -R '^test_random_mpi\.nodes2$')

# The thread contract of docs/api.md under ThreadSanitizer: a data race in
# the library fails. Only the library and that test are built.
stage "ThreadSanitizer build and the thread-contract test"
DRI_BUILD_TYPE=RelWithDebInfo DRI_TARGETS="test_threads_mpi test_piece_threads_mpi" "$root/tools/build.sh" \
  "$root/build-tsan" -DDRI_SANITIZE_THREAD=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DDRI_BUILD_EXAMPLES=OFF -DDRI_BUILD_BENCH=OFF \
  -DDRI_BUILD_TOOLS=OFF -DDRI_BUILD_PYTHON=OFF
(cd "$root/build-tsan" && ctest --output-on-failure --timeout 900 -L threads)

stage "API reference (Doxygen; a warning fails)"
"$root/tools/docs.sh"

stage "Fuzzing the planning core for 60 s (libFuzzer, ASan + UBSan, oracle)"
"$root/tools/fuzz.sh" 60

echo "== all tests passed in $((SECONDS - start)) s"

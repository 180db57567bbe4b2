# dri's optional components, in one list. Each is detected here, once, and
# the rest of the build reads DRI_HAVE_<name>; nothing else calls
# find_package or find_library for an optional dependency.
#
# -DDRI_WITHOUT=all (or a list of names, e.g. "ScaLAPACK;mpi4py") hides
# components as if they were not installed. tools/test.sh builds once with
# every component hidden, so that code compiled only in a component's
# absence is compiled (with warnings as errors) on every machine, not only on
# one that happens to lack the package.
#
# Configure writes the table to <build>/optional-components.txt (component,
# state, Debian package, what is left out without it); tools/build.sh prints
# it, tools/test.sh and the docs test read it.

set(DRI_OPTIONAL_COMPONENTS
    ScaLAPACK FFTW Python NumPy pytest mpi4py mpi4py-fft OpenMPI Doxygen clang-format
    gnuplot hpcc)
set(DRI_WITHOUT "" CACHE STRING
    "Optional components to build without, as if absent: 'all' or names from DRI_OPTIONAL_COMPONENTS")
foreach(name IN LISTS DRI_WITHOUT)
  if(NOT name STREQUAL "all" AND NOT name IN_LIST DRI_OPTIONAL_COMPONENTS)
    string(REPLACE ";" " " names "${DRI_OPTIONAL_COMPONENTS}")
    message(FATAL_ERROR "DRI_WITHOUT: unknown component '${name}'; "
                        "the optional components are: ${names}")
  endif()
endforeach()

# dri_optional_hidden(<name> <out>): whether DRI_WITHOUT hides <name>.
function(dri_optional_hidden name out)
  if("all" IN_LIST DRI_WITHOUT OR name IN_LIST DRI_WITHOUT)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# dri_optional(<name> <found> PACKAGE <Debian package(s)> WITHOUT <what is
# left out>): records one row of the table and sets DRI_HAVE_<name>.
set_property(GLOBAL PROPERTY DRI_OPTIONAL_ROWS "")
function(dri_optional name found)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "PACKAGE;WITHOUT" "")
  dri_optional_hidden(${name} hidden)
  if(hidden)
    set(state "hidden")
    set(found FALSE)
  elseif(found)
    set(state "found")
  else()
    set(state "missing")
  endif()
  if(found)
    set(DRI_HAVE_${name} TRUE PARENT_SCOPE)
    set(lost "-")
  else()
    set(DRI_HAVE_${name} FALSE PARENT_SCOPE)
    set(lost "${arg_WITHOUT}")
  endif()
  string(LENGTH "${name}" n)
  math(EXPR pad "14 - ${n}")
  string(REPEAT " " ${pad} spaces)
  string(LENGTH "${state}" n)
  math(EXPR pad2 "9 - ${n}")
  string(REPEAT " " ${pad2} spaces2)
  set_property(GLOBAL APPEND PROPERTY DRI_OPTIONAL_ROWS
               "${name}${spaces}${state}${spaces2}${arg_PACKAGE}: ${lost}")
endfunction()

# --- detection, one component after the other ---------------------------------

dri_optional_hidden(ScaLAPACK hidden)
set(found FALSE)
if(NOT hidden AND MPI_C_COMPILER MATCHES "mpich")
  find_library(SCALAPACK_MPICH_LIBRARY NAMES scalapack-mpich)
  set(found ${SCALAPACK_MPICH_LIBRARY})
endif()
dri_optional(ScaLAPACK "${found}" PACKAGE libscalapack-mpich-dev
  WITHOUT "dri-bench's scalapack_pxgemr2d baseline (MPICH builds only)")

dri_optional_hidden(FFTW hidden)
set(found FALSE)
if(NOT hidden)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(FFTW QUIET IMPORTED_TARGET fftw3 fftw3f)
    set(found ${FFTW_FOUND})
  endif()
endif()
dri_optional(FFTW "${found}" PACKAGE libfftw3-dev
  WITHOUT "the C++ example two_stage_fft and its tests")

# Debian's python3 (/usr/bin/python3) is the interpreter its python3-numpy,
# python3-pytest and python3-mpi4py belong to: prefer it to whatever python3
# comes first on PATH (pyenv, a venv), unless one was given.
dri_optional_hidden(Python hidden)
set(found FALSE)
if(NOT hidden AND DRI_BUILD_PYTHON)
  if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter of the dri module")
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
    set(found ${pybind11_FOUND})
  endif()
endif()
dri_optional(Python "${found}" PACKAGE "python3-dev pybind11-dev"
  WITHOUT "the Python module, its tests and examples")

# Python modules the interpreter of the dri module imports.
function(dri_optional_python_module name module package without)
  dri_optional_hidden(${name} hidden)
  set(found FALSE)
  if(NOT hidden AND DRI_HAVE_Python)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import ${module}"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(found TRUE)
    endif()
  endif()
  dri_optional(${name} "${found}" PACKAGE ${package} WITHOUT "${without}")
  set(DRI_HAVE_${name} ${DRI_HAVE_${name}} PARENT_SCOPE)
endfunction()
dri_optional_python_module(NumPy numpy python3-numpy
  "the Python tests and examples (the module needs NumPy to run)")
dri_optional_python_module(pytest pytest python3-pytest "the Python module's pytest suites")
dri_optional_python_module(mpi4py mpi4py python3-mpi4py "the Python mpi4py interop tests")
# mpi4py_fft's package imports mpi4py.MPI (initializing its MPI library):
# look for it without importing it.
dri_optional_hidden(mpi4py-fft hidden)
set(found FALSE)
if(NOT hidden AND DRI_HAVE_Python)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c
                  "import importlib.util, sys; sys.exit(importlib.util.find_spec('mpi4py_fft') is None)"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(found TRUE)
  endif()
endif()
dri_optional(mpi4py-fft "${found}" PACKAGE python3-mpi4py-fft
  WITHOUT "the mpi4py-fft pencil tests and benchmark (bench/python/mpi4py_fft_bench.py)")

# openmpi-bin (which libscalapack-mpich-dev and python3-mpi4py pull in) has
# the compiler wrappers without the headers: found means the wrapper's
# include directories hold mpi.h, as with libopenmpi-dev.
dri_optional_hidden(OpenMPI hidden)
set(found FALSE)
if(NOT hidden)
  find_program(DRI_OPENMPI_CXX mpicxx.openmpi)
  if(DRI_OPENMPI_CXX)
    execute_process(COMMAND ${DRI_OPENMPI_CXX} --showme:incdirs
                    OUTPUT_VARIABLE incdirs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    separate_arguments(incdirs UNIX_COMMAND "${incdirs}")
    foreach(dir IN LISTS incdirs)
      if(EXISTS "${dir}/mpi.h")
        set(found TRUE)
      endif()
    endforeach()
  endif()
endif()
dri_optional(OpenMPI "${found}" PACKAGE libopenmpi-dev
  WITHOUT "tools/test.sh's Open MPI build and its tests")

# Components that are one program on PATH.
function(dri_optional_program name program package without)
  dri_optional_hidden(${name} hidden)
  set(found FALSE)
  if(NOT hidden)
    find_program(DRI_PROGRAM_${name} ${program})
    set(found ${DRI_PROGRAM_${name}})
  endif()
  dri_optional(${name} "${found}" PACKAGE ${package} WITHOUT "${without}")
  set(DRI_HAVE_${name} ${DRI_HAVE_${name}} PARENT_SCOPE)
endfunction()

dri_optional_program(Doxygen doxygen doxygen
  "nothing in the build (tools/docs.sh installs it for the API reference)")
dri_optional_program(clang-format clang-format clang-format "the format check (ctest format)")
dri_optional_program(gnuplot gnuplot gnuplot-nox
  "the docs test's run of tools/bench_plot.sh (the pictures of a benchmark)")
# HPC Challenge (built on Open MPI): HPCC's own PTRANS beside dri-bench's.
dri_optional_program(hpcc hpcc hpcc
  "bench/ptrans_vs_hpcc.sh's comparison and its test (the script says it skipped)")

# Writes the table; called at the end of the top-level CMakeLists.
function(dri_optional_report)
  get_property(rows GLOBAL PROPERTY DRI_OPTIONAL_ROWS)
  set(text "component     state    Debian package: left out without it\n")
  foreach(row IN LISTS rows)
    string(APPEND text "${row}\n")
  endforeach()
  file(WRITE ${PROJECT_BINARY_DIR}/optional-components.txt "${text}")
  message(STATUS "dri: optional components (${PROJECT_BINARY_DIR}/optional-components.txt):\n${text}")
endfunction()

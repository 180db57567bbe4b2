# MPI test registration shared by tests/ and bench/: runs a program under
# mpiexec with n ranks (more ranks than cores is fine for correctness).
# MPICH's report of leaked handles at MPI_Finalize, or a LeakSanitizer
# report, fails the test.
# No 4: the same tests run at 4 ranks on 2 simulated nodes (name.nodes2),
# which covers the one-node paths too and keeps the suite within its time.
set(DRI_MPI_RANKS 1 2 3 7 CACHE STRING "Rank counts of the MPI tests")
set(DRI_LEAK_REGEX "leaked|LeakSanitizer")

# Sanitizer builds run MPI programs with the ASan runtime first and with
# dlclose disabled (see support/nodlclose.c) so LeakSanitizer reports only
# real, attributable leaks.
set(DRI_MPI_TEST_ENV "")
if(DRI_SANITIZE)
  add_library(dri_nodlclose SHARED ${PROJECT_SOURCE_DIR}/tests/support/nodlclose.c)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE DRI_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  # allocator_may_return_null: a failed huge allocation must reach the
  # library's DRI_ERR_NO_MEMORY path, as it does without ASan.
  set(DRI_MPI_TEST_ENV "LD_PRELOAD=${DRI_ASAN_RUNTIME}:$<TARGET_FILE:dri_nodlclose>"
      "ASAN_OPTIONS=allocator_may_return_null=1")
endif()

# ThreadSanitizer builds (the thread-contract test): UCX's memory hooks
# (libucm intercepts madvise) crash under TSan's interceptors at thread
# exit, so they are turned off; a race report fails the test.
if(DRI_SANITIZE_THREAD)
  list(APPEND DRI_MPI_TEST_ENV UCX_MEM_EVENTS=no)
  set(DRI_LEAK_REGEX "${DRI_LEAK_REGEX}|ThreadSanitizer")
endif()

# Open MPI refuses more ranks than cores, and root, unless told otherwise.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE DRI_MPIEXEC_VERSION
                ERROR_QUIET RESULT_VARIABLE DRI_MPIEXEC_RC)
if(DRI_MPIEXEC_VERSION MATCHES "Open MPI|OpenRTE")
  list(APPEND DRI_MPI_TEST_ENV OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1
       OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
endif()

# The test programs registered by dri_mpi_runs below wait politely under
# MPICH: tests/support/yield_when_idle.c, preloaded, makes each blocking MPI
# call yield the processor while it waits (Open MPI does so by itself when
# oversubscribed). Not under ThreadSanitizer, and for the Python tests only
# where no process loads mpi4py's other MPI library beside MPICH (pytest
# without interop/, python/tests/CMakeLists.txt).
set(DRI_MPI_RUN_ENV "${DRI_MPI_TEST_ENV}")
if(NOT DRI_MPIEXEC_VERSION MATCHES "Open MPI|OpenRTE" AND NOT DRI_SANITIZE_THREAD)
  add_library(dri_yield_when_idle SHARED ${PROJECT_SOURCE_DIR}/tests/support/yield_when_idle.c)
  target_link_libraries(dri_yield_when_idle PRIVATE MPI::MPI_C)
  set(preload "$<TARGET_FILE:dri_yield_when_idle>")
  if(DRI_SANITIZE)
    set(preload "${DRI_ASAN_RUNTIME}:$<TARGET_FILE:dri_nodlclose>:${preload}")
  endif()
  list(FILTER DRI_MPI_RUN_ENV EXCLUDE REGEX "^LD_PRELOAD=")
  list(APPEND DRI_MPI_RUN_ENV "LD_PRELOAD=${preload}")
endif()

# Registers `command` under mpiexec with n ranks.
function(dri_add_mpi_test name n)
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 PROCESSORS ${n} ENVIRONMENT "${DRI_MPI_TEST_ENV}"
                       FAIL_REGULAR_EXPRESSION "${DRI_LEAK_REGEX}")
endfunction()

# Every run of one MPI program, in one call:
#
#   dri_mpi_runs(<name> COMMAND <program> [<arg>...] [ARGS <arg>...]
#                [RANKS <n>...] [REVERSED <n>] [NODES <k>...]
#                [LABELS <label>...] [TIMEOUT <s>] [ARGS_OVER_2_RANKS <arg>...]
#                [PROPERTIES <property> <value>...])
#
# registers
#   <name>.<n>         for each n of RANKS: n ranks on MPI_COMM_WORLD;
#   <name>.reversed    REVERSED n: n ranks on a communicator holding the
#                      world's processes in reversed rank order
#                      (DRI_TEST_COMM=reversed, tests/support/mpi_world.hpp),
#                      as when dri is a library inside a larger code;
#   <name>.nodes<k>    for each k of NODES: 2k ranks on k simulated nodes
#                      (MPICH's MPIR_CVAR_NUM_CLIQUES=k makes
#                      MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) report k
#                      nodes; MPICH only, none under Open MPI).
# Every run has the labels "mpi" and LABELS ("nodes" too on simulated nodes)
# and the PROPERTIES given. TIMEOUT applies to the runs at RANKS and
# REVERSED; the runs on simulated nodes, 4 and 6 ranks on the suite's 2
# cores, keep dri_add_mpi_test's 600 s. ARGS_OVER_2_RANKS are appended to
# the command of the runs with more than 2 ranks (more ranks than cores).
function(dri_mpi_runs name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "REVERSED;TIMEOUT"
                        "COMMAND;ARGS;RANKS;NODES;LABELS;ARGS_OVER_2_RANKS;PROPERTIES")
  if(NOT arg_COMMAND OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dri_mpi_runs(${name}): no COMMAND, or unknown arguments: "
                        "${arg_UNPARSED_ARGUMENTS}")
  endif()
  set(runs "")
  foreach(n IN LISTS arg_RANKS)
    list(APPEND runs "${n}:${n}")
  endforeach()
  if(arg_REVERSED)
    list(APPEND runs "reversed:${arg_REVERSED}")
  endif()
  if(NOT DRI_MPIEXEC_VERSION MATCHES "Open MPI|OpenRTE")
    foreach(k IN LISTS arg_NODES)
      math(EXPR n "2 * ${k}")
      list(APPEND runs "nodes${k}:${n}")
    endforeach()
  endif()
  foreach(run IN LISTS runs)
    string(REPLACE ":" ";" run "${run}")
    list(GET run 0 suffix)
    list(GET run 1 n)
    set(test ${name}.${suffix})
    set(command ${arg_COMMAND} ${arg_ARGS})
    if(n GREATER 2)
      list(APPEND command ${arg_ARGS_OVER_2_RANKS})
    endif()
    dri_add_mpi_test(${test} ${n} ${command})
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "${DRI_MPI_RUN_ENV}")
    if(arg_PROPERTIES)
      set_tests_properties(${test} PROPERTIES ${arg_PROPERTIES})
    endif()
    if(suffix MATCHES "^nodes([0-9]+)$")
      set(labels mpi nodes ${arg_LABELS})
      set_tests_properties(${test} PROPERTIES LABELS "${labels}"
                           ENVIRONMENT "${DRI_MPI_RUN_ENV};MPIR_CVAR_NUM_CLIQUES=${CMAKE_MATCH_1}")
    else()
      set(labels mpi ${arg_LABELS})
      set_tests_properties(${test} PROPERTIES LABELS "${labels}")
      if(suffix STREQUAL "reversed")
        set_tests_properties(${test} PROPERTIES
                             ENVIRONMENT "${DRI_MPI_RUN_ENV};DRI_TEST_COMM=reversed")
      endif()
      if(arg_TIMEOUT)
        set_tests_properties(${test} PROPERTIES TIMEOUT ${arg_TIMEOUT})
      endif()
    endif()
  endforeach()
endfunction()

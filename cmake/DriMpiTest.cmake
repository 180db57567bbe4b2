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

# Registers `command` under mpiexec with n ranks.
function(dri_add_mpi_test name n)
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 PROCESSORS ${n} ENVIRONMENT "${DRI_MPI_TEST_ENV}"
                       FAIL_REGULAR_EXPRESSION "${DRI_LEAK_REGEX}")
endfunction()


# Several nodes on one machine: MPICH's MPIR_CVAR_NUM_CLIQUES=k makes
# MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) report k nodes. Registers
# `name.nodes2` (4 ranks on 2 nodes) and `name.nodes3` (6 ranks on 3 nodes),
# label "nodes", with the properties given after PROPERTIES. MPICH only.
function(dri_add_nodes_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "COMMAND;PROPERTIES")
  if(DRI_MPIEXEC_VERSION MATCHES "Open MPI|OpenRTE")
    return()
  endif()
  foreach(layout "2;4" "3;6")
    list(GET layout 0 k)
    list(GET layout 1 n)
    dri_add_mpi_test(${name}.nodes${k} ${n} ${arg_COMMAND})
    if(arg_PROPERTIES)
      set_tests_properties(${name}.nodes${k} PROPERTIES ${arg_PROPERTIES})
    endif()
    set_tests_properties(${name}.nodes${k} PROPERTIES LABELS "mpi;nodes"
                         ENVIRONMENT "${DRI_MPI_TEST_ENV};MPIR_CVAR_NUM_CLIQUES=${k}")
  endforeach()
endfunction()

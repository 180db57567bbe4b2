# dri_all_but_tests: a target that builds every library and program of the
# project except those of tests/. tools/test.sh's MPI-3 stage builds it
# with the few test programs that stage runs: all the code that a missing
# optional component changes (bench, examples, tools) is still compiled with
# warnings as errors, without compiling the whole test suite a second time.
function(dri_collect_targets dir out)
  get_property(found DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  set(kept "")
  foreach(t IN LISTS found)
    get_target_property(type ${t} TYPE)
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      list(APPEND kept ${t})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    if(NOT sub STREQUAL "${PROJECT_SOURCE_DIR}/tests")
      dri_collect_targets(${sub} more)
      list(APPEND kept ${more})
    endif()
  endforeach()
  set(${out} ${kept} PARENT_SCOPE)
endfunction()

dri_collect_targets(${PROJECT_SOURCE_DIR} dri_targets_but_tests)
add_custom_target(dri_all_but_tests)
if(dri_targets_but_tests)
  add_dependencies(dri_all_but_tests ${dri_targets_but_tests})
endif()

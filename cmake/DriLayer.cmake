# dri_layer(name globs...): one layer of libdri (docs/architecture.md) as an
# object library of the files the globs find under the calling folder, which
# is also the root its includes are written from: src/ ("core/plan.hpp") and
# backends/ ("mpi/interface.hpp"). A layer's files are its folder's: adding
# a file needs no edit. Hidden by default: libdri exports only what dri.h,
# dri10.h and dri.hpp declare (DRI_API), checked by the exported-symbol test.
function(dri_layer name)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${ARGN})
  add_library(${name} OBJECT ${sources})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${name} PRIVATE dri_warnings)
endfunction()

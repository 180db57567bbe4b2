# Debian packages of dri, with CPack's DEB generator: one package per
# install component, after Debian's lib/dev convention. tools/package.sh
# builds them (in a build configured with -DCMAKE_INSTALL_PREFIX=/usr, so
# that the library goes to lib/<multiarch> and the Python package to
# Debian's lib/python3/dist-packages) and runs lintian on them;
# tests/package/run.sh installs them into a scratch root and builds and runs
# programs against that install.
#
#   component  package                  what
#   lib        libdri<major>            libdri.so.<major>, the shared library
#   dev        libdri-dev               headers, libdri.so, CMake package, dri.pc
#   tools      dri-tools                dri-bench (with its lib/<multiarch>/dri/libdri-message-count.so), dri-plan
#   python     python3-dri              the Python package dri
#
# Every install() rule of the project names one of these components:
# configuring fails when one does not (or names another), so that no
# installed file can be left out of the packages unnoticed. Included at the
# end of the top-level CMakeLists.txt, after every install() rule.

set(DRI_PACKAGE_COMPONENTS lib dev tools python)
get_cmake_property(dri_installed_components COMPONENTS)
foreach(component IN LISTS dri_installed_components)
  if(NOT component IN_LIST DRI_PACKAGE_COMPONENTS)
    message(FATAL_ERROR "dri: an install() rule puts files in the component '${component}'; "
      "every install() rule must name one of: ${DRI_PACKAGE_COMPONENTS} (cmake/DriPackage.cmake "
      "makes one Debian package of each)")
  endif()
endforeach()

# CPack only for dri's own build, not when dri is a subproject of another.
if(NOT PROJECT_IS_TOP_LEVEL)
  return()
endif()

set(DRI_DEB_LIB_PACKAGE libdri${PROJECT_VERSION_MAJOR})
set(DRI_PACKAGE_MAINTAINER "dri maintainers <maintainers@users.noreply.a-seed-10da9ef8.example>"
  CACHE STRING "Maintainer field of the Debian packages")

# The MPI library's Debian packages: run time from dpkg-shlibdeps, the
# development package and the launcher named here.
if(MPI_C_COMPILER MATCHES "openmpi")
  set(DRI_DEB_MPI_DEV libopenmpi-dev)
  set(DRI_DEB_MPI_RUN openmpi-bin)
else()
  set(DRI_DEB_MPI_DEV libmpich-dev)
  set(DRI_DEB_MPI_RUN mpich)
endif()

# Files only the packages have (EXCLUDE_FROM_ALL: CPack installs each
# component by name; `cmake --install` of the whole project leaves them
# out): each package's copyright and changelog.Debian.gz, and lintian
# overrides where packaging/debian/ has them.
string(TIMESTAMP dri_deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(dri_deb_doc ${PROJECT_BINARY_DIR}/debian-doc)
file(MAKE_DIRECTORY ${dri_deb_doc})
# (Texts with a ';' are written with string(CONCAT): a list would lose it.)
string(CONCAT dri_deb_changelog "dri (${PROJECT_VERSION}-1) unstable; urgency=medium\n\n"
  "  * Built from the dri source tree with tools/package.sh (CPack).\n\n"
  " -- ${DRI_PACKAGE_MAINTAINER}  ${dri_deb_date}\n")
file(WRITE ${dri_deb_doc}/changelog.Debian "${dri_deb_changelog}")
find_program(DRI_GZIP gzip REQUIRED)
# -n: no name or time stamp in the header (reproducible, as lintian wants).
execute_process(COMMAND ${DRI_GZIP} -9nf ${dri_deb_doc}/changelog.Debian COMMAND_ERROR_IS_FATAL ANY)

set(dri_package_lib ${DRI_DEB_LIB_PACKAGE})
set(dri_package_dev libdri-dev)
set(dri_package_tools dri-tools)
set(dri_package_python python3-dri)
foreach(component IN LISTS DRI_PACKAGE_COMPONENTS)
  set(package ${dri_package_${component}})
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright ${dri_deb_doc}/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component} EXCLUDE_FROM_ALL)
  if(EXISTS ${PROJECT_SOURCE_DIR}/packaging/debian/${component}.lintian-overrides)
    install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/${component}.lintian-overrides
      DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME ${package}
      COMPONENT ${component} EXCLUDE_FROM_ALL)
  endif()
endforeach()

# The packages to build: the components this build installs.
set(CPACK_COMPONENTS_ALL "")
foreach(component IN LISTS DRI_PACKAGE_COMPONENTS)
  if(component IN_LIST dri_installed_components)
    list(APPEND CPACK_COMPONENTS_ALL ${component})
  endif()
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_PACKAGE_NAME dri)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${DRI_PACKAGE_MAINTAINER}")
# CPack prepends the project's one summary to every component's
# description unless the summary is its own default: each package has its
# own summary line instead (the first line of its description below).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps resolves libdri.so.<major> (needed by the tools and the
# Python module, packaged in libdri<major>) in the build tree; the
# dependency on libdri<major> itself is the component dependency below.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# The ABI guard keeps a major version compatible: any later 1.x will do.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

# CPack indents each line of a description and writes an empty one as " .".
string(CONCAT dri_deb_about
  "dri implements the DARPA Data Reorganization Interface (DRI) over MPI:\n"
  "describe a global multi-dimensional array, how it is partitioned over\n"
  "processes and how each process stores its block; dri plans the\n"
  "redistribution (a corner turn, the transpose of a parallel FFT, a pencil\n"
  "reshape) once and executes it as often as needed.\n\n")

set(CPACK_DEBIAN_LIB_PACKAGE_NAME ${DRI_DEB_LIB_PACKAGE})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
string(CONCAT CPACK_DEBIAN_LIB_DESCRIPTION "Data Reorganization Interface over MPI - shared library\n"
  "${dri_deb_about}This package contains the shared library.")
# A shared library in the linker's directories triggers ldconfig.
file(WRITE ${dri_deb_doc}/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA ${dri_deb_doc}/triggers)
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libdri-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS lib)
# dri.pc requires mpich.pc, dri's CMake package finds MPI through its wrappers.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS ${DRI_DEB_MPI_DEV})
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION "Data Reorganization Interface over MPI - development files\n"
  "${dri_deb_about}This package contains the C and C++ headers, the CMake package\n"
  "(find_package(dri)) and the pkg-config file.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME dri-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION science)
set(CPACK_COMPONENT_TOOLS_DEPENDS lib)
set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS ${DRI_DEB_MPI_RUN})
string(CONCAT CPACK_DEBIAN_TOOLS_DESCRIPTION "Data Reorganization Interface over MPI - tools\n"
  "${dri_deb_about}This package contains dri-bench, which times any redistribution\n"
  "with dri against hand-written MPI baselines, and dri-plan, which prints\n"
  "a redistribution's plan.")

# The module is built for one Python (its extension's file name says which)
# and, with NumPy's C headers, for one NumPy ABI: the dependencies dh_python3
# and dh_numpy3 would write.
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-dri)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_COMPONENT_PYTHON_DEPENDS lib)
if(TARGET dri_python)
  math(EXPR dri_python_next "${Python3_VERSION_MINOR} + 1")
  set(dri_python_depends
    "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}~)"
    "python3 (<< ${Python3_VERSION_MAJOR}.${dri_python_next})")
  get_target_property(dri_python_defs dri_python COMPILE_DEFINITIONS)
  set(dri_numpy "python3-numpy")
  if("DRI_NUMPY_HEADERS=1" IN_LIST dri_python_defs AND EXISTS /usr/share/numpy3/versions)
    file(STRINGS /usr/share/numpy3/versions dri_numpy_abi REGEX "^abi ")
    file(STRINGS /usr/share/numpy3/versions dri_numpy_min REGEX "^api-min-version ")
    string(REPLACE "abi " "" dri_numpy_abi "${dri_numpy_abi}")
    string(REPLACE "api-min-version " "" dri_numpy_min "${dri_numpy_min}")
    set(dri_numpy "python3-numpy (>= ${dri_numpy_min})" "python3-numpy-abi${dri_numpy_abi}")
  endif()
  list(APPEND dri_python_depends ${dri_numpy})
  list(JOIN dri_python_depends ", " CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS)
endif()
set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS ${DRI_DEB_MPI_RUN})
string(CONCAT CPACK_DEBIAN_PYTHON_DESCRIPTION "Data Reorganization Interface over MPI - Python 3 module\n"
  "${dri_deb_about}This package contains the Python module dri: NumPy arrays as the\n"
  "transfers' buffers, without copies.")

# cpack reads this file when it runs: it refuses a build whose install
# layout is not Debian's.
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/DriCPackProject.cmake)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr" AND BUILD_SHARED_LIBS)
  file(WRITE ${CPACK_PROJECT_CONFIG_FILE} "# This build has Debian's layout.\n")
else()
  file(WRITE ${CPACK_PROJECT_CONFIG_FILE}
    "message(FATAL_ERROR \"dri's Debian packages need a shared library built with \"\n"
    "  \"-DCMAKE_INSTALL_PREFIX=/usr (tools/package.sh configures it so); this build has \"\n"
    "  \"CMAKE_INSTALL_PREFIX=${CMAKE_INSTALL_PREFIX}, BUILD_SHARED_LIBS=${BUILD_SHARED_LIBS}\")\n")
endif()

include(CPack)

# What the packages hold, to build before cpack (tools/package.sh).
add_custom_target(dri_packaged)
foreach(target IN ITEMS dri dri-bench dri-message-count dri-plan dri_python)
  if(TARGET ${target})
    add_dependencies(dri_packaged ${target})
  endif()
endforeach()

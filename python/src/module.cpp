// The extension module dri._dri; the package dri (dri/__init__.py) re-exports
// it with the Python-only parts (dri.Error, dri.Session, mpi4py checks).
#include "binding.hpp"

// The version the build gives (CMake's project version, libdri's soname) and
// dri.h's must be one.
static_assert(DRI_PROJECT_VERSION_MAJOR == DRI_VERSION_MAJOR &&
                  DRI_PROJECT_VERSION_MINOR == DRI_VERSION_MINOR,
              "project() version in CMakeLists.txt and DRI_VERSION_* in dri.h differ");

PYBIND11_MODULE(_dri, m) {
    namespace python = dri::python;
    m.doc() = "dri: the Data Reorganization Interface over MPI (C++ extension)";
    python::bind_errors(m);
    python::bind_comm(m);
    python::bind_objects(m);
    python::bind_transfer(m);
    python::bind_shared_memory(m);
    python::bind_numpy_memory(m);
    m.attr("__version__") = DRI_PROJECT_VERSION;
    m.def(
        "kernel_tuning", [] { return dri::kernel_tuning(); },
        "The copy kernels' parameters in use and how they were chosen, one line "
        "(measured at this process's first commit, or by this call when none has, unless "
        "DRI_KERNEL_TUNING=off or DRI_KERNEL_PARAMS says otherwise; docs/api.md, "
        "\"Kernel parameters\").");
}

// The extension module dri._dri; the package dri (dri/__init__.py) re-exports
// it with the Python-only parts (dri.Error, dri.Session, mpi4py checks).
#include "binding.hpp"

PYBIND11_MODULE(_dri, m) {
    namespace python = dri::python;
    m.doc() = "dri: the Data Reorganization Interface over MPI (C++ extension)";
    python::bind_errors(m);
    python::bind_comm(m);
    python::bind_objects(m);
    python::bind_transfer(m);
    python::bind_shared_memory(m);
    python::bind_numpy_memory(m);
    // The libdri loaded (dri::version()): CMake's project() version.
    m.attr("__version__") = dri::version().to_string();
    m.def(
        "kernel_tuning", [] { return dri::kernel_tuning(); },
        "The copy kernels' parameters in use and how they were chosen, one line "
        "(measured at this process's first commit, or by this call when none has, unless "
        "DRI_KERNEL_TUNING=off or DRI_KERNEL_PARAMS says otherwise; docs/api.md, "
        "\"Kernel parameters\").");
}

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
}

// dri::Error becomes dri.Error (defined in dri/_errors.py) with the same code
// and message; the DRI_ERR_* codes are module constants.
#include "binding.hpp"

#include <iterator>

namespace dri::python {

namespace {

struct CodeName {
    int code;
    const char* name;
};

// Every DRI_ERR_* code of dri.h under its Python name (dri.ERR_TYPE ...).
constexpr CodeName codes[] = {
    {DRI_SUCCESS, "SUCCESS"},
    {DRI_ERR_ARG, "ERR_ARG"},
    {DRI_ERR_NULL, "ERR_NULL"},
    {DRI_ERR_HANDLE, "ERR_HANDLE"},
    {DRI_ERR_NDIMS, "ERR_NDIMS"},
    {DRI_ERR_EXTENT, "ERR_EXTENT"},
    {DRI_ERR_OVERFLOW, "ERR_OVERFLOW"},
    {DRI_ERR_TYPE, "ERR_TYPE"},
    {DRI_ERR_PARTITION, "ERR_PARTITION"},
    {DRI_ERR_OVERLAP, "ERR_OVERLAP"},
    {DRI_ERR_MINMAX, "ERR_MINMAX"},
    {DRI_ERR_GRID, "ERR_GRID"},
    {DRI_ERR_LAYOUT, "ERR_LAYOUT"},
    {DRI_ERR_NOT_DISJOINT, "ERR_NOT_DISJOINT"},
    {DRI_ERR_NOT_COVERING, "ERR_NOT_COVERING"},
    {DRI_ERR_MISMATCH, "ERR_MISMATCH"},
    {DRI_ERR_NO_PARTNER, "ERR_NO_PARTNER"},
    {DRI_ERR_DUPLICATE, "ERR_DUPLICATE"},
    {DRI_ERR_BUFFER, "ERR_BUFFER"},
    {DRI_ERR_BUFFER_SIZE, "ERR_BUFFER_SIZE"},
    {DRI_ERR_BUFFER_COUNT, "ERR_BUFFER_COUNT"},
    {DRI_ERR_STATE, "ERR_STATE"},
    {DRI_ERR_NOT_INITIALIZED, "ERR_NOT_INITIALIZED"},
    {DRI_ERR_GROUP, "ERR_GROUP"},
    {DRI_ERR_INCONSISTENT, "ERR_INCONSISTENT"},
    {DRI_ERR_MPI, "ERR_MPI"},
    {DRI_ERR_NO_MEMORY, "ERR_NO_MEMORY"},
    {DRI_ERR_INTERNAL, "ERR_INTERNAL"},
    {DRI_ERR_STRATEGY, "ERR_STRATEGY"},
};
static_assert(std::size(codes) == DRI_ERR_STRATEGY + 1, "one entry per DRI_ERR_* code");

// Raises dri.Error(code, message). The class is looked up on each error
// (errors are rare) so that the module holds no Python object past the
// interpreter's teardown.
void raise(const Error& e) {
    const py::object cls = py::module_::import("dri._errors").attr("Error");
    const py::object err = cls(static_cast<int>(e.code()), e.what());
    PyErr_SetObject(cls.ptr(), err.ptr());
}

} // namespace

void bind_errors(py::module_& m) {
    py::dict names;
    for (const CodeName& c : codes) {
        m.attr(c.name) = c.code;
        names[py::int_(c.code)] = std::string("DRI_") + c.name;
    }
    m.attr("_ERROR_NAMES") = names;
    m.def(
        "error_string", [](int code) { return std::string(DRI_Error_string(code)); },
        py::arg("code"), "The description of a DRI_ERR_* code (DRI_Error_string).");
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Error& e) {
            raise(e);
        }
    });
}

} // namespace dri::python

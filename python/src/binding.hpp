// What the Python binding's translation units share: the Python-side objects
// (a C++ dri object plus what Python needs beside it) and the conversions
// from Python arguments. The binding is a skin over dri.hpp: no planning
// here, only argument conversion and the checks of NumPy arrays.
#pragma once

#include <dri/dri.hpp>

#include <mpi.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>

namespace dri::python {

namespace py = pybind11;

// One bind_* per translation unit, called in this order by module.cpp.
void bind_errors(py::module_& m);
void bind_comm(py::module_& m);
void bind_objects(py::module_& m);
void bind_transfer(py::module_& m);
void bind_shared_memory(py::module_& m);
void bind_numpy_memory(py::module_& m);

// --- communicators (comm.cpp) ---------------------------------------------

/// A communicator handed in from Python. `owner` is the Python object the
/// handle came from (an mpi4py communicator): kept alive by whatever uses
/// the handle, since dri borrows parent communicators.
struct Comm {
    MPI_Comm handle = MPI_COMM_NULL;
    py::object owner;
};

/// dri.Comm or an mpi4py.MPI.Comm of the same MPI library; anything else is
/// a dri.Error (DRI_ERR_ARG) naming what was passed.
Comm to_comm(py::handle obj);
/// MPI_Get_library_version of the MPI this module is linked with.
std::string mpi_library_version();
/// Collective over comm, for checks the binding makes between two
/// collectives of one call: `mine` (this process's refusal, if any) becomes
/// the same dri.Error on every process, prefixed with the first refusing
/// rank ("rank 2: ..."), so that none goes on into the next collective alone.
void agree(MPI_Comm comm, const std::optional<Error>& mine);

// --- element types (element_type.cpp) -------------------------------------

/// The NumPy dtype of a dri element type; records are void dtypes "V<n>".
py::dtype dtype_of(Type type);
/// A GlobalData of `extents` whose element type is given as a dri.Type or
/// anything numpy.dtype() accepts (a void or structured dtype is a record).
GlobalData global_data(std::vector<Index> extents, py::handle type);
/// The predefined element type given as a dri.Type or a numeric NumPy
/// dtype; a record is refused (DRI_ERR_TYPE) naming `what` took it.
Type element_type(py::handle type, const std::string& what);
/// A hint for an array of dtype `have` where `want` is needed: the view that
/// reinterprets the same bytes when the sizes agree, else "".
std::string dtype_hint(const py::dtype& have, const py::dtype& want);

// --- objects (objects.cpp) ------------------------------------------------

struct PyGlobalData {
    GlobalData data;
    py::dtype dtype;
};

struct PyGroup {
    Group group;
    py::object comm_owner;
};

struct PyDistribution {
    Distribution dist;
    py::dtype dtype;
    py::object comm_owner; ///< the parent communicator's Python object
};

/// The block of the calling process (or of member `index`). A box
/// distribution's block is one dimension: its cells, its boxes one after
/// another (docs/concepts.md, "Box partitions").
BlockInfo block_of(const PyDistribution& d, const Layout& layout, std::optional<int> index);

// --- NumPy arrays as ring buffers (arrays.cpp) ----------------------------

/// The bytes of `array` as the buffer of `block`, after checking that it can
/// hold the block in place: an ndarray of `dtype` (DRI_ERR_TYPE), the
/// block's shape (DRI_ERR_BUFFER_SIZE), its strides (DRI_ERR_LAYOUT),
/// writable when dri writes into it (DRI_ERR_BUFFER), and `block.bytes` of
/// memory from its first element (DRI_ERR_BUFFER_SIZE). `what` names the
/// buffer in messages.
std::span<std::byte> block_bytes(py::handle array, const BlockInfo& block, const py::dtype& dtype,
                                 bool writable, const std::string& what);
/// A ring argument as a tuple: a list or tuple of arrays. Anything else is a
/// dri.Error (DRI_ERR_BUFFER) saying so; a single ndarray above all, which
/// Python would otherwise take as the sequence of its rows. `what` names the
/// ring ("send buffers").
py::tuple ring_of(py::handle arrays, const std::string& what);
/// A new array holding `block` in node shared memory (shared_memory.cpp;
/// its memory is `block.bytes`, padding included), zero-filled or not.
py::array block_array(const BlockInfo& block, const py::dtype& dtype, bool zero);
/// A view of `block` on `base` (whose memory must hold block.bytes) kept
/// alive by `owner`.
py::array block_view(const BlockInfo& block, const py::dtype& dtype, std::byte* base,
                     py::handle owner);

} // namespace dri::python

// dri.SharedMemory: node shared memory (DRI_Alloc_mem) seen as NumPy arrays,
// so that send rings living there let Strategy.SHARED copy every byte once.
//
// Freeing is collective, so it never happens behind the program's back:
// free() (or leaving a `with` block) frees; garbage collection does not
// (a collective cannot run from a destructor called at different times on
// different ranks), and dri's finalize frees what is left. free() is refused
// on every rank while an array on any rank still views the memory.
#include "binding.hpp"

#include <pybind11/stl.h>

namespace dri::python {

namespace {

struct Allocation {
    Comm comm;
    void* base = nullptr;
    Index bytes = 0;
};

void check(int rc) {
    if (rc != DRI_SUCCESS) throw Error(static_cast<Errc>(rc), DRI_Last_error_message());
}

class PySharedMemory {
  public:
    PySharedMemory(py::handle comm, Index bytes) : a_(std::make_shared<Allocation>()) {
        a_->comm = to_comm(comm);
        a_->bytes = bytes;
        py::gil_scoped_release release;
        check(DRI_Alloc_mem(a_->comm.handle, bytes, &a_->base));
    }

    Index size() const { return a_->base ? a_->bytes : 0; }

    // The memory as a flat array of `dtype` (as many elements as fit).
    py::array as_array(py::handle dtype) {
        const py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
        BlockInfo flat;
        flat.local_extent = {memory().bytes / dt.itemsize()};
        flat.strides = {1};
        flat.bytes = memory().bytes;
        return block_view(flat, dt, static_cast<std::byte*>(a_->base), owner());
    }

    // This process's block of `dist` under `layout`, at the start of the memory.
    py::array as_block(const PyDistribution& d, const Layout& layout) {
        const BlockInfo b = d.dist.block(layout);
        if (b.bytes > memory().bytes)
            throw Error(Errc::buffer_size, "SharedMemory of " + std::to_string(memory().bytes) +
                                               " bytes, the block needs " +
                                               std::to_string(b.bytes));
        return block_view(b, d.dtype, static_cast<std::byte*>(a_->base), owner());
    }

    void free() {
        if (!initialized())
            throw Error(Errc::not_initialized, "SharedMemory.free: dri is not initialized");
        const Allocation& a = memory();
        const int busy = agree_busy(a.comm.handle);
        if (busy >= 0)
            throw Error(Errc::state,
                        "SharedMemory.free: arrays (or a transfer holding them) still view the "
                        "memory on rank " +
                            std::to_string(busy) + "; delete them first");
        {
            py::gil_scoped_release release;
            check(DRI_Free_mem(a.comm.handle, a.base));
        }
        a_->base = nullptr;
    }

  private:
    const Allocation& memory() const {
        if (!a_->base) throw Error(Errc::state, "SharedMemory: already freed");
        return *a_;
    }

    // Each array holds a reference to the allocation in its capsule.
    py::capsule owner() {
        auto* ref = new std::shared_ptr<Allocation>(a_);
        return py::capsule(ref,
                           [](void* p) { delete static_cast<std::shared_ptr<Allocation>*>(p); });
    }

    // The lowest rank on which arrays still view the memory, -1 if none (on
    // every rank: the refusal must be collective, like DRI_Free_mem's).
    int agree_busy(MPI_Comm comm) const {
        int rank = 0, size = 0;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        int mine = a_.use_count() > 1 ? rank : size, lowest = size;
        if (MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
            throw Error(Errc::mpi, "SharedMemory.free: MPI_Allreduce failed");
        return lowest < size ? lowest : -1;
    }

    std::shared_ptr<Allocation> a_;
};

} // namespace

void bind_shared_memory(py::module_& m) {
    py::class_<PySharedMemory>(m, "SharedMemory",
                               "Node shared memory (DRI_Alloc_mem); collective over comm.")
        .def(py::init<py::handle, Index>(), py::arg("comm"), py::arg("bytes"))
        .def_property_readonly("size", &PySharedMemory::size)
        .def("as_array", &PySharedMemory::as_array, py::arg("dtype") = py::dtype("uint8"),
             "The memory as a flat NumPy array of dtype.")
        .def("as_block", &PySharedMemory::as_block, py::arg("dist"), py::arg("layout"),
             "The memory as this process's block of dist under layout.")
        .def("free", &PySharedMemory::free,
             "Collective: free the memory (refused while arrays view it).")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](PySharedMemory& s, py::args) { s.free(); });
}

} // namespace dri::python

// Node shared memory (DRI_Alloc_mem) as NumPy arrays: dri.empty, dri.zeros,
// dri.empty_like, Distribution.empty, and dri.SharedMemory. Send rings living
// there let AUTO pick the single copy (every byte copied once).
//
// Allocation and release are local calls of one process, so the memory goes
// with the last reference to it, as any NumPy array's does: each array holds
// its allocation in its base capsule. Memory a committed transfer still uses
// is released when the last such transfer is destroyed.
#include "binding.hpp"

#include <pybind11/stl.h>

#include <new>

namespace dri::python {

namespace {

// Owns one allocation; arrays viewing it hold it through their capsule.
struct Allocation {
    explicit Allocation(Index size)
        : base(static_cast<std::byte*>(SharedMemory::allocate(static_cast<std::size_t>(size)))),
          bytes(size) {}
    ~Allocation() { SharedMemory::deallocate(base); }
    Allocation(const Allocation&) = delete;
    Allocation& operator=(const Allocation&) = delete;
    std::byte* base;
    Index bytes;
};

py::capsule hold(std::shared_ptr<Allocation> a) {
    auto* ref = new std::shared_ptr<Allocation>(std::move(a));
    return py::capsule(ref, [](void* p) { delete static_cast<std::shared_ptr<Allocation>*>(p); });
}

std::vector<py::ssize_t> shape_of(py::handle shape) {
    std::vector<py::ssize_t> out;
    if (py::isinstance<py::int_>(shape)) return {shape.cast<py::ssize_t>()};
    for (py::handle e : shape)
        out.push_back(e.cast<py::ssize_t>());
    for (py::ssize_t e : out)
        if (e < 0) throw Error(Errc::arg, "negative dimension " + std::to_string(e));
    return out;
}

// A new array of `shape` in node shared memory, C or Fortran order. Fresh
// memory reads as zeros, so zeros() needs no pass over it.
py::array shared_array(py::handle shape, py::handle dtype, const std::string& order) {
    if (order != "C" && order != "F") throw Error(Errc::arg, "order must be 'C' or 'F'");
    const py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
    const std::vector<py::ssize_t> ext = shape_of(shape);
    std::vector<py::ssize_t> strides(ext.size());
    Index elems = 1;
    for (std::size_t k = 0; k < ext.size(); ++k) {
        const std::size_t d = order == "C" ? ext.size() - 1 - k : k;
        strides[d] = static_cast<py::ssize_t>(elems * dt.itemsize());
        if (ext[d] > 0 && elems > INT64_MAX / ext[d] / dt.itemsize())
            throw Error(Errc::overflow, "the array's size does not fit in 63 bits");
        elems *= ext[d];
    }
    auto a = std::make_shared<Allocation>(elems * dt.itemsize());
    std::byte* base = a->base;
    return py::array(dt, ext, strides, base, hold(std::move(a)));
}

class PySharedMemory {
  public:
    explicit PySharedMemory(Index bytes) {
        if (bytes < 0) throw Error(Errc::arg, "SharedMemory: negative size");
        a_ = std::make_shared<Allocation>(bytes);
    }

    Index size() const { return a_ ? a_->bytes : 0; }

    // The memory as a flat array of `dtype` (as many elements as fit).
    py::array as_array(py::handle dtype) {
        const py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
        BlockInfo flat;
        flat.local_extent = {memory().bytes / dt.itemsize()};
        flat.strides = {1};
        flat.bytes = memory().bytes;
        return block_view(flat, dt, memory().base, hold(a_));
    }

    // This process's block of `dist` under `layout`, at the start of the memory.
    py::array as_block(const PyDistribution& d, const Layout& layout) {
        const BlockInfo b = block_of(d, layout, std::nullopt);
        if (b.bytes > memory().bytes)
            throw Error(Errc::buffer_size, "SharedMemory of " + std::to_string(memory().bytes) +
                                               " bytes, the block needs " +
                                               std::to_string(b.bytes));
        return block_view(b, d.dtype, memory().base, hold(a_));
    }

    // Local: frees now, refused while arrays still view the memory (then it
    // goes with the last of them).
    void free() {
        // Freeing twice is ERR_ARG, as DRI_Free_mem's (docs/errors.md).
        if (!a_) throw Error(Errc::arg, "SharedMemory.free: already freed");
        if (a_.use_count() > 1)
            throw Error(Errc::state, "SharedMemory.free: arrays (or a transfer holding them) "
                                     "still view the memory; it is freed with the last of them");
        a_.reset();
    }

  private:
    const Allocation& memory() const {
        if (!a_) throw Error(Errc::state, "SharedMemory: already freed");
        return *a_;
    }

    std::shared_ptr<Allocation> a_;
};

} // namespace

py::array block_array(const BlockInfo& b, const py::dtype& dtype, bool /*zero: fresh memory*/) {
    auto a = std::make_shared<Allocation>(b.bytes);
    std::byte* base = a->base;
    return block_view(b, dtype, base, hold(std::move(a)));
}

void bind_shared_memory(py::module_& m) {
    m.def("empty", &shared_array, py::arg("shape"), py::arg("dtype") = py::dtype("float64"),
          py::arg("order") = "C",
          "A new NumPy array in node shared memory (uninitialized, page aligned). As send "
          "buffers, such arrays let receivers on the same node read them directly: AUTO picks "
          "the single copy. Freed with its last reference.");
    m.def(
        "zeros",
        [](py::handle shape, py::handle dtype, const std::string& order) {
            return shared_array(shape, dtype, order);
        },
        py::arg("shape"), py::arg("dtype") = py::dtype("float64"), py::arg("order") = "C",
        "As dri.empty, zero-filled.");
    m.def(
        "empty_like",
        [](const py::array& a) {
            return shared_array(
                py::tuple(py::cast(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()))),
                a.dtype(), "C");
        },
        py::arg("a"), "As dri.empty, with the shape and dtype of `a` (C order).");
    py::class_<PySharedMemory>(
        m, "SharedMemory",
        "`bytes` of node shared memory (DRI_Alloc_mem), allocated by this process alone. "
        "Arrays on it as send buffers give AUTO the single copy; it is freed by free() or "
        "with the last array viewing it.")
        .def(py::init<Index>(), py::arg("bytes"))
        .def_property_readonly("size", &PySharedMemory::size, "Bytes of the memory; 0 once freed.")
        .def("as_array", &PySharedMemory::as_array, py::arg("dtype") = py::dtype("uint8"),
             "The memory as a flat NumPy array of dtype.")
        .def("as_block", &PySharedMemory::as_block, py::arg("dist"), py::arg("layout"),
             "The memory as this process's block of dist under layout.")
        .def("free", &PySharedMemory::free,
             "Free now (refused while arrays view it; it goes with the last of them anyway).")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](PySharedMemory& s, py::args) { s.free(); });
}

} // namespace dri::python

// dri.shared_arrays: a NumPy data memory handler (NEP 49) that puts NumPy's
// large arrays in node shared memory, where dri.empty puts its arrays. Code
// that allocates with np.empty (mpi4py-fft) then hands dri send buffers that
// AUTO moves by the single copy, with no change to that code.
//
// NumPy keeps the current handler in a context variable and a reference to
// the handler capsule in every array it allocates: an array is freed through
// the handler that made it, after that handler stopped being current. Each
// capsule owns its PyDataMem_Handler and the threshold it points to.
//
// An allocation of node shared memory is a local call of this process, and
// so is its release: no MPI and no DRI_Init are needed for either (dri's
// SharedMemory::allocate / deallocate), so arrays made before dri.init() or
// dying after MPI_Finalize, at interpreter exit, are allocated and freed
// like any other.
//
// The blocks live in shared_blocks (shared_block_cache.cpp), which keeps
// those NumPy frees in a bounded cache, mapped and faulted in, for the next
// array of their size: temporaries made in a loop then cost about what
// NumPy's heap does, where a fresh memory file per array cost 20-30x.
#include "binding.hpp"
#include "shared_block_cache.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#if defined(DRI_NUMPY_HEADERS)
#include <numpy/numpyconfig.h>
#if defined(NPY_1_22_API_VERSION) // the handler API (PyDataMem_SetHandler)
#define DRI_NUMPY_HANDLER 1
#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>
#endif
#endif

namespace dri::python {

namespace {

// 1 MiB. A fresh shared block costs a memory file and a page fault per 4 KiB
// at its first write: np.empty + first write + free measured ~18 us + 0.7 us
// per KiB against NumPy's reused heap at 0.02 us per KiB (2 vCPU EPYC VM:
// 1 MiB 0.55-0.9 ms vs 0.012-0.019 ms; 16 MiB 10-16 vs 0.2-0.7). The cache
// of freed blocks (shared_block_cache.cpp) takes that cost off temporaries
// made again and again at one size, not off arrays of ever new sizes, and
// every live shared array holds a descriptor. Shared memory pays off for
// arrays sent again and again (a 1 MiB corner turn at 2 ranks: 57 us SHARED
// vs 383 us P2P per execute): a program's bulk data, arrays of 1 MiB and
// more, not the small temporaries NumPy code makes by the thousand.
constexpr Index default_min_bytes = Index{1} << 20;

#if defined(DRI_NUMPY_HANDLER)

struct Context {
    std::size_t min_bytes;
};

// One capsule's handler: NumPy reads `numpy` (the capsule's pointer, first
// member), whose allocator's ctx is `ctx`.
struct Handler {
    PyDataMem_Handler numpy;
    Context ctx;
};

// --- the allocator: noexcept C callbacks, nullptr for NumPy's MemoryError ---

// Large arrays go to shared_blocks: a cached block of their size or a fresh
// one (private memory where dri cannot make a memory file: DRI_SHARED_MEMORY
// =off, descriptors exhausted; ours all the same, as dri.empty's would be).
// A reused block is zeroed for calloc; fresh shared memory reads as zeros.
// Sizes of 0 get one byte: a null return would be NumPy's MemoryError.
void* allocate(void* ctx, std::size_t bytes, bool zero) noexcept {
    if (bytes >= static_cast<const Context*>(ctx)->min_bytes)
        return shared_blocks::take(bytes, zero);
    return zero ? std::calloc(bytes ? bytes : 1, 1) : std::malloc(bytes ? bytes : 1);
}

void* handler_malloc(void* ctx, std::size_t bytes) noexcept {
    return allocate(ctx, bytes, false);
}

void* handler_calloc(void* ctx, std::size_t count, std::size_t size) noexcept {
    if (size != 0 && count > SIZE_MAX / size) return nullptr;
    return allocate(ctx, count * size, true);
}

// A block of ours goes back to the cache (or is released); no array, and so
// no transfer, holds it any more (shared_block_cache.cpp).
void release(void* p) noexcept {
    if (!shared_blocks::give_back(p)) std::free(p);
}

// Ours moves to a new block chosen by the same threshold (a memory file
// cannot grow in place); anything else is the C library's.
void* handler_realloc(void* ctx, void* p, std::size_t bytes) noexcept {
    if (!p) return allocate(ctx, bytes, false);
    std::size_t old = 0;
    if (!shared_blocks::size_of(p, old)) return std::realloc(p, bytes ? bytes : 1);
    void* q = allocate(ctx, bytes, false);
    if (!q) return nullptr; // the old block stays valid, as realloc's
    std::memcpy(q, p, std::min(old, bytes));
    release(p);
    return q;
}

void handler_free(void* /*ctx*/, void* p, std::size_t /*size*/) noexcept {
    if (p) release(p);
}

// --- capsules ------------------------------------------------------------

constexpr char capsule_name[] = "mem_handler"; // NumPy's name for handler capsules
constexpr char handler_name[] = "dri_shared_arrays";

void destroy_handler(PyObject* capsule) {
    void* p = PyCapsule_GetPointer(capsule, capsule_name);
    if (!p) PyErr_Clear(); // a destructor cannot raise
    delete reinterpret_cast<Handler*>(p);
}

// NumPy's C API, imported on first use rather than at `import dri`; a NumPy
// this module was not built for is a dri.Error then, not an import failure.
void need_numpy() {
    static bool tried = false;
    static std::string failure;
    if (!tried) {
        tried = true;
        if (_import_array() < 0) failure = py::error_already_set().what();
    }
    if (!failure.empty())
        throw Error(Errc::state, "dri.shared_arrays: NumPy's C API cannot be loaded: " + failure);
}

py::object make_handler(Index min_bytes) {
    need_numpy();
    if (min_bytes < 0)
        throw Error(Errc::arg, "min_bytes must be >= 0, not " + std::to_string(min_bytes));
    auto h = std::make_unique<Handler>();
    std::memcpy(h->numpy.name, handler_name, sizeof handler_name);
    h->numpy.version = 1;
    h->ctx.min_bytes = static_cast<std::size_t>(min_bytes);
    h->numpy.allocator = {&h->ctx, handler_malloc, handler_calloc, handler_realloc, handler_free};
    PyObject* capsule = PyCapsule_New(&h->numpy, capsule_name, destroy_handler);
    if (!capsule) throw py::error_already_set();
    h.release(); // the capsule's now
    return py::reinterpret_steal<py::object>(capsule);
}

// Makes `handler` (None: NumPy's default) current; gives the previous one.
py::object set_handler(py::handle handler) {
    need_numpy();
    PyObject* previous = PyDataMem_SetHandler(handler.is_none() ? nullptr : handler.ptr());
    if (!previous) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(previous);
}

bool enabled() {
    need_numpy();
    const auto current = py::reinterpret_steal<py::object>(PyDataMem_GetHandler());
    if (!current) throw py::error_already_set();
    const auto* h =
        static_cast<const PyDataMem_Handler*>(PyCapsule_GetPointer(current.ptr(), capsule_name));
    if (!h) throw py::error_already_set();
    return h->allocator.malloc == &handler_malloc;
}

#else // built without NumPy's headers: the API is there and says so

[[noreturn]] void no_numpy() {
    throw Error(Errc::state, "dri.shared_arrays: this dri module was built without NumPy's C "
                             "headers (numpy/arrayobject.h of NumPy >= 1.22); rebuild it with "
                             "NumPy installed for its interpreter");
}
void need_numpy() {
    no_numpy();
}
py::object make_handler(Index) {
    no_numpy();
}
py::object set_handler(py::handle) {
    no_numpy();
}
bool enabled() {
    no_numpy();
}

#endif

// --- the Python API -------------------------------------------------------

// `with dri.shared_arrays():` sets a handler on entry and restores the one
// it replaced on exit. A stack, so that one object can be entered again
// inside itself.
class SharedArrays {
  public:
    explicit SharedArrays(Index min_bytes)
        : min_bytes_(min_bytes), handler_(make_handler(min_bytes)) {}

    SharedArrays& enter() {
        previous_.push_back(set_handler(handler_));
        return *this;
    }
    bool exit() {
        if (previous_.empty())
            throw Error(Errc::state, "dri.shared_arrays: __exit__ without __enter__");
        set_handler(previous_.back());
        previous_.pop_back();
        return false; // exceptions of the block go on
    }
    Index min_bytes() const { return min_bytes_; }

  private:
    Index min_bytes_;
    py::object handler_;
    std::vector<py::object> previous_;
};

void set_shared_arrays(bool on, Index min_bytes) {
    set_handler(on ? make_handler(min_bytes) : py::none());
}

// Copied out of the registry first: building the dict may run the garbage
// collector, whose frees take the registry's mutex.
py::dict stats() {
    need_numpy();
    const shared_blocks::Stats s = shared_blocks::stats();
    return py::dict(py::arg("live") = s.live, py::arg("live_bytes") = s.live_bytes,
                    py::arg("allocated") = s.allocated, py::arg("reused") = s.reused,
                    py::arg("cached") = s.cached, py::arg("cached_bytes") = s.cached_bytes);
}

// Process-wide, as the cache is: not a handler's setting.
Index cache_cap(std::optional<Index> max_bytes) {
    need_numpy();
    if (!max_bytes) return static_cast<Index>(shared_blocks::cache_bytes());
    if (*max_bytes < 0)
        throw Error(Errc::arg, "max_bytes must be >= 0, not " + std::to_string(*max_bytes));
    return static_cast<Index>(shared_blocks::set_cache_bytes(static_cast<std::size_t>(*max_bytes)));
}

Index trim() {
    need_numpy();
    return static_cast<Index>(shared_blocks::trim());
}

// The bytes a buffer's elements span, whatever its strides.
bool in_shared_memory(py::handle obj) {
    need_numpy();
    if (!PyObject_CheckBuffer(obj.ptr()))
        throw Error(Errc::arg, "dri.in_shared_memory: the object does not export a buffer "
                               "(a NumPy array, a memoryview)");
    const py::buffer_info b = py::reinterpret_borrow<py::buffer>(obj).request();
    const auto* lo = static_cast<const std::byte*>(b.ptr);
    const auto* hi = lo;
    if (b.size > 0) {
        hi += b.itemsize;
        for (py::ssize_t d = 0; d < b.ndim; ++d) {
            const py::ssize_t step = (b.shape[d] - 1) * b.strides[d];
            (step < 0 ? lo : hi) += step;
        }
    }
    return shared_blocks::holds(lo, hi);
}

} // namespace

void bind_numpy_memory(py::module_& m) {
    m.attr("SHARED_ARRAYS_MIN_BYTES") = default_min_bytes;
    m.attr("SHARED_ARRAYS_CACHE_BYTES") = static_cast<Index>(shared_blocks::default_cache_bytes);
    py::class_<SharedArrays>(
        m, "shared_arrays",
        "``with dri.shared_arrays(min_bytes):`` NumPy allocates every array of at least "
        "min_bytes (default dri.SHARED_ARRAYS_MIN_BYTES, 1 MiB) in node shared memory, as "
        "dri.empty does; smaller ones in ordinary memory. As send buffers, such arrays give "
        "AUTO the single copy. On exit the handler the block started with is current again, "
        "also when the block raises; blocks nest. NumPy keeps its handler in a context "
        "variable: the setting applies to the calling thread (or asyncio task) alone, and "
        "threads started later begin with NumPy's default. Arrays made in the block stay "
        "valid after it and are freed, by this handler, with their last reference, into the "
        "process's cache of freed blocks (dri.shared_arrays_cache). Processes forked later "
        "share that memory instead of copying it on write.")
        .def(py::init<Index>(), py::arg("min_bytes") = default_min_bytes)
        .def("__enter__", &SharedArrays::enter, py::return_value_policy::reference_internal,
             "Makes this handler NumPy's current one; remembers the one it replaces.")
        .def(
            "__exit__", [](SharedArrays& s, const py::args&) { return s.exit(); },
            "Makes the handler __enter__ replaced current again; exceptions go on.")
        .def_property_readonly("min_bytes", &SharedArrays::min_bytes,
                               "Arrays of at least this many bytes go to shared memory.");
    m.def("set_shared_arrays", &set_shared_arrays, py::arg("on"),
          py::arg("min_bytes") = default_min_bytes,
          "Without a scope: on, NumPy allocates arrays of at least min_bytes in node shared "
          "memory (as dri.shared_arrays); off, NumPy's default handler is current again. For the "
          "calling thread's (or asyncio task's) context only. Arrays keep the handler that "
          "made them.");
    m.def("shared_arrays_enabled", &enabled,
          "True when NumPy's current handler, in this thread's (or task's) context, is one of "
          "dri.shared_arrays.");
    m.def("shared_arrays_stats", &stats,
          "The handler's allocations in node shared memory, over all its contexts: "
          "dict(live=count alive, live_bytes=their bytes, allocated=count made so far, "
          "reused=of which taken from the cache of freed blocks, cached=blocks in that cache, "
          "cached_bytes=their bytes, whole pages).");
    m.def("shared_arrays_cache", &cache_cap, py::arg("max_bytes") = py::none(),
          "The cache of freed shared arrays, one per process, for every handler and thread: "
          "the handler keeps the node shared memory of the arrays it frees, mapped and written "
          "once already, and gives it to the next array of the same size (page-rounded; a "
          "block up to 1/8 larger serves too, the smallest that fits), zeroed for np.zeros, so "
          "that temporaries made again and again (b = a * 2 in a loop) cost about what NumPy's "
          "own memory does rather than a fresh memory file each. It holds at most max_bytes "
          "(default dri.SHARED_ARRAYS_CACHE_BYTES, 256 MiB) in at most 256 blocks: beyond, the "
          "least recently freed are released; a larger block is never kept; 0 turns the cache "
          "off and empties it. Without max_bytes, gives the cap; with it (>= 0, else ERR_ARG), "
          "sets it and gives the previous one. A committed dri.Transfer holds its arrays, so "
          "their blocks are never reused while it lives. Blocks alive or cached when the "
          "process forks are never reused, by the parent or the child.");
    m.def("shared_arrays_trim", &trim,
          "Releases every block in the cache of freed shared arrays (dri.shared_arrays_cache) "
          "and gives their bytes. Arrays alive are not touched.");
    m.def("in_shared_memory", &in_shared_memory, py::arg("a"),
          "True when every byte the elements of `a` (an array or any buffer, views with any "
          "strides) span lies inside one live allocation a dri.shared_arrays handler made in "
          "node shared memory (DRI_Alloc_mem's; private memory where dri falls back: "
          "DRI_SHARED_MEMORY=off, descriptors exhausted). False for ordinary memory, for "
          "arrays below the threshold, and for dri.empty's and dri.SharedMemory's memory "
          "(shared too, but not this handler's).");
}

} // namespace dri::python

// NumPy arrays as ring buffers, used in place: each array is checked against
// the block it must hold before dri sees its bytes, so that a wrong array is a
// clear dri.Error at send()/recv(), never a wrong result or a crash later.
#include "binding.hpp"

#include <pybind11/stl.h>

#include <cstring>

namespace dri::python {

namespace {

std::string text(py::handle h) {
    return py::str(h).cast<std::string>();
}

std::string tuple_text(const std::vector<Index>& v) {
    return text(py::tuple(py::cast(v)));
}

void check_dtype(const py::array& a, const py::dtype& dt, const std::string& what) {
    const py::dtype have = a.dtype();
    const bool record = dt.kind() == 'V';
    const bool ok =
        record ? have.kind() == 'V' && have.itemsize() == dt.itemsize() : have.equal(dt);
    if (!ok)
        throw Error(Errc::type, what + ": array of dtype " + text(have) + ", the data is " +
                                    text(dt) + dtype_hint(have, dt));
}

void check_shape(const py::array& a, const BlockInfo& b, const std::string& what) {
    std::vector<Index> shape(a.shape(), a.shape() + a.ndim());
    if (shape != b.local_extent)
        throw Error(Errc::buffer_size, what + ": array of shape " + tuple_text(shape) +
                                           ", the block is " + tuple_text(b.local_extent) +
                                           " (Distribution.empty() allocates it)");
}

// Dimensions of extent 0 or 1 have no meaningful stride (NumPy normalizes
// them freely); the others must be the layout's. A zero-size array has no
// element to place, and NumPy gives a fresh one any strides (1.24: all 0).
void check_strides(const py::array& a, const BlockInfo& b, const std::string& what) {
    if (a.size() == 0) return;
    std::vector<Index> have, need;
    bool ok = true;
    for (py::ssize_t d = 0; d < a.ndim(); ++d) {
        have.push_back(a.strides(d));
        need.push_back(b.strides[static_cast<std::size_t>(d)] * a.itemsize());
        ok = ok && (a.shape(d) <= 1 || have.back() == need.back());
    }
    if (!ok)
        throw Error(Errc::layout, what + ": array strides " + tuple_text(have) +
                                      " bytes, the layout needs " + tuple_text(need) +
                                      " (Distribution.empty() allocates it)");
}

// One past the last byte an array can reach.
const std::byte* end_of(const py::array& a) {
    const auto* p = static_cast<const std::byte*>(a.data());
    if (a.size() == 0) return p;
    Index reach = a.itemsize();
    for (py::ssize_t d = 0; d < a.ndim(); ++d)
        if (a.strides(d) > 0) reach += (a.shape(d) - 1) * a.strides(d);
    return p + reach;
}

// A layout may need memory past the block's last cell (outer padding): the
// memory then has to come from the array the view was taken from.
void check_memory(const py::array& a, Index bytes, const std::string& what) {
    const auto* first = static_cast<const std::byte*>(a.data());
    const std::byte* end = end_of(a);
    py::object base = a.attr("base");
    while (end - first < bytes && py::isinstance<py::array>(base)) {
        const auto root = py::reinterpret_borrow<py::array>(base);
        end = std::max(end, end_of(root));
        base = root.attr("base");
    }
    if (end - first < bytes)
        throw Error(Errc::buffer_size, what + ": the layout needs " + std::to_string(bytes) +
                                           " bytes from the first element, the array's memory "
                                           "holds " +
                                           std::to_string(end - first) +
                                           " (Distribution.empty() allocates it)");
}

} // namespace

std::span<std::byte> block_bytes(py::handle obj, const BlockInfo& b, const py::dtype& dtype,
                                 bool writable, const std::string& what) {
    if (!py::isinstance<py::array>(obj))
        throw Error(Errc::buffer, what + ": expected a numpy.ndarray, got " +
                                      text(py::type::handle_of(obj).attr("__name__")));
    const auto a = py::reinterpret_borrow<py::array>(obj);
    check_dtype(a, dtype, what);
    check_shape(a, b, what);
    check_strides(a, b, what);
    if (writable && !a.writeable())
        throw Error(Errc::buffer, what + ": read-only array (dri writes into receive buffers)");
    check_memory(a, b.bytes, what);
    auto* first = static_cast<std::byte*>(const_cast<void*>(a.data()));
    return {first, static_cast<std::size_t>(b.bytes)};
}

py::tuple ring_of(py::handle arrays, const std::string& what) {
    if (py::isinstance<py::list>(arrays) || py::isinstance<py::tuple>(arrays))
        return py::tuple(py::reinterpret_borrow<py::object>(arrays));
    std::string got = "a " + text(py::type::handle_of(arrays).attr("__name__"));
    if (py::isinstance<py::array>(arrays))
        got = "one numpy.ndarray of shape " +
              text(arrays.attr("shape")); // a 2-D array would be a ring of its rows
    throw Error(Errc::buffer, what + ": a ring is a list or tuple of arrays, got " + got +
                                  "; wrap one array as [a]");
}

py::array block_view(const BlockInfo& b, const py::dtype& dtype, std::byte* base,
                     py::handle owner) {
    // The flat bytes first, so that a view's memory check finds all of them.
    const py::array raw(py::dtype("uint8"), {static_cast<py::ssize_t>(b.bytes)}, {1}, base, owner);
    std::vector<py::ssize_t> shape, strides;
    for (std::size_t d = 0; d < b.local_extent.size(); ++d) {
        shape.push_back(b.local_extent[d]);
        strides.push_back(b.strides[d] * dtype.itemsize());
    }
    return py::array(dtype, shape, strides, base, raw);
}

} // namespace dri::python

// dri element types and NumPy dtypes: one predefined type per numeric dtype
// of the same kind and size, records for void (and structured) dtypes.
#include "binding.hpp"

namespace dri::python {

namespace {

struct TypeDtype {
    Type type;
    const char* dtype;
};

constexpr TypeDtype table[] = {
    {Type::int8, "int8"},
    {Type::uint8, "uint8"},
    {Type::int16, "int16"},
    {Type::uint16, "uint16"},
    {Type::int32, "int32"},
    {Type::uint32, "uint32"},
    {Type::int64, "int64"},
    {Type::uint64, "uint64"},
    {Type::float32, "float32"},
    {Type::float64, "float64"},
    {Type::complex_float, "complex64"},
    {Type::complex_double, "complex128"},
    {Type::byte, "uint8"},
};

std::string describe(const py::dtype& dt) {
    return py::str(static_cast<const py::object&>(dt)).cast<std::string>();
}

// The predefined type of a numeric dtype (native byte order only: dri copies
// bytes, it does not swap them).
Type predefined(const py::dtype& dt) {
    const bool native = dt.attr("isnative").cast<bool>();
    if (native)
        for (const TypeDtype& t : table)
            if (t.type != Type::byte && dt.equal(py::dtype(t.dtype))) return t.type;
    throw Error(Errc::type, "numpy dtype " + describe(dt) +
                                " has no dri element type (native integers, float32/64, "
                                "complex64/128, or a void/structured dtype as a record)");
}

} // namespace

py::dtype dtype_of(Type type) {
    for (const TypeDtype& t : table)
        if (t.type == type) return py::dtype(t.dtype);
    throw Error(Errc::type, "invalid dri element type " + std::to_string(static_cast<int>(type)));
}

GlobalData global_data(std::vector<Index> extents, py::handle type) {
    if (py::isinstance<Type>(type)) return GlobalData(std::move(extents), type.cast<Type>());
    py::dtype dt;
    try {
        dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(type));
    } catch (const py::error_already_set& e) {
        throw Error(Errc::type, "not an element type: " + std::string(e.what()));
    }
    if (dt.kind() == 'V') return GlobalData::record(std::move(extents), dt.itemsize());
    return GlobalData(std::move(extents), predefined(dt));
}

} // namespace dri::python

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

// What to do instead, for a dtype without a dri element type: the same bytes
// as an unsigned integer of their size (dri copies elements, it never does
// arithmetic on them except in a reverse's combine), else as a record.
std::string hint(const py::dtype& dt) {
    const char kind = dt.kind();
    const auto size = dt.itemsize();
    if (kind == 'b')
        return "; move bools as bytes: a.view(np.uint8) (no copy) or a.astype(np.uint8), "
               "with np.uint8 as the data's dtype";
    if (kind == 'f' && size == 2)
        return "; move float16 as its bits: a.view(np.uint16), with np.uint16 as the data's "
               "dtype, and .view(np.float16) on the received array";
    if (!dt.attr("isnative").cast<bool>())
        return "; dri copies bytes without swapping them: a.astype(a.dtype.newbyteorder('=')) "
               "is the same values in native order";
    if (size == 1 || size == 2 || size == 4 || size == 8)
        return "; to move the bytes unchanged: a.view(np.uint" + std::to_string(8 * size) + ")";
    return "; to move the bytes unchanged: np.dtype('V" + std::to_string(size) +
           "') as the data's dtype (a record), a.view('V" + std::to_string(size) + "')";
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
                                "complex64/128, or a void/structured dtype as a record)" +
                                hint(dt));
}

// How a dtype is written in Python code, for hints: np.uint16, or
// np.dtype('>f4') / np.dtype('V8') where no NumPy name says it.
std::string describe_for_code(const py::dtype& dt) {
    if (dt.kind() != 'V' && dt.attr("isnative").cast<bool>()) return "np." + describe(dt);
    return "np.dtype('" + dt.attr("str").cast<std::string>() + "')";
}

py::dtype to_dtype(py::handle type) {
    try {
        return py::dtype::from_args(py::reinterpret_borrow<py::object>(type));
    } catch (const py::error_already_set& e) {
        throw Error(Errc::type, "not an element type: " + std::string(e.what()));
    }
}

} // namespace

py::dtype dtype_of(Type type) {
    for (const TypeDtype& t : table)
        if (t.type == type) return py::dtype(t.dtype);
    throw Error(Errc::type, "invalid dri element type " + std::to_string(static_cast<int>(type)));
}

GlobalData global_data(std::vector<Index> extents, py::handle type) {
    if (py::isinstance<Type>(type)) return GlobalData(std::move(extents), type.cast<Type>());
    const py::dtype dt = to_dtype(type);
    if (dt.kind() == 'V') return GlobalData::record(std::move(extents), dt.itemsize());
    return GlobalData(std::move(extents), predefined(dt));
}

Type element_type(py::handle type, const std::string& what) {
    if (py::isinstance<Type>(type)) return type.cast<Type>();
    const py::dtype dt = to_dtype(type);
    if (dt.kind() == 'V')
        throw Error(Errc::type, what + " takes a predefined element type, not a record (" +
                                    describe(dt) +
                                    "): build the transfer from dri.Distribution objects");
    return predefined(dt);
}

std::string dtype_hint(const py::dtype& have, const py::dtype& want) {
    if (have.itemsize() != want.itemsize()) return "";
    return "; a.view(" + describe_for_code(want) + ") reinterprets the same bytes";
}

} // namespace dri::python

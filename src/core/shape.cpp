#include "core/shape.hpp"

namespace dri::core {

Index predefined_size(ElemKind kind) {
    switch (kind) {
    case ElemKind::int8:
    case ElemKind::uint8:
    case ElemKind::byte:
        return 1;
    case ElemKind::int16:
    case ElemKind::uint16:
        return 2;
    case ElemKind::int32:
    case ElemKind::uint32:
    case ElemKind::float32:
        return 4;
    case ElemKind::int64:
    case ElemKind::uint64:
    case ElemKind::float64:
    case ElemKind::complex_float:
        return 8;
    case ElemKind::complex_double:
        return 16;
    case ElemKind::record:
        break;
    }
    fail(Errc::type, "element kind " + std::to_string(static_cast<int>(kind)) +
                         " is not a predefined type (records need an explicit byte size)");
}

ElementType ElementType::predefined(ElemKind kind) {
    return {kind, predefined_size(kind)};
}

ElementType ElementType::record(Index bytes) {
    if (bytes <= 0)
        fail(Errc::type, "record size must be at least 1 byte, got " + std::to_string(bytes));
    return {ElemKind::record, bytes};
}

std::string to_string(const ElementType& t) {
    switch (t.kind) {
    case ElemKind::int8:
        return "int8";
    case ElemKind::uint8:
        return "uint8";
    case ElemKind::int16:
        return "int16";
    case ElemKind::uint16:
        return "uint16";
    case ElemKind::int32:
        return "int32";
    case ElemKind::uint32:
        return "uint32";
    case ElemKind::int64:
        return "int64";
    case ElemKind::uint64:
        return "uint64";
    case ElemKind::float32:
        return "float";
    case ElemKind::float64:
        return "double";
    case ElemKind::complex_float:
        return "cfloat";
    case ElemKind::complex_double:
        return "cdouble";
    case ElemKind::byte:
        return "byte";
    case ElemKind::record:
        return "record" + std::to_string(t.size);
    }
    return "unknown";
}

Shape::Shape(std::vector<Index> extents, ElementType type)
    : extents_(std::move(extents)), type_(type) {
    if (extents_.empty() || extents_.size() > static_cast<std::size_t>(max_dims))
        fail(Errc::ndims, "a global array has 1 to " + std::to_string(max_dims) +
                              " dimensions, got " + std::to_string(extents_.size()));
    if (type_.kind == ElemKind::record) {
        if (type_.size <= 0)
            fail(Errc::type,
                 "record size must be at least 1 byte, got " + std::to_string(type_.size));
    } else if (type_.size != predefined_size(type_.kind)) {
        fail(Errc::type, "element size " + std::to_string(type_.size) + " does not match " +
                             to_string(ElementType{type_.kind, predefined_size(type_.kind)}));
    }
    elements_ = 1;
    for (std::size_t d = 0; d < extents_.size(); ++d) {
        if (extents_[d] <= 0)
            fail(Errc::extent, "extent of dimension " + std::to_string(d) + " must be >= 1, got " +
                                   std::to_string(extents_[d]));
        elements_ = checked_mul(elements_, extents_[d], "element count of the global array");
    }
    bytes_ = checked_mul(elements_, type_.size, "byte size of the global array");
}

std::string to_string(const Shape& s) {
    std::string out;
    for (int d = 0; d < s.ndims(); ++d) {
        if (d) out += 'x';
        out += std::to_string(s.extent(d));
    }
    return out + ' ' + to_string(s.type());
}

} // namespace dri::core

// Global data object geometry: the shape of the whole array and its element
// type. Pure value types, no MPI.
#pragma once

#include "core/checked.hpp"

#include <string>
#include <vector>

namespace dri::core {

inline constexpr int max_dims = 8;

// Predefined element kinds. The numeric values are the C binding's DRI_TYPE_*.
enum class ElemKind : int {
    int8 = 1,
    uint8,
    int16,
    uint16,
    int32,
    uint32,
    int64,
    uint64,
    float32,
    float64,
    complex_float,
    complex_double,
    byte,
    record, // opaque user record of any byte size (may contain holes)
};

struct ElementType {
    ElemKind kind = ElemKind::byte;
    Index size = 1; // bytes per element

    static ElementType predefined(ElemKind kind);
    static ElementType record(Index bytes);
    friend bool operator==(const ElementType&, const ElementType&) = default;
};

// Byte size of a predefined kind; throws Errc::type for `record` or unknown values.
Index predefined_size(ElemKind kind);
// The text notation of docs/concepts.md, read back by parse_type (core/spec.hpp):
// "float", "double", "cfloat", "cdouble", "int8" ... "uint64", "byte", "record7".
std::string to_string(const ElementType& t);

// Shape of the global array: 1..8 dimensions, extents >= 1, element type.
// Construction validates; the total byte size is guaranteed to fit in 63 bits.
class Shape {
  public:
    Shape(std::vector<Index> extents, ElementType type);

    int ndims() const { return static_cast<int>(extents_.size()); }
    Index extent(int d) const { return extents_[static_cast<std::size_t>(d)]; }
    const std::vector<Index>& extents() const { return extents_; }
    const ElementType& type() const { return type_; }
    Index elem_size() const { return type_.size; }
    Index elements() const { return elements_; }
    Index bytes() const { return bytes_; }

    friend bool operator==(const Shape&, const Shape&) = default;

  private:
    std::vector<Index> extents_;
    ElementType type_;
    Index elements_ = 0;
    Index bytes_ = 0;
};

// Extents as parse_shape reads them, a space, the element type: "64x32 cfloat".
std::string to_string(const Shape& s);

} // namespace dri::core

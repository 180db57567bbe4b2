// Combining regions in memory: like copy.hpp's kernels, but every destination
// element becomes op(itself, the source element) instead of being overwritten.
// Used by the reverse transfer, which combines the receivers' copies of an
// element back into the sender's element.
#pragma once

#include "core/plan.hpp"
#include "core/shape.hpp"

#include <cstddef>

namespace dri::core {

enum class CombineOp { sum, max, min, replace };

// Whether `op` is defined on `t`: replace on every type; sum on the integer,
// floating and complex kinds; max and min on the integer and floating kinds
// (not complex, byte or record). A predefined kind with a size other than its
// own is defined only for replace.
bool combine_defined(CombineOp op, const ElementType& t);

// "SUM", "MAX", "MIN", "REPLACE".
const char* to_string(CombineOp op);

// For every element of `reg` in axis order, the element at dst + r_off (+ the
// axes' r strides) becomes op(itself, the element at src + s_off (+ the s
// strides)). Elements are visited strictly in that order, so a destination
// stride of 0 combines several source elements into one, in axis order (which
// fixes the rounding of a floating sum). Integer sums wrap (two's complement);
// max and min are std::max / std::min (a NaN source leaves the destination,
// a NaN destination stays); complex sum is component-wise; replace is a copy
// (strided_copy's, or element by element when a destination stride is 0, so
// that the last source in axis order wins).
// Buffers may be unaligned. Throws Errc::type unless combine_defined(op, t).
void combine_region(const std::byte* src, std::byte* dst, const Region& reg, const ElementType& t,
                    CombineOp op);

// The same with the source a packed stream as pack_region writes it (the
// region's elements densely, in axis order); returns the bytes consumed,
// reg.elements() * t.size.
Index combine_unpack_region(const std::byte* in, const Region& reg, const ElementType& t,
                            CombineOp op, std::byte* dst);

// Writes op's identity into every destination element of `reg` (r_off and
// the r strides): 0 for sum, the lowest value of the type for max (-infinity
// for floating kinds), the highest for min (+infinity); replace writes
// nothing. Throws Errc::type unless combine_defined(op, t).
void identity_region(std::byte* dst, const Region& reg, const ElementType& t, CombineOp op);

} // namespace dri::core

// Executing regions in memory: local copy, pack into a contiguous stream,
// unpack from it, zero fill. Used for the self part of a transfer, by the
// pack-based strategies, and by the in-memory plan simulation in the tests.
#pragma once

#include "core/plan.hpp"

#include <cstddef>

namespace dri::core {

// Copies the elements described by `axes` (outermost first; Axis::s is the
// source byte stride, Axis::r the destination byte stride) from src to dst.
// Contiguous runs become memcpy; when one axis is contiguous in the source
// and another in the destination (a transpose), the copy is cache-blocked.
// `whole`: the bytes of the whole copy this one is a part of (a piece of a
// pair's regions: core/pieces.hpp), when larger than its own; a large whole
// bypasses the cache with non-temporal stores, as the copy in one go would.
void strided_copy(const std::byte* src, std::byte* dst, const Axis* axes, int naxes, Index elem,
                  Index whole = 0);

// strided_copy with the given kernel parameters instead of the process's
// (kernels/params.hpp): what the measurement of kernels/tune.hpp times.
struct KernelParams;
void strided_copy_with(const KernelParams& kp, const std::byte* src, std::byte* dst,
                       const Axis* axes, int naxes, Index elem, Index whole = 0);
// The same element by element, in axis order: the reference for tests.
void strided_copy_reference(const std::byte* src, std::byte* dst, const Axis* axes, int naxes,
                            Index elem);

// The region's axes with the receiver strides replaced by those of a dense
// stream in the region's element order (what pack writes and unpack reads).
std::vector<Axis> packed_axes(const Region& reg, Index elem, bool replace_sender);

inline void copy_region(const std::byte* src, std::byte* dst, const Region& reg, Index elem,
                        Index whole = 0) {
    strided_copy(src + reg.s_off, dst + reg.r_off, reg.axes.data(),
                 static_cast<int>(reg.axes.size()), elem, whole);
}

// Packs the sender side of `reg` into `out`; returns the bytes written.
Index pack_region(const std::byte* src, const Region& reg, Index elem, std::byte* out,
                  Index whole = 0);

// Unpacks a stream produced by pack_region into the receiver side of `reg`.
Index unpack_region(const std::byte* in, const Region& reg, Index elem, std::byte* dst,
                    Index whole = 0);

// Zeroes the receiver side of `reg`.
void zero_region(std::byte* dst, const Region& reg, Index elem);

} // namespace dri::core

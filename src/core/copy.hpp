// Executing regions in memory: local copy, pack into a contiguous stream,
// unpack from it, zero fill. Used for the self part of a transfer, by the
// pack-based strategies, and by the in-memory plan simulation in the tests.
#pragma once

#include "plan.hpp"

#include <cstddef>
#include <cstring>

namespace dri::core {

namespace detail {

// Calls f(sender byte offset, receiver byte offset, inner) for each innermost
// line of the region, where `inner` is the innermost axis.
template <class F>
void for_each_line(const Region& reg, F&& f) {
    const std::size_t k = reg.axes.size();
    if (k == 0) {
        f(reg.s_off, reg.r_off, Axis{1, 0, 0});
        return;
    }
    const Axis inner = reg.axes[k - 1];
    if (k == 1) {
        f(reg.s_off, reg.r_off, inner);
        return;
    }
    Index idx[2 * 8] = {};
    Index so = reg.s_off, ro = reg.r_off;
    for (;;) {
        f(so, ro, inner);
        std::size_t a = k - 1;
        while (a-- > 0) {
            const Axis& ax = reg.axes[a];
            so += ax.s;
            ro += ax.r;
            if (++idx[a] < ax.n) break;
            so -= ax.s * ax.n;
            ro -= ax.r * ax.n;
            idx[a] = 0;
        }
        if (a == static_cast<std::size_t>(-1)) return;
    }
}

} // namespace detail

inline void copy_region(const std::byte* src, std::byte* dst, const Region& reg, Index elem) {
    detail::for_each_line(reg, [&](Index so, Index ro, const Axis& in) {
        if (in.s == elem && in.r == elem) {
            std::memcpy(dst + ro, src + so, static_cast<std::size_t>(in.n * elem));
            return;
        }
        for (Index i = 0; i < in.n; ++i)
            std::memcpy(dst + ro + i * in.r, src + so + i * in.s, static_cast<std::size_t>(elem));
    });
}

// Packs the sender side of `reg` into `out`; returns the bytes written.
inline Index pack_region(const std::byte* src, const Region& reg, Index elem, std::byte* out) {
    std::byte* p = out;
    detail::for_each_line(reg, [&](Index so, Index, const Axis& in) {
        if (in.s == elem) {
            std::memcpy(p, src + so, static_cast<std::size_t>(in.n * elem));
            p += in.n * elem;
            return;
        }
        for (Index i = 0; i < in.n; ++i, p += elem)
            std::memcpy(p, src + so + i * in.s, static_cast<std::size_t>(elem));
    });
    return p - out;
}

// Unpacks a stream produced by pack_region into the receiver side of `reg`.
inline Index unpack_region(const std::byte* in_stream, const Region& reg, Index elem,
                           std::byte* dst) {
    const std::byte* p = in_stream;
    detail::for_each_line(reg, [&](Index, Index ro, const Axis& in) {
        if (in.r == elem) {
            std::memcpy(dst + ro, p, static_cast<std::size_t>(in.n * elem));
            p += in.n * elem;
            return;
        }
        for (Index i = 0; i < in.n; ++i, p += elem)
            std::memcpy(dst + ro + i * in.r, p, static_cast<std::size_t>(elem));
    });
    return p - in_stream;
}

// Zeroes the receiver side of `reg`.
inline void zero_region(std::byte* dst, const Region& reg, Index elem) {
    detail::for_each_line(reg, [&](Index, Index ro, const Axis& in) {
        if (in.r == elem) {
            std::memset(dst + ro, 0, static_cast<std::size_t>(in.n * elem));
            return;
        }
        for (Index i = 0; i < in.n; ++i)
            std::memset(dst + ro + i * in.r, 0, static_cast<std::size_t>(elem));
    });
}

} // namespace dri::core

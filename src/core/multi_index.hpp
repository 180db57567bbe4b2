// The multi-index ("odometer") loop: every index of a box of up to
// 2 * max_dims axes, as that many nested loops would visit them, optionally
// carrying the offsets of strided operands. The planner walks combinations
// of per-dimension runs with it and the copy kernels walk regions with it,
// so it is written once, here.
//
// It is on the hot path of every strided copy (once per contiguous run), so
// it allocates nothing, takes its callables as template parameters (no
// std::function) and updates the offsets incrementally: one add per operand
// per step, one subtract when an axis wraps.
#pragma once

#include "core/checked.hpp"
#include "core/shape.hpp"

#include <array>
#include <cassert>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace dri::core {

// The most axes for_each_index iterates: a region has up to two per
// dimension (a run and its regular repetition).
inline constexpr int max_index_axes = 2 * max_dims;

// Calls f(idx, off_0, ..., off_{M-1}) for every index of the box
// [0, extent(0)) x ... x [0, extent(k - 1)), the last axis fastest. idx
// points to the k current indices; off_m is the sum over axes a of
// idx[a] * stride(a)[m], where stride(a) returns a std::array<Index, M>.
// k == 0 is one index (f is called once with all offsets 0).
//
// Requires 0 <= k <= max_index_axes and every extent >= 1: the first index is
// visited before any extent is read, like a do-while, which is what the
// callers rely on (a region's axes and the planner's lists are never empty).
// The index type is extent's return type, so the planner can index its
// vectors with idx[a] directly.
template <std::size_t M, class Extent, class Stride, class F>
void for_each_index(int k, Extent&& extent, Stride&& stride, F&& f) {
    using I = std::remove_cvref_t<decltype(extent(0))>;
    assert(k >= 0 && k <= max_index_axes);
    I idx[max_index_axes] = {};
    std::array<Index, M> off{};
    const auto visit = [&]<std::size_t... m>(std::index_sequence<m...>) {
        f(static_cast<const I*>(idx), off[m]...);
    };
    for (;;) {
        visit(std::make_index_sequence<M>{});
        // Step the last axis; an axis that wraps goes back to 0 and steps the
        // one before it. Walking idx with a pointer, rather than idx[a] with
        // an int a, gives GCC 12 a tighter carry loop (no sign extension of
        // a, fewer reloads around f): 0-10% fewer instructions per strided
        // copy than the loop copy.cpp had, counted with callgrind.
        I* i = idx + k;
        for (int a = k;;) {
            if (a == 0) return;
            --a;
            --i;
            const std::array<Index, M> st = stride(a);
            for (std::size_t m = 0; m < M; ++m)
                off[m] += st[m];
            const I n = extent(a);
            if (++*i < n) break;
            for (std::size_t m = 0; m < M; ++m)
                off[m] -= st[m] * static_cast<Index>(n);
            *i = 0;
        }
    }
}

// The same without operands: calls f(idx) for every index of the box.
template <class Extent, class F>
void for_each_index(int k, Extent&& extent, F&& f) {
    for_each_index<0>(
        k, std::forward<Extent>(extent), [](int) { return std::array<Index, 0>{}; },
        std::forward<F>(f));
}

} // namespace dri::core

// Walking the index space of a region's axes, for the kernels that execute
// regions (copy.cpp, combine.cpp).
#pragma once

#include "core/multi_index.hpp"
#include "core/plan.hpp"

#include <array>

namespace dri::core {

// Calls f(source offset, destination offset) for every index of `axes`.
template <class F>
void for_each_offset(const Axis* axes, int k, F&& f) {
    for_each_index<2>(
        k, [axes](int a) { return axes[a].n; },
        [axes](int a) {
            return std::array<Index, 2>{axes[a].s, axes[a].r};
        },
        [&f](const Index*, Index so, Index ro) { f(so, ro); });
}

// A transpose seen through its two contiguous axes: x is contiguous in the
// source, y in the destination; `rest` are the other axes (outermost first),
// over which the x-by-y tile repeats.
struct TransposeAxes {
    Axis x, y;
    std::array<Axis, max_index_axes> rest;
    int nrest = 0;
};

// Splits `axes` (k of them, elements of e bytes) as a transpose when one axis
// is contiguous in the source and another one in the destination; the first
// such axis of each side is taken. False otherwise.
inline bool split_transpose(const Axis* axes, int k, Index e, TransposeAxes& t) {
    int x = -1, y = -1;
    for (int a = 0; a < k; ++a) {
        if (x < 0 && axes[a].s == e) x = a;
        if (y < 0 && axes[a].r == e) y = a;
    }
    if (x < 0 || y < 0 || x == y) return false;
    t.x = axes[x];
    t.y = axes[y];
    t.nrest = 0;
    for (int a = 0; a < k; ++a)
        if (a != x && a != y) t.rest[static_cast<std::size_t>(t.nrest++)] = axes[a];
    return true;
}

} // namespace dri::core

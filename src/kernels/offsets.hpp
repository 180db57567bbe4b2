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

} // namespace dri::core

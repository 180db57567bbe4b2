// The in-memory oracle's view of box distributions (core/box_partition.hpp):
// a member's buffer holds its boxes one after another, each dense in the
// layout's dimension order. Walked cell by cell here, independently of the
// planner's strides.
#pragma once

#include "core/box_partition.hpp"
#include "core/distribution.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dri::test {

// Calls f(element offset, global multi-index) for every cell of member m,
// in buffer order.
template <class F>
void for_each_box_cell(const core::BoxPartition& bp, const core::Layout& layout, int m, F&& f) {
    const std::vector<int>& order = layout.order();
    core::Index off = 0;
    for (const core::Box& b : bp.boxes(m)) {
        if (b.empty()) continue;
        std::vector<core::Index> g = b.first;
        for (;;) {
            f(off++, g);
            // Odometer in layout order: the last dimension of `order` fastest.
            std::size_t k = order.size();
            while (k-- > 0) {
                const auto d = static_cast<std::size_t>(order[k]);
                if (++g[d] <= b.last[d]) break;
                g[d] = b.first[d];
            }
            if (k == static_cast<std::size_t>(-1)) break;
        }
    }
}

inline core::Index global_linear(const std::vector<core::Index>& ext,
                                 const std::vector<core::Index>& g) {
    core::Index l = 0;
    for (std::size_t d = 0; d < g.size(); ++d)
        l = l * ext[d] + g[d];
    return l;
}

} // namespace dri::test

#include "core/block_info.hpp"

#include <string>

namespace dri::core {

BlockInfo block_info(const Distribution& d, const Layout& layout, int idx) {
    if (d.boxes())
        fail(Errc::partition, "a box distribution has no block grid: its boxes and cells are "
                              "queried with DRI_Distribution_boxes");
    if (idx < 0 || idx >= d.nprocs())
        fail(Errc::arg, "process index " + std::to_string(idx) + " outside the group [0, " +
                            std::to_string(d.nprocs()) + ")");
    const LocalLayout ll = bind_layout(layout, d.local_extents(idx), d.shape().elem_size());
    BlockInfo b;
    b.index = idx;
    b.coords = d.coords(idx);
    for (int k = 0; k < d.ndims(); ++k) {
        const int c = b.coords[static_cast<std::size_t>(k)];
        const Index n = d.segment_count(k, c);
        b.segments.push_back(n);
        b.local_extent.push_back(d.local_extent(k, c));
        b.owned_count.push_back(d.owned_extent(k, c));
        b.strides.push_back(ll.strides[static_cast<std::size_t>(k)]);
        const Segment first = n ? d.segment(k, c, 0) : Segment{0, 0, 0, 0, 0};
        const Segment last = n ? d.segment(k, c, n - 1) : Segment{0, 0, 0, 0, 0};
        b.owned_first.push_back(first.own_lo);
        b.owned_last.push_back(last.own_hi - 1);
        b.stored_first.push_back(first.lo);
        b.stored_last.push_back(last.hi - 1);
    }
    b.bytes = ll.bytes;
    return b;
}

} // namespace dri::core

// What one process stores of a distribution under a layout: the numbers a
// user needs before allocating (both bindings present them in their form).
#pragma once

#include "core/distribution.hpp"
#include "core/layout.hpp"

#include <vector>

namespace dri::core {

struct BlockInfo {
    int index = -1;          // index in the group
    std::vector<int> coords; // grid coordinates
    std::vector<Index> owned_first, owned_last, owned_count;
    std::vector<Index> stored_first, stored_last;
    std::vector<Index> segments;     // owned blocks per dimension (block-cyclic > 1)
    std::vector<Index> local_extent; // stored cells per dimension
    std::vector<Index> strides;      // element strides in the buffer
    Index bytes = 0;                 // bytes per buffer
};

// The block of process `index` of the distribution's group (Errc::arg when
// the index is outside the group).
BlockInfo block_info(const Distribution& dist, const Layout& layout, int index);

} // namespace dri::core

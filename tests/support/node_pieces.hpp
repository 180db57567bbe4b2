// Hand-made pieces for the unit tests of the node traffic and the node model.
#pragma once

#include "core/node_traffic.hpp"

#include <vector>

namespace dri::test {

// Every process sends `bytes` to every other process.
inline std::vector<core::NodePiece> all_to_all(int procs, core::Index bytes) {
    std::vector<core::NodePiece> out;
    for (int s = 0; s < procs; ++s)
        for (int r = 0; r < procs; ++r)
            if (s != r) out.push_back({s, r, bytes});
    return out;
}

} // namespace dri::test

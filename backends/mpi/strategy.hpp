// How a committed transfer moves its data. The values are the C binding's
// DRI_STRATEGY_* (the bindings check that they agree at compile time).
#pragma once

namespace dri::detail {

enum class Strategy : int {
    automatic = 0, // the cheap rule (strategies/table.cpp) picks one at commit
    alltoallw = 1, // derived datatypes + MPI_Alltoallw
    packed = 2,    // pack + MPI_Alltoallv + unpack
    p2p = 3,       // point to point, packing only where needed
    measure = 4,   // time the candidates at commit, keep the fastest
    shared = 5,    // single copy through node shared memory
    hybrid = 6,    // single copy for the pairs on one node, messages for the others
    nodes = 7,     // one message per pair of nodes, through each node's leader
};

inline constexpr int strategy_count = 8;

} // namespace dri::detail

// Messages between nodes, counted as point to point sends them (one per
// pair of processes on different nodes) and as the node-aware strategy
// NODES sends them (one per ordered pair of nodes: each node's leader
// carries every piece its node sends to another node), and AUTO's rule for
// choosing NODES from those counts. Pure: the backend computes the counts
// collectively at commit, dri-plan from the plan of every process.
#pragma once

#include "core/checked.hpp"

#include <vector>

namespace dri::core {

// One piece between two distinct processes (numbered as in node_of) and the
// bytes it carries.
struct NodePiece {
    int from = 0, to = 0;
    Index bytes = 0;
};

struct NodeTraffic {
    int nodes = 0;                    // nodes with at least one process
    long long pair_messages = 0;      // pieces between processes on different nodes
    long long node_pair_messages = 0; // ordered pairs of nodes that exchange data
    Index bytes = 0;                  // bytes of the pieces between nodes
};

// The counts for `pieces`; node_of[p] names process p's node (any integer,
// equal for processes on one node).
NodeTraffic node_traffic(const std::vector<NodePiece>& pieces, const std::vector<int>& node_of);

// Pieces up to this many bytes on average are latency-bound between nodes:
// a message costs a latency alpha (1-3 us on today's networks) and the two
// extra copies through the leaders cost about 2 * bytes / (5 GB/s); they
// break even near alpha * 5 GB/s / 2 = 2.5-7.5 KB (docs/concepts.md).
inline constexpr Index aggregation_max_mean_piece = 4096;

// AUTO's rule: NODES when there are several nodes, aggregation sends fewer
// messages between them than point to point does, and the pieces between
// nodes are latency-bound (at most aggregation_max_mean_piece on average).
bool aggregate_between_nodes(const NodeTraffic& t);

} // namespace dri::core

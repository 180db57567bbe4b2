#include "core/node_traffic.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace dri::core {

NodeTraffic node_traffic(const std::vector<NodePiece>& pieces, const std::vector<int>& node_of) {
    NodeTraffic t;
    t.nodes = static_cast<int>(std::set<int>(node_of.begin(), node_of.end()).size());
    // Sorted once rather than a tree insert per piece: a corner turn over
    // thousands of processes has tens of millions of pieces.
    std::vector<std::pair<int, int>> node_pairs;
    for (const NodePiece& p : pieces) {
        const int a = node_of.at(static_cast<std::size_t>(p.from));
        const int b = node_of.at(static_cast<std::size_t>(p.to));
        if (a == b || p.bytes <= 0) continue;
        ++t.pair_messages;
        t.bytes = checked_add(t.bytes, p.bytes, "bytes between nodes");
        node_pairs.emplace_back(a, b);
    }
    std::sort(node_pairs.begin(), node_pairs.end());
    t.node_pair_messages = static_cast<long long>(
        std::unique(node_pairs.begin(), node_pairs.end()) - node_pairs.begin());
    return t;
}

bool aggregate_between_nodes(const NodeTraffic& t) {
    return t.nodes >= 2 && t.pair_messages > t.node_pair_messages &&
           t.bytes <= aggregation_max_mean_piece * t.pair_messages;
}

} // namespace dri::core

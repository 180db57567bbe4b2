#include "core/node_traffic.hpp"
#include "node_pieces.hpp"

#include <doctest/doctest.h>

using namespace dri::core;
using dri::test::all_to_all;

namespace {

// Process p on node p / per_node.
std::vector<int> nodes_of(int procs, int per_node) {
    std::vector<int> out;
    for (int p = 0; p < procs; ++p)
        out.push_back(p / per_node);
    return out;
}

} // namespace

// 16 processes send 240 pieces; each sends 12 of them to the 12 processes
// of the 3 other nodes: 192 between nodes, over 4 x 3 ordered node pairs.
TEST_CASE("4 nodes of 4, all-to-all of 2 KiB: 192 messages become 12, AUTO aggregates") {
    const NodeTraffic t = node_traffic(all_to_all(16, 2048), nodes_of(16, 4));
    CHECK(t.nodes == 4);
    CHECK(t.pair_messages == 192);
    CHECK(t.node_pair_messages == 12);
    CHECK(t.bytes == 192 * 2048);
    CHECK(aggregate_between_nodes(t));
}

TEST_CASE("the same with 64 KiB pieces: bandwidth-bound, AUTO does not aggregate") {
    const NodeTraffic t = node_traffic(all_to_all(16, 65536), nodes_of(16, 4));
    CHECK(t.pair_messages == 192);
    CHECK(t.node_pair_messages == 12);
    CHECK_FALSE(aggregate_between_nodes(t));
}

TEST_CASE("the rule's bound is inclusive: a mean piece of exactly 4096 bytes aggregates") {
    CHECK(aggregate_between_nodes(node_traffic(all_to_all(16, 4096), nodes_of(16, 4))));
    CHECK_FALSE(aggregate_between_nodes(node_traffic(all_to_all(16, 4097), nodes_of(16, 4))));
}

TEST_CASE("one node: nothing between nodes, nothing to aggregate") {
    const NodeTraffic t = node_traffic(all_to_all(4, 64), nodes_of(4, 4));
    CHECK(t.nodes == 1);
    CHECK(t.pair_messages == 0);
    CHECK(t.node_pair_messages == 0);
    CHECK(t.bytes == 0);
    CHECK_FALSE(aggregate_between_nodes(t));
}

TEST_CASE("one process per node: as many node pairs as process pairs, no gain") {
    const NodeTraffic t = node_traffic(all_to_all(4, 64), nodes_of(4, 1));
    CHECK(t.nodes == 4);
    CHECK(t.pair_messages == 12);
    CHECK(t.node_pair_messages == 12);
    CHECK_FALSE(aggregate_between_nodes(t));
}

TEST_CASE("empty pieces are no messages; node ids need not be dense") {
    const std::vector<NodePiece> pieces{{0, 2, 100}, {1, 2, 0}, {1, 3, 50}, {0, 1, 10}};
    const NodeTraffic t = node_traffic(pieces, {7, 7, -3, -3});
    CHECK(t.nodes == 2);
    CHECK(t.pair_messages == 2);
    CHECK(t.node_pair_messages == 1);
    CHECK(t.bytes == 150);
    CHECK(aggregate_between_nodes(t));
}

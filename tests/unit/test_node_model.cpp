#include "core/node_model.hpp"
#include "node_pieces.hpp"

#include <doctest/doctest.h>

using namespace dri::core;
using dri::test::all_to_all;

namespace {

// Round numbers, so that the expected times below are computed by hand.
const NetworkModel net{2e-6, 1e10, 5e9, 5e-7};

} // namespace

// 4 nodes of 4, every process sends 2 KiB to every other. Per node: P2P
// sends 4 x 12 = 48 messages (16 to each other node) of 98304 bytes in all,
// 48 alpha + 98304 / beta = 96 + 9.8304 us. NODES sends 3 messages, the
// same bytes, 6 + 9.8304 us, plus 3 gathers and 3 scatters (0.5 us each)
// and the copies of 98304 bytes out and 98304 in at 5 GB/s (39.3216 us).
// Within nodes: 4 x 12 direct pairs in both, NODES adds 4 x 6.
TEST_CASE("4 nodes of 4, all-to-all of 2 KiB: counts and times") {
    std::vector<int> node_of;
    for (int p = 0; p < 16; ++p)
        node_of.push_back(p / 4);
    const NodeModel m = model_nodes(all_to_all(16, 2048), node_of, net);
    CHECK(m.p2p.messages == 192);
    CHECK(m.p2p.per_node_pair == 16);
    CHECK(m.p2p.bytes == 192 * 2048);
    CHECK(m.p2p.intra_messages == 48);
    CHECK(m.p2p.seconds == doctest::Approx(105.8304e-6).epsilon(1e-12));
    CHECK(m.nodes.messages == 12);
    CHECK(m.nodes.per_node_pair == 1);
    CHECK(m.nodes.bytes == 192 * 2048);
    CHECK(m.nodes.intra_messages == 72);
    CHECK(m.nodes.seconds == doctest::Approx(58.152e-6).epsilon(1e-12));
    CHECK(m.traffic.pair_messages == 192);
    CHECK(m.auto_nodes);
}

// Processes 1, 2 and 3 each send 1000 bytes to process 0; node 0 is {0, 1},
// node 1 is {2, 3}. P2P: node 1 sends 2 messages, node 0 receives them:
// 2 alpha + 2000 / beta = 4.2 us. NODES: node 1's leader 2 gathers 3's
// piece (one message) and sends one of 2000 bytes; node 0's leader is the
// receiver, no scatter. Node 1: 2 + 0.2 + 0.5 + 0.4 (2000 bytes copied) =
// 3.1 us; node 0: 2 + 0.2 + 0.4 = 2.6 us.
TEST_CASE("a gather onto a leader: the slowest node decides, the leader needs no message") {
    const std::vector<NodePiece> pieces{{1, 0, 1000}, {2, 0, 1000}, {3, 0, 1000}};
    const NodeModel m = model_nodes(pieces, {0, 0, 1, 1}, net);
    CHECK(m.p2p.messages == 2);
    CHECK(m.p2p.per_node_pair == 2);
    CHECK(m.p2p.intra_messages == 1);
    CHECK(m.p2p.seconds == doctest::Approx(4.2e-6).epsilon(1e-12));
    CHECK(m.nodes.messages == 1);
    CHECK(m.nodes.intra_messages == 2);
    CHECK(m.nodes.seconds == doctest::Approx(3.1e-6).epsilon(1e-12));
    CHECK(m.auto_nodes);
}

// The receiving side bounds the time when one node receives from many:
// nodes 1, 2, 3 (one process each) send 10^6 bytes to node 0. P2P: node 0
// receives 3 messages, 6 us + 300 us. NODES is the same plus 600 us of
// copies on node 0 (nothing to gather or scatter with one process a node).
TEST_CASE("one process per node: NODES sends the same messages and only adds copies") {
    const std::vector<NodePiece> pieces{{1, 0, 1000000}, {2, 0, 1000000}, {3, 0, 1000000}};
    const NodeModel m = model_nodes(pieces, {0, 1, 2, 3}, net);
    CHECK(m.p2p.messages == 3);
    CHECK(m.nodes.messages == 3);
    CHECK(m.p2p.per_node_pair == 1);
    CHECK(m.p2p.seconds == doctest::Approx(306e-6).epsilon(1e-12));
    CHECK(m.nodes.seconds == doctest::Approx(906e-6).epsilon(1e-12));
    CHECK(m.nodes.intra_messages == 0);
    CHECK_FALSE(m.auto_nodes);
}

TEST_CASE("one node: nothing between nodes, no time, and the leader's own pieces are free") {
    const NodeModel m = model_nodes(all_to_all(4, 64), {5, 5, 5, 5}, net);
    CHECK(m.p2p.messages == 0);
    CHECK(m.nodes.messages == 0);
    CHECK(m.nodes.per_node_pair == 0);
    CHECK(m.p2p.intra_messages == 12);
    CHECK(m.nodes.intra_messages == 12);
    CHECK(m.p2p.seconds == 0);
    CHECK(m.nodes.seconds == 0);
    CHECK_FALSE(m.auto_nodes);
}

TEST_CASE("empty pieces and self pieces are no messages") {
    const std::vector<NodePiece> pieces{{0, 1, 0}, {1, 1, 100}};
    const NodeModel m = model_nodes(pieces, {0, 1}, net);
    CHECK(m.p2p.messages == 0);
    CHECK(m.p2p.intra_messages == 0);
    CHECK(m.nodes.intra_messages == 0);
}

TEST_CASE("pieces given node by node: the same model as all at once") {
    std::vector<int> node_of;
    for (int p = 0; p < 12; ++p)
        node_of.push_back(p / 4);
    const std::vector<NodePiece> all = all_to_all(12, 3000);
    const auto of_node = [&](int k) {
        std::vector<NodePiece> out;
        for (const NodePiece& p : all)
            if (p.from / 4 == k) out.push_back(p);
        return out;
    };
    const NodeModel whole = model_nodes(all, node_of, net);
    const NodeModel parts = model_nodes(3, of_node, node_of, net);
    CHECK(parts.traffic.pair_messages == whole.traffic.pair_messages);
    CHECK(parts.traffic.node_pair_messages == 6);
    CHECK(parts.traffic.node_pair_messages == whole.traffic.node_pair_messages);
    CHECK(parts.traffic.bytes == whole.traffic.bytes);
    CHECK(parts.p2p.per_node_pair == 16);
    CHECK(parts.nodes.intra_messages == whole.nodes.intra_messages);
    CHECK(parts.p2p.seconds == whole.p2p.seconds);
    CHECK(parts.nodes.seconds == whole.nodes.seconds);
    CHECK(parts.auto_nodes == whole.auto_nodes);
}

TEST_CASE("a node's pieces to other nodes split over two chunks are refused") {
    const std::vector<NodePiece> a{{0, 2, 10}}, b{{1, 3, 10}};
    const auto chunk = [&](int k) { return k == 0 ? a : b; };
    CHECK_THROWS_AS(model_nodes(2, chunk, {0, 0, 1, 1}, net), Error);
}

// A model of the messages between nodes, to plan past the machine at hand:
// for the pieces of a real plan placed on nodes, what point to point (P2P:
// one message per pair of processes on different nodes, the pattern PACKED
// and ALLTOALLW share) and the node-aware NODES (one message per ordered
// pair of nodes, through each node's leader) send, and a modelled time for
// network parameters the caller gives. Pure: dri-plan prints it.
//
// The model, kept simple on purpose (an estimate to compare the two, not a
// prediction of either):
//  - One network interface per node, full duplex: a node's network time is
//    the larger of its sending side (messages it sends to other nodes x
//    alpha + their bytes / beta) and its receiving side (the same for what
//    it receives). Every inter-node message costs alpha on both sides.
//  - NODES adds, on each node, the gather and the scatter through the
//    leader: one extra copy of the bytes the node sends to other nodes and
//    of those it receives from them, at the copy bandwidth (the packing
//    both strategies do is left out of both), and intra_alpha per message
//    between a non-leader and its leader (the leader's own pieces need none).
//  - Pairs of processes on one node exchange the same direct messages in
//    both strategies: they are counted, but left out of both times.
//  - A strategy takes as long as its slowest node.
#pragma once

#include "core/node_traffic.hpp"

#include <functional>
#include <vector>

namespace dri::core {

// The bandwidths divide: they must be positive (dri-plan checks them).
struct NetworkModel {
    double alpha = 2e-6;       // seconds per message between nodes
    double beta = 12.5e9;      // bytes per second between nodes, per node
    double copy = 5e9;         // bytes per second of a copy within a node
    double intra_alpha = 5e-7; // seconds per message within a node
};

// What one strategy sends, and its modelled time.
struct StrategyCost {
    long long messages = 0;       // messages between nodes, in total
    long long per_node_pair = 0;  // the most any ordered pair of nodes carries
    Index bytes = 0;              // bytes between nodes
    long long intra_messages = 0; // messages within nodes
    double seconds = 0;           // modelled time: the slowest node's
};

struct NodeModel {
    NodeTraffic traffic;     // node_traffic() of the pieces
    StrategyCost p2p, nodes; // point to point; the node-aware NODES
    bool auto_nodes = false; // aggregate_between_nodes(traffic): AUTO picks NODES
};

// The model for `pieces` between processes placed on nodes by node_of (as
// in node_traffic: process p's node is node_of[p]; a node's leader is its
// lowest-numbered process).
NodeModel model_nodes(const std::vector<NodePiece>& pieces, const std::vector<int>& node_of,
                      const NetworkModel& net);

// The same for pieces given in `chunks` parts, chunk(k) the pieces of part
// k, so that a plan of tens of millions of pieces need not be held at once.
// The pieces each node sends to other nodes must all be in one part (e.g.
// part k: the pieces node k's processes send); Errc::internal otherwise.
NodeModel model_nodes(int chunks, const std::function<std::vector<NodePiece>(int)>& chunk,
                      const std::vector<int>& node_of, const NetworkModel& net);

} // namespace dri::core

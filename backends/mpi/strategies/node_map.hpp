// Which node each process of a transfer is on, and the pieces between nodes
// that the processes of this node send and receive: what the node-aware
// strategy (NODES) plans its messages from, and what AUTO's rule for it
// counts. A node is what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) says
// (MPICH's MPIR_CVAR_NUM_CLIQUES simulates several on one machine).
#pragma once

#include "core/node_traffic.hpp"
#include "core/plan.hpp"
#include "mpi/strategies/executor.hpp"

#include <mpi.h>

#include <vector>

namespace dri::detail {

// A piece between nodes as one process of this node sees it: its peer (a
// rank of the communicator) and its bytes.
struct NodeLink {
    int peer = 0;
    core::Index bytes = 0;
};

// One process of this node and its pieces between nodes: `out` by receiver
// rank, `in` by the sender's node (its leader's rank), then sender rank.
struct NodeMember {
    int rank = 0;
    std::vector<NodeLink> out, in;
};

struct NodeMap {
    int me = 0;
    // Per rank of the communicator: the lowest rank on its node, its leader.
    std::vector<int> node_of;
    // This node's processes by rank; the leader first.
    std::vector<NodeMember> members;

    bool leader() const { return node_of[static_cast<std::size_t>(me)] == me; }
    int leader_rank() const { return node_of[static_cast<std::size_t>(me)]; }
    const NodeMember& mine() const;
    bool same_node(int a, int b) const {
        return node_of[static_cast<std::size_t>(a)] == node_of[static_cast<std::size_t>(b)];
    }
};

// Collective over ctx.comm: the node map of this process's plan.
NodeMap map_nodes(const core::LocalPlan& plan, const ExecutorContext& ctx);

// Collective over ctx.comm: the traffic between nodes of the whole transfer
// (the same on every process).
core::NodeTraffic traffic_between_nodes(const NodeMap& map, MPI_Comm comm);

} // namespace dri::detail

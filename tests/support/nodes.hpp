// Which processes of world() share a node, and what that means for the
// strategies that need it. Several nodes are simulated on one machine with
// MPICH's MPIR_CVAR_NUM_CLIQUES=k (MPI_COMM_TYPE_SHARED then splits the
// processes into k groups).
#pragma once

#include "mpi_world.hpp"

#include "core/node_traffic.hpp"
#include "core/plan.hpp"
#include "dri/dri.hpp"

#include <mpi.h>

#include <set>
#include <vector>

namespace dri::test {

// Per rank of world(): the world() rank of the first process of its node.
inline std::vector<int> node_of_ranks() {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(world(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int leader = world_rank();
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    std::vector<int> all(static_cast<std::size_t>(world_size()));
    MPI_Allgather(&leader, 1, MPI_INT, all.data(), 1, MPI_INT, world());
    return all;
}

inline int node_count() {
    const std::vector<int> nodes = node_of_ranks();
    int n = 0;
    for (std::size_t r = 0; r < nodes.size(); ++r)
        n += nodes[r] == static_cast<int>(r) ? 1 : 0;
    return n;
}

// The strategy that copies straight from DRI shared memory for a transfer
// whose every pair of processes exchanges data: SHARED when world() is one
// node, HYBRID (the single copy within nodes, messages across) otherwise.
inline int single_copy_strategy() {
    return node_count() == 1 ? DRI_STRATEGY_SHARED : DRI_STRATEGY_HYBRID;
}

// The traffic between nodes of a transfer whose processes are send_ranks and
// recv_ranks (world() ranks, as the pieces' ends; `node` per world() rank):
// its nodes are those of its processes, as the library counts them over the
// transfer's communicator, not every node of world().
inline core::NodeTraffic transfer_traffic(const std::vector<core::NodePiece>& pieces,
                                          const std::vector<int>& node,
                                          const std::vector<int>& send_ranks,
                                          const std::vector<int>& recv_ranks) {
    std::set<int> nodes;
    for (const std::vector<int>* ranks : {&send_ranks, &recv_ranks})
        for (int rank : *ranks)
            nodes.insert(node[static_cast<std::size_t>(rank)]);
    core::NodeTraffic t = core::node_traffic(pieces, node);
    t.nodes = static_cast<int>(nodes.size());
    return t;
}

// The pairs of different processes that exchange data, counted by whether
// both are on one node, and the traffic between nodes that AUTO's rule for
// NODES reads (over the transfer's processes only).
struct PairsByNode {
    int same_node = 0, across_nodes = 0;
    core::NodeTraffic traffic;
};

inline PairsByNode pairs_by_node(const core::Side& send, const core::Side& recv,
                                 const std::vector<int>& send_ranks,
                                 const std::vector<int>& recv_ranks) {
    const std::vector<int> node = node_of_ranks();
    PairsByNode out;
    std::vector<core::NodePiece> pieces;
    for (std::size_t s = 0; s < send_ranks.size(); ++s)
        for (std::size_t r = 0; r < recv_ranks.size(); ++r) {
            if (send_ranks[s] == recv_ranks[r]) continue;
            const std::vector<core::Region> regs =
                core::pair_regions(send, recv, static_cast<int>(s), static_cast<int>(r));
            if (regs.empty()) continue;
            const bool same = node[static_cast<std::size_t>(send_ranks[s])] ==
                              node[static_cast<std::size_t>(recv_ranks[r])];
            (same ? out.same_node : out.across_nodes) += 1;
            core::Index elements = 0;
            for (const core::Region& reg : regs)
                elements += reg.elements();
            pieces.push_back(
                {send_ranks[s], recv_ranks[r], elements * send.dist->shape().elem_size()});
        }
    out.traffic = transfer_traffic(pieces, node, send_ranks, recv_ranks);
    return out;
}

// Whether a forced strategy applies (commit succeeds) to a transfer with
// these pairs; `shared_buffers`: every sender's ring is in node shared
// memory (DRI_Alloc_mem, dri::allocator, OwnedRing), or none is (a mix needs
// the per-pair rule of test_lifetime_mpi). SHARED needs every pair on one
// node with its sender's ring in shared memory, HYBRID at least one such
// pair; the others always apply.
inline bool forced_applies(dri::Strategy s, const PairsByNode& p, bool shared_buffers) {
    if (s == dri::Strategy::shared)
        return p.across_nodes == 0 && (shared_buffers || p.same_node == 0);
    if (s == dri::Strategy::hybrid) return shared_buffers && p.same_node > 0;
    return true;
}

// AUTO's choice for a transfer whose send rings are ordinary memory: NODES
// when its rule says aggregating messages between nodes pays, else P2P.
inline dri::Strategy auto_choice_heap(const PairsByNode& p) {
    return core::aggregate_between_nodes(p.traffic) ? dri::Strategy::nodes : dri::Strategy::p2p;
}

// AUTO's choice for a transfer whose every send ring is in node shared
// memory: SHARED when every pair is on one node, HYBRID when some are,
// else as with ordinary memory.
inline dri::Strategy auto_choice(const PairsByNode& p) {
    if (p.same_node == 0) return auto_choice_heap(p);
    return p.across_nodes == 0 ? dri::Strategy::shared : dri::Strategy::hybrid;
}

} // namespace dri::test

// Which processes of world() share a node, and what that means for the
// strategies that need it. Several nodes are simulated on one machine with
// MPICH's MPIR_CVAR_NUM_CLIQUES=k (MPI_COMM_TYPE_SHARED then splits the
// processes into k groups).
#pragma once

#include "mpi_world.hpp"

#include "core/plan.hpp"
#include "dri/dri.hpp"

#include <mpi.h>

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

// The pairs of different processes that exchange data, counted by whether
// both are on one node.
struct PairsByNode {
    int same_node = 0, across_nodes = 0;
};

inline PairsByNode pairs_by_node(const core::Side& send, const core::Side& recv,
                                 const std::vector<int>& send_ranks,
                                 const std::vector<int>& recv_ranks) {
    const std::vector<int> node = node_of_ranks();
    PairsByNode out;
    for (std::size_t s = 0; s < send_ranks.size(); ++s)
        for (std::size_t r = 0; r < recv_ranks.size(); ++r) {
            if (send_ranks[s] == recv_ranks[r]) continue;
            if (core::pair_regions(send, recv, static_cast<int>(s), static_cast<int>(r)).empty())
                continue;
            const bool same = node[static_cast<std::size_t>(send_ranks[s])] ==
                              node[static_cast<std::size_t>(recv_ranks[r])];
            (same ? out.same_node : out.across_nodes) += 1;
        }
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

// AUTO's choice for a transfer whose every send ring is in node shared
// memory: SHARED when every pair is on one node, HYBRID when some are,
// P2P otherwise (and when no process reads from another).
inline dri::Strategy auto_choice(const PairsByNode& p) {
    if (p.same_node == 0) return dri::Strategy::p2p;
    return p.across_nodes == 0 ? dri::Strategy::shared : dri::Strategy::hybrid;
}

} // namespace dri::test

// NODES' leaders hold their node's aggregates in node shared memory: the
// outgoing ones (the pieces the node sends to other nodes) and the incoming
// ones (the pieces it receives). A process of the node that maps the
// outgoing aggregates packs its pieces straight into them, so no message
// carries them to the leader, and the leader sends contiguous bytes of its
// own memory; a process that maps the incoming aggregates unpacks its
// pieces straight from them. Each process maps what it can (DRI shared
// memory, /proc readable, the owner's user): one that cannot exchanges
// those bytes with its leader by messages (node_relay.cpp).
#pragma once

#include "mpi/runtime/collectives.hpp"
#include "mpi/strategies/node_map.hpp"
#include "mpi/strategies/shared_reach.hpp"

#include <optional>
#include <span>
#include <vector>

namespace dri::detail {

struct LeaderMemory {
    // The leader: its processes that pack into its outgoing aggregates, and
    // those that unpack from its incoming ones (by rank).
    std::vector<int> packers, sharers;
    // Another process: its leader's aggregates mapped here (outgoing for
    // writing), when it maps them.
    std::optional<Ring> outgoing, incoming;
    // A failure while mapping (a corrupt table): the caller agrees on it.
    Status status;
    std::byte* outgoing_base() const; // null unless mapped
    const std::byte* incoming_base() const;
};

// Point to point over comm: every process of the node that has pieces
// between nodes, with its leader (which passes its aggregates; empty spans
// where it could not allocate them, and then nobody maps them). Each side
// posts its sends before it waits for anything, and a failure on one side
// is an answer "no" rather than a missing message, so nobody waits forever.
LeaderMemory share_leader_memory(const NodeMap& map, MPI_Comm comm, std::span<std::byte> outgoing,
                                 std::span<std::byte> incoming);

} // namespace dri::detail

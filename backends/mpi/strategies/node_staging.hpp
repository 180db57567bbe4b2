// Which buffers of NODES' relay the processes of a node share through node
// shared memory (node_relay.cpp). A process's staging holds the pieces it
// sends to other nodes; when its leader maps it, the leader sends them from
// there, and no message carries them to the leader. The leader's incoming
// aggregates hold the pieces that other nodes send to the node; a process
// that maps them unpacks its pieces from there, and no message carries them
// from the leader. Each side maps the other's memory only if it can (DRI
// shared memory, the same node, /proc readable): a process that cannot
// exchanges those bytes with its leader by messages.
#pragma once

#include "mpi/strategies/node_map.hpp"
#include "mpi/strategies/shared_reach.hpp"

#include <map>
#include <optional>
#include <span>
#include <vector>

namespace dri::detail {

struct StagingReach {
    // The leader: the stagings of its processes that it maps, by rank.
    std::map<int, Ring> staged;
    // The leader: the processes that map its incoming aggregates.
    std::vector<int> sharers;
    // Another process: its leader maps its staging.
    bool staged_by_leader = false;
    // Another process: its leader's incoming aggregates, mapped here.
    std::optional<Ring> leader_incoming;
};

// Point to point over comm between each leader and the processes of its
// node that have pieces between nodes: `staging` is this process's staging
// (not a leader), `incoming` the leader's aggregates from other nodes.
StagingReach reach_staging(const NodeMap& map, MPI_Comm comm, std::span<std::byte> staging,
                           std::span<std::byte> incoming);

} // namespace dri::detail

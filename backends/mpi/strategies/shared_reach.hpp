// Which pairs of a plan can use the single copy through node shared memory,
// and where the senders' rings are (SHARED uses it for every pair, HYBRID
// for the pairs it can).
//
// Sender s and receiver r use the single copy when every buffer of s's ring
// lies in DRI_Alloc_mem memory of an allocation both took part in, on the
// same node. Both sides decide this alike from the same published tables,
// so they agree pair by pair without further messages.
#pragma once

#include "mpi/shared_memory.hpp"
#include "mpi/strategies/executor.hpp"

#include <optional>
#include <vector>

namespace dri::detail {

// A sender's ring as its reader sees it.
struct Ring {
    std::vector<const std::byte*> bufs;
    std::vector<MPI_Win> wins;
    std::vector<SharedBlock*> blocks;
};

struct SharedReach {
    std::vector<std::span<std::byte>> own;   // this process's send ring
    std::vector<MPI_Win> own_wins;           // MPI_WIN_NULL where a buffer is not shared
    std::vector<SharedBlock*> own_blocks;    // null where a buffer is not shared
    std::vector<bool> reader;                // per plan.sends: that receiver reads the ring
    std::vector<std::optional<Ring>> source; // per plan.recvs: the sender's ring, when read
    bool all() const;                        // every pair of this process uses the single copy
    bool any() const;                        // some pair of this process does
};

// Collective over ctx.comm: each sender sends its ring table to its
// receivers (bytes per process grow with its peers, not with P), then all
// agree.
SharedReach shared_reach(const core::LocalPlan& plan, const ExecutorContext& ctx);

} // namespace dri::detail

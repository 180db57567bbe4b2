// Which pairs of a plan can use the single copy through node shared memory,
// and where the senders' rings are (SHARED uses it for every pair, HYBRID
// for the pairs it can).
//
// Sender s and receiver r use the single copy when s and r are on the same
// node (as MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) reports it), every
// buffer of s's ring lies in DRI_Alloc_mem memory, and r could map every
// one of those segments. Each sender sends its ring table to its receivers,
// each receiver answers whether it maps the ring: both sides then know, pair
// by pair, which ones copy.
#pragma once

#include "mpi/remote_segment.hpp"
#include "mpi/strategies/executor.hpp"

#include <memory>
#include <optional>
#include <vector>

namespace dri::detail {

// A sender's ring as its reader sees it; the segments stay mapped while
// the ring is held.
struct Ring {
    std::vector<const std::byte*> bufs;
    std::vector<std::shared_ptr<const RemoteSegment>> segments;
};

struct SharedReach {
    std::vector<std::span<std::byte>> own;   // this process's send ring
    std::vector<bool> reader;                // per plan.sends: that receiver reads the ring
    std::vector<std::optional<Ring>> source; // per plan.recvs: the sender's ring, when read
    bool all() const;                        // every pair of this process uses the single copy
    bool any() const;                        // some pair of this process does
};

// The table that lets another process of this node map `bufs` (each
// buffer's segment and its offset in it); empty when some buffer is not in
// DRI shared memory that other processes can map.
std::vector<std::byte> ring_table(const std::vector<std::span<std::byte>>& bufs);
// The ring a table of another process describes, mapped into this one;
// nullopt when the table is empty or this process cannot map all of it.
std::optional<Ring> map_ring(const std::vector<std::byte>& table, Access access = Access::read);

// Receives a table of any length that process `from` sends with `tag`.
std::vector<std::byte> receive_table(int from, int tag, MPI_Comm comm);

// Collective over ctx.comm: each sender sends its ring table to its
// receivers and each receiver answers (bytes per process grow with its
// peers, not with P), then all agree.
SharedReach shared_reach(const core::LocalPlan& plan, const ExecutorContext& ctx);

} // namespace dri::detail

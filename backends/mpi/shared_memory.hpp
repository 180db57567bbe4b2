// Memory shared by the processes of a node (MPI-3 shared windows): what
// DRI_Alloc_mem hands out, so that the single-copy strategy lets a receiver
// read straight from its sender's buffer.
#pragma once

#include "core/checked.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/runtime/init.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dri::detail {

// One allocation as seen by one process: its own segment of a window shared
// by the processes of its node that took part in the same call, and where
// every other segment of that window sits in this process's address space.
struct SharedBlock {
    std::uint64_t key = 0; // the same on every process of one allocation call
    int comm_size = 0;     // processes of the allocating communicator
    MPI_Win win = MPI_WIN_NULL;
    MPI_Comm node = MPI_COMM_NULL;  // the node's processes in the call
    std::byte* base = nullptr;      // this process's segment
    core::Index size = 0;           // bytes asked for by this process
    std::vector<std::byte*> bases;  // node rank -> segment (this address space)
    std::vector<core::Index> sizes; // node rank -> bytes of that segment
    int users = 0;                  // committed executors relying on it
};

// True when [p, p + bytes) lies inside [base, base + size).
bool within(const std::byte* p, core::Index bytes, const std::byte* base, core::Index size);

// The allocation whose own segment holds [p, p + bytes), or null.
SharedBlock* shared_find_own(const std::byte* p, core::Index bytes);
// The rank in b's node communicator of process `rank` of `comm`, or -1 when
// that process is not on this process's node in the allocation. Processes
// are matched through their MPI groups, never through MPI_COMM_WORLD ranks
// (the application's communicator need not be MPI_COMM_WORLD).
int shared_node_rank(const SharedBlock& b, MPI_Comm comm, int rank);
// The allocation with this key, or null when this process was not in it.
SharedBlock* shared_find(std::uint64_t key);
// Counts an executor that relies on the block (+1) or no longer does (-1).
void shared_use(SharedBlock* b, int delta) noexcept;

// DRI_Finalize: frees every allocation still alive (collective, in the
// order of the allocation calls, on every process of each node).
void shared_release_all() noexcept;

} // namespace dri::detail

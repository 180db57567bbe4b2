// The objects behind the public handles (the C++ classes and the C handles
// share them): part of the backend's interface to the bindings.
#pragma once

#include "core/declaration.hpp"
#include "core/distribution.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"
#include "kernels/combine.hpp"
#include "mpi/shared_memory.hpp"
#include "mpi/strategy.hpp"

#include <mpi.h>

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dri::detail {

class Executor;

struct GlobalDataImpl {
    core::Shape shape;
};

struct PartitionImpl {
    core::Partition part;
};

struct GroupImpl {
    MPI_Comm parent = MPI_COMM_NULL; // borrowed, never freed
    std::vector<int> ranks;          // ranks in parent, in group order
    int my_index = -1;
    int parent_rank = -1;
};

struct DistributionImpl {
    std::shared_ptr<const GroupImpl> group;
    core::Distribution dist;
};

struct LayoutImpl {
    core::Layout layout;
};

// One side of a transfer as declared by this process.
struct Role {
    std::shared_ptr<const DistributionImpl> dist;
    core::Layout layout;
    std::vector<std::span<std::byte>> buffers;
    int current = 0;
    // The ring, when the transfer allocated it (declared by length): freed
    // with the transfer.
    std::vector<SharedBuffer> owned;
};

struct TransferImpl;

// A forward transfer and its reverses: they run over the same rings, each
// with its own cursor. A reorganization may not start on a buffer another
// of them has in flight (DRI_ERR_STATE): one would read or write what the
// other is moving. Made with the transfer; a reverse joins its forward's.
struct RingFamily {
    std::mutex mutex;
    std::vector<TransferImpl*> members;
};

struct TransferImpl {
    std::string name;
    std::optional<Role> send, recv;
    Strategy strategy = Strategy::automatic;
    Strategy chosen = Strategy::automatic;
    // How elements arriving at the receiving role meet its cells
    // (DRI_Transfer_set_combine): stored (REPLACE) or combined into them.
    core::CombineOp combine = core::CombineOp::replace;
    bool committed = false;
    bool in_flight = false;
    std::string failed; // why an earlier DRI_Do failed in MPI; "" while usable
    std::unique_ptr<Executor> exec;
    // The DRI_Alloc_mem allocations the rings lie in, kept from being freed
    // while the transfer is committed, whatever its strategy.
    std::vector<SharedBlock*> pinned;
    // Once committed: every side of the name, from which its reverse is
    // planned (null for a reverse transfer). recv_side, set by each commit
    // after the rendezvous: the receiving side this process is in (-1: none).
    std::shared_ptr<const core::Match> sides;
    int recv_side = -1;
    // The family of rings it shares, and the buffers it has in flight (from
    // DRI_Do or start until complete; empty otherwise), under its mutex.
    std::shared_ptr<RingFamily> family;
    std::span<const std::byte> busy_send, busy_recv;

    TransferImpl();
    ~TransferImpl();
    TransferImpl(const TransferImpl&) = delete;
    TransferImpl& operator=(const TransferImpl&) = delete;
    // Frees every MPI resource (used by the destructor and by finalize).
    void release() noexcept;
    // Pins the DRI_Alloc_mem allocations its rings lie in (at commit).
    void pin_rings();
    // The communicator of the transfer's groups, over which a commit of this
    // transfer alone is collective; MPI_COMM_NULL while it declares no role.
    MPI_Comm parent() const;
};

} // namespace dri::detail

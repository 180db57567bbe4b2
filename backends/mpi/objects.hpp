// The objects behind the public handles (the C++ classes and the C handles
// share them): part of the backend's interface to the bindings.
#pragma once

#include "core/declaration.hpp"
#include "core/distribution.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"
#include "core/route_learner.hpp"
#include "kernels/combine.hpp"
#include "mpi/shared_memory.hpp"
#include "mpi/strategy.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dri::detail {

class Executor;
class AdaptiveExecutor;

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
    // Which ring this is, shared by a forward and its reverses (never 0):
    // buffers of an empty block have no bytes that could overlap, yet are
    // still the same buffers of the same ring.
    std::uint64_t ring_id = 0;
    // Its split into pieces (DRI_Transfer_set_pieces): the dimension (-1:
    // not split), the count, and this process's own boundaries (empty: even).
    int piece_dim = -1;
    int piece_count = 1;
    std::vector<core::Index> piece_bounds;
};

// A buffer a reorganization has in flight: its bytes, and its place in its
// ring (ring 0: none).
struct BusyBuffer {
    std::span<const std::byte> bytes;
    std::uint64_t ring = 0;
    int index = -1;
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
    // How much AUTO learns (DRI_Transfer_set_learning; unset: the
    // environment's DRI_AUTO_LEARNING), and once committed, the executors
    // that learn, one per pair this process takes part in that holds
    // several routes (owned by exec).
    std::optional<core::Learning> learning;
    std::vector<AdaptiveExecutor*> learners;
    // The learned file an adaptive transfer starts from
    // (DRI_Transfer_set_learned_file; "" for none; unset: the environment's
    // DRI_AUTO_LEARNED).
    std::optional<std::string> learned_file;
    // The DRI_Alloc_mem allocations the rings lie in, kept from being freed
    // while the transfer is committed, whatever its strategy.
    std::vector<SharedBlock*> pinned;
    // A declaration of a role this process refused (a buffer too small,
    // bad strides...), by role (0 send, 1 receive), until that role is
    // declared: its commit then fails with that error on every process
    // instead of leaving the others to find a role missing, or to wait.
    struct Refusal {
        core::Errc code = core::Errc::success;
        std::string message;
        std::shared_ptr<const DistributionImpl> dist; // whose parent the commit runs over
    };
    Refusal refused[2];
    // Once committed: every side of the name, from which its reverse is
    // planned (null for a reverse transfer). recv_side, set by each commit
    // after the rendezvous: the receiving side this process is in (-1: none).
    std::shared_ptr<const core::Match> sides;
    int recv_side = -1;
    // The family of rings it shares, and the buffers it has in flight (from
    // DRI_Do or start until complete; empty otherwise), under its mutex.
    std::shared_ptr<RingFamily> family;
    BusyBuffer busy_send, busy_recv;
    // Pieces of the reorganization in flight (DRI_Piece_ready): per piece of
    // a split send role, whether it is marked, and how many markings have
    // returned (all of them before a wait may complete). Made at commit.
    std::unique_ptr<std::atomic<bool>[]> marked;
    std::atomic<int> marks{0};
    // A piece call on a transfer whose executor does not move pieces waits
    // for or tests the whole frame: once it completed, the wait that ends
    // the reorganization has nothing left to complete.
    bool frame_done = false;

    TransferImpl();
    ~TransferImpl();
    TransferImpl(const TransferImpl&) = delete;
    TransferImpl& operator=(const TransferImpl&) = delete;
    // Frees every MPI resource (used by the destructor and by finalize).
    void release() noexcept;
    // Pins the DRI_Alloc_mem allocations its rings lie in (at commit).
    void pin_rings();
    // The communicator of the transfer's groups, over which a commit of this
    // transfer alone is collective (of a refused role's group too);
    // MPI_COMM_NULL while it declares no role and none was refused.
    MPI_Comm parent() const;
};

} // namespace dri::detail

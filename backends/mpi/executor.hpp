// Plan executors: immutable after construction; running one never plans and
// never allocates.
#pragma once

#include "datatype.hpp"
#include "plan.hpp"

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace dri::detail {

class Executor {
  public:
    virtual ~Executor() = default;
    // Blocking: one reorganization from `send` into `recv` (either may be
    // null when the process lacks that role).
    virtual void run(const std::byte* send, std::byte* recv) = 0;
    // Non-blocking: start, then wait or test until done.
    virtual void start(const std::byte* send, std::byte* recv) = 0;
    virtual void wait() = 0;
    virtual bool test() = 0;
    // Frees MPI resources; the executor is unusable afterwards.
    virtual void release() noexcept = 0;
    // After an MPI error in run/start/wait/test: gives up the reorganization
    // in flight without waiting for it (pending receives are cancelled and
    // every pending request freed), so that destroying the transfer cannot
    // hang on messages that will never come.
    virtual void abandon() noexcept = 0;
};

// What an executor needs besides the plan: the communicator of the
// transfer's participants (owned by the executor from now on) and where
// each sender and receiver index sits in it.
struct ExecutorContext {
    MPI_Comm comm = MPI_COMM_NULL;
    std::vector<int> send_rank;                     // sender index -> rank in comm
    std::vector<int> recv_rank;                     // receiver index -> rank in comm
    std::vector<std::span<std::byte>> send_buffers; // this process's ring, if a sender
    // The shared strategy must move data between processes to apply (the
    // cheap rule does not report SHARED for a transfer of local copies).
    bool shared_needs_peers = false;
};

// One MPI_Alltoallw (or MPI_Ialltoallw) with one committed derived datatype
// per peer and side; the self part and zero fills are local copies.
std::unique_ptr<Executor> make_alltoallw_executor(const core::LocalPlan& plan,
                                                  const ExecutorContext& ctx);

// Every peer packed into one scratch buffer (cache-blocked, transposing
// kernels), one MPI_Alltoallv, every peer unpacked.
std::unique_ptr<Executor> make_packed_executor(const core::LocalPlan& plan,
                                               const ExecutorContext& ctx);

// Point to point: all receives posted first, each peer packed (only when
// its side is not contiguous or made of long runs) and sent at once, the
// self part copied while messages fly, each message unpacked as it arrives.
std::unique_ptr<Executor> make_p2p_executor(const core::LocalPlan& plan,
                                            const ExecutorContext& ctx);

// Single copy through node shared memory: every receiver copies its regions
// straight from its senders' buffers (allocated by DRI_Alloc_mem) into its
// own, after a ready message, and answers with a done message; no scratch,
// no bytes through MPI. Collective over ctx.comm: throws core::Error(buffer)
// on every process when some sender's buffers are not in DRI shared memory
// or some receiver is on another node (the message says which).
std::unique_ptr<Executor> make_shared_executor(const core::LocalPlan& plan,
                                               const ExecutorContext& ctx);

} // namespace dri::detail

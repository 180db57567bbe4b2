// Plan executors: immutable after construction; running one never plans and
// never allocates. One strategy, one file beside this one; table.cpp lists them.
#pragma once

#include "core/plan.hpp"
#include "kernels/combine.hpp"
#include "mpi/strategies/scratch.hpp"

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace dri::detail {

class Executor {
  public:
    virtual ~Executor() = default;
    // Blocking: one reorganization from `send` into `recv` (either may be
    // null when the process lacks that role); every piece of a split send
    // role is ready at once.
    virtual void run(const std::byte* send, std::byte* recv) = 0;
    // Non-blocking: start, then wait or test until done.
    virtual void start(const std::byte* send, std::byte* recv) = 0;
    virtual void wait() = 0;
    virtual bool test() = 0;
    // Pieces (core/pieces.hpp), for executors that move them: after start,
    // send piece k of a split send role is complete (from any thread);
    // whether receive piece k has arrived (block: wait until it has). The
    // transfer checks the arguments and the marks before it asks.
    virtual bool moves_pieces() const { return false; }
    virtual void piece_ready(int k);
    virtual bool piece_arrived(int k, bool block);
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
    // How elements arriving at this process's receive buffer meet its cells
    // (REPLACE: stored), and the element type the combination reads.
    core::CombineOp combine = core::CombineOp::replace;
    core::ElementType type = core::ElementType::predefined(core::ElemKind::byte);
    // How the strategy being built was asked for: by name, by AUTO's cheap
    // rule, or as one of MEASURE's candidates. A strategy that only pays on
    // some plans (NODES) declines the plans it does not suit unless forced.
    enum class Asked { forced, automatic, measured };
    Asked asked = Asked::forced;
    // Where the executor's scratch lies: its own allocations (null), or the
    // arena the routes of an adaptive transfer share, allocated once they
    // are all built (strategies/adaptive.hpp). Executors whose scratch must
    // exist while they are built (NODES') allocate their own regardless.
    std::shared_ptr<ScratchArena> arena;
};

// What building one strategy for one plan gave: an executor, or, when the
// strategy does not apply to this plan and these buffers, why not (the same
// reason on every participant). Errors that are not about applicability
// (MPI failures, memory) are thrown.
struct Built {
    std::unique_ptr<Executor> exec;
    std::string why_not;
};

} // namespace dri::detail

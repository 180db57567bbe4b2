// HYBRID: one plan, each pair moved the cheapest way it can be. Pairs on
// one node whose sender's ring is in DRI shared memory both took part in
// use the single copy (as SHARED); the other pairs exchange messages,
// packed only where needed (as P2P); the self part is a local copy. It
// applies when at least one pair can use the single copy.
#include "mpi/runtime/collectives.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/parts.hpp"

namespace dri::detail {

Built build_hybrid(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    CommUntilTaken comm(ctx.comm);
    const SharedReach reach = shared_reach(plan, ctx);
    // Over all processes: whether two distinct processes exchange data, and
    // whether some such pair can use the single copy.
    int any[2] = {plan.sends.empty() && plan.recvs.empty() ? 0 : 1, reach.any() ? 1 : 0};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, any, 2, MPI_INT, MPI_MAX, ctx.comm), "MPI_Allreduce");
    if (!any[0])
        return {nullptr, "no two distinct processes exchange data (every piece stays on its "
                         "process): there is no pair to copy through shared memory"};
    if (!any[1])
        return {nullptr, "no pair of processes on one node has the sender's buffers in node "
                         "shared memory (DRI_Alloc_mem, dri::allocator, rings the transfer owns)"};
    // The two parts run on communicators of their own.
    ExecutorContext copy_ctx = ctx;
    copy_ctx.comm = library_dup(ctx.comm);
    std::unique_ptr<Executor> copies = make_shared_part(plan, copy_ctx, reach, false);
    comm.take();
    // The pairs that exchange messages, and the local part.
    std::unique_ptr<Executor> messages =
        make_p2p(plan_part(
                     plan, true, [&](std::size_t i) { return !reach.reader[i]; },
                     [&](std::size_t i) { return !reach.source[i]; }),
                 ctx);
    // The copies are waited for first: they read node memory while the
    // messages fly.
    return {make_two_parts(std::move(copies), std::move(messages)), {}};
}

} // namespace dri::detail

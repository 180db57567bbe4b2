#include "mpi/commit/candidates.hpp"

#include "mpi/runtime/collectives.hpp"
#include "mpi/strategies/table.hpp"

#include <algorithm>

namespace dri::detail {

namespace {

// This process's plan of the pair of the sending side and receiving side
// `k`; `ri` is its index in that receiving side, or -1.
core::LocalPlan plan_of(const TransferImpl& t, const core::Match& m, std::size_t k, int ri) {
    const int si = t.send ? t.send->dist->group->my_index : -1;
    return core::plan_local(m.send.side(), m.recv[k].side(), si, ri);
}

ExecutorContext context_of(const TransferImpl& t, const core::Match& m, std::size_t k) {
    ExecutorContext ctx;
    for (int r : m.send.ranks)
        ctx.send_rank.push_back(core::position_in(m.participants[k], r));
    for (int r : m.recv[k].ranks)
        ctx.recv_rank.push_back(core::position_in(m.participants[k], r));
    if (t.send) ctx.send_buffers = t.send->buffers;
    return ctx;
}

// Collective: whether some process of the transfer reads from another.
bool peers_exchange(const core::LocalPlan& plan, MPI_Comm comm) {
    int any = plan.sends.empty() && plan.recvs.empty() ? 0 : 1;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
    return any != 0;
}

} // namespace

Candidates build_candidates(const TransferImpl& t, const core::Match& m, std::size_t k, int ri,
                            MPI_Comm comm) {
    const core::LocalPlan plan = plan_of(t, m, k, ri);
    ExecutorContext ctx = context_of(t, m, k);
    const auto requested = static_cast<Strategy>(m.strategy);
    const bool peers = requested == Strategy::automatic && peers_exchange(plan, comm);
    const Choice choice = choose(requested, peers);
    Candidates c;
    for (const StrategyRow* row : choice.candidates) {
        ctx.comm = library_dup(comm); // the executor owns it from here, even if it fails
        const MPI_Comm mine = ctx.comm;
        Built b = row->build(plan, ctx);
        if (!b.exec) {
            if (choice.candidates.size() == 1)
                throw AgreedError(core::Errc::buffer, "transfer '" + t.name + "': strategy " +
                                                          row->name +
                                                          " does not apply: " + b.why_not);
            continue; // the same verdict on every participant: all skip it
        }
        c.kinds.push_back(row->kind);
        c.execs.push_back(std::move(b.exec));
        c.comms.push_back(mine);
        if (choice.first_that_applies) break;
    }
    if (c.execs.empty())
        core::fail(core::Errc::internal, "transfer '" + t.name + "': no strategy applies");
    return c;
}

void keep_fastest(const TransferImpl& t, Candidates& c, bool receives) {
    const std::byte* send = t.send ? t.send->buffers[0].data() : nullptr;
    std::byte* recv = receives ? t.recv->buffers[0].data() : nullptr;
    std::size_t best = 0;
    double best_time = 0;
    for (std::size_t k = 0; k < c.execs.size(); ++k) {
        double times[3];
        c.execs[k]->run(send, recv);
        for (double& tm : times) {
            check_mpi(MPI_Barrier(c.comms[k]), "MPI_Barrier");
            const double t0 = MPI_Wtime();
            c.execs[k]->run(send, recv);
            tm = MPI_Wtime() - t0;
        }
        std::sort(times, times + 3);
        double slowest = times[1];
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, c.comms[k]),
                  "MPI_Allreduce");
        if (k == 0 || slowest < best_time) {
            best = k;
            best_time = slowest;
        }
    }
    std::swap(c.execs[0], c.execs[best]);
    std::swap(c.kinds[0], c.kinds[best]);
    std::swap(c.comms[0], c.comms[best]);
    for (std::size_t k = 1; k < c.execs.size(); ++k)
        c.execs[k]->release();
    c.execs.resize(1);
    c.kinds.resize(1);
    c.comms.resize(1);
}

} // namespace dri::detail

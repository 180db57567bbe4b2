#include "mpi/commit/candidates.hpp"

#include "mpi/commit/routes.hpp"
#include "mpi/learned_file.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/runtime/measure_budget.hpp"
#include "mpi/strategies/table.hpp"

#include <algorithm>
#include <limits>

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
    ctx.combine = static_cast<core::CombineOp>(m.recv[k].combine);
    ctx.type = m.send.dist->shape().type();
    return ctx;
}

// Every participant of the pair checks the same published side alike, before
// any collective of the pair: the same error on each.
void check_combine(const TransferImpl& t, const core::Match& m, std::size_t k) {
    const int op = m.recv[k].combine;
    if (op < 0 || op > static_cast<int>(core::CombineOp::replace))
        core::fail(core::Errc::internal, "transfer '" + t.name + "': corrupt combine operation");
    const core::ElementType& type = m.send.dist->shape().type();
    if (!core::combine_defined(static_cast<core::CombineOp>(op), type))
        core::fail(core::Errc::type,
                   "transfer '" + t.name + "': the receiving side" +
                       (m.recv.size() > 1 ? " of rank " + std::to_string(m.side[1][k].rank) : "") +
                       " combines arriving elements with " +
                       core::to_string(static_cast<core::CombineOp>(op)) +
                       ", which is not defined on " + core::to_string(type) +
                       " elements (records and bytes allow REPLACE only, complex numbers SUM and "
                       "REPLACE)");
}

// What AUTO asks of the pair's processes at once (collective): whether some
// process reads from another, how much AUTO learns (the least any process
// asked: DRI_Transfer_set_learning, else DRI_AUTO_LEARNING), and whether
// the pair's first process asks to start from a learned file.
struct AutoFacts {
    bool peers = false;
    core::Learning learning = core::Learning::off;
    bool learned_file = false;
};

AutoFacts auto_facts(const TransferImpl& t, const core::LocalPlan& plan, MPI_Comm comm) {
    const core::Learning mine = t.learning ? *t.learning : learning_from_environment();
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    int v[3] = {plan.sends.empty() && plan.recvs.empty() ? 0 : 1,
                static_cast<int>(core::Learning::on) - static_cast<int>(mine),
                rank == 0 && !learned_path(t).empty() ? 1 : 0};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
    return {v[0] != 0, static_cast<core::Learning>(static_cast<int>(core::Learning::on) - v[1]),
            v[2] != 0};
}

// Collective: one run of candidate k, the slowest participant's time (the
// same value on every process, so every decision taken from it agrees).
double timed_run(Candidates& c, std::size_t k, const std::byte* send, std::byte* recv) {
    check_mpi(MPI_Barrier(c.comms[k]), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    c.execs[k]->run(send, recv);
    double slowest = MPI_Wtime() - t0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, c.comms[k]),
              "MPI_Allreduce");
    return slowest;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// The candidates still timed: a candidate whose fastest run is slower than
// 1.5 times another's median cannot win (noise only adds time), so it is
// not timed again, which keeps slow candidates from eating the budget.
void prune(const std::vector<std::vector<double>>& times, std::vector<char>& timed) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < times.size(); ++k)
        if (timed[k]) best = std::min(best, median(times[k]));
    for (std::size_t k = 0; k < times.size(); ++k)
        if (timed[k] && *std::min_element(times[k].begin(), times[k].end()) > 1.5 * best)
            timed[k] = 0;
}

// Rounds interleave the candidates (round r of each before round r + 1 of
// any), so a drift of a shared machine hits them alike; the median of each
// one's rounds decides.
std::size_t fastest(Candidates& c, const MeasureBudget& b, const std::byte* send, std::byte* recv) {
    const std::size_t n = c.execs.size();
    std::vector<std::vector<double>> times(n);
    std::vector<char> timed(n, 1);
    // The warm-up (first touch, MPI connections) is timed too, only to drop
    // a candidate far behind at once: a datatype engine can be 20 times
    // slower than packing, and each of its calls would eat the budget.
    std::vector<double> warm(n);
    for (std::size_t k = 0; k < n; ++k)
        warm[k] = timed_run(c, k, send, recv);
    const double first = *std::min_element(warm.begin(), warm.end());
    for (std::size_t k = 0; k < n; ++k)
        timed[k] = warm[k] <= 4 * first;
    double spent = 0;
    for (int round = 0; round < b.reps; ++round) {
        for (std::size_t k = 0; k < n; ++k)
            if (timed[k]) spent += times[k].emplace_back(timed_run(c, k, send, recv));
        prune(times, timed);
        if (round + 1 >= MeasureBudget::min_rounds && spent >= b.seconds) break;
    }
    std::size_t best = 0;
    for (std::size_t k = 1; k < n; ++k)
        if (timed[k] && (!timed[best] || median(times[k]) < median(times[best]))) best = k;
    return best;
}

} // namespace

Candidates build_candidates(const TransferImpl& t, const core::Match& m, std::size_t k, int ri,
                            MPI_Comm comm) {
    check_combine(t, m, k);
    const core::LocalPlan plan = plan_of(t, m, k, ri);
    ExecutorContext ctx = context_of(t, m, k);
    const auto requested = static_cast<Strategy>(m.strategy);
    const AutoFacts f = requested == Strategy::automatic ? auto_facts(t, plan, comm) : AutoFacts{};
    const bool split = m.send.split.split() || m.recv[k].split.split();
    const Choice choice = choose(requested, f.peers, split, f.learning != core::Learning::off);
    if (choice.adaptive)
        return build_routes(choice, plan, ctx, comm, {f.learning, f.learned_file, &t});
    ctx.asked = choice.first_that_applies ? ExecutorContext::Asked::automatic
                : choice.timed            ? ExecutorContext::Asked::measured
                                          : ExecutorContext::Asked::forced;
    Candidates c;
    for (const StrategyRow* row : choice.candidates) {
        if (split && !row->pieces)
            throw AgreedError(core::Errc::strategy,
                              "transfer '" + t.name + "': strategy " + row->name +
                                  " does not move pieces (DRI_Transfer_set_pieces); AUTO, P2P "
                                  "and SHARED do");
        ctx.comm = library_dup(comm); // the executor owns it from here, even if it fails
        const MPI_Comm mine = ctx.comm;
        Built b = row->build(plan, ctx);
        if (!b.exec) {
            if (choice.candidates.size() == 1)
                throw AgreedError(core::Errc::strategy, "transfer '" + t.name + "': strategy " +
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
    const std::size_t best = fastest(c, measure_budget(c.comms[0]), send, recv);
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

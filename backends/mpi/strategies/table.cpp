#include "mpi/strategies/table.hpp"

#include "core/error.hpp"

#include <array>
#include <string>

namespace dri::detail {

// One file each, beside this one.
Built build_alltoallw(const core::LocalPlan& plan, const ExecutorContext& ctx);
Built build_packed(const core::LocalPlan& plan, const ExecutorContext& ctx);
Built build_p2p(const core::LocalPlan& plan, const ExecutorContext& ctx);
Built build_shared(const core::LocalPlan& plan, const ExecutorContext& ctx);
Built build_hybrid(const core::LocalPlan& plan, const ExecutorContext& ctx);
Built build_nodes(const core::LocalPlan& plan, const ExecutorContext& ctx);

namespace {

// AUTO's cheap rule is the order of the rows marked in_auto: the single copy
// through shared memory for every pair when it applies (each byte read and
// written once, no message carries data); else the single copy for the pairs
// that can and messages for the others; else, on several nodes when the
// pieces between nodes are latency-bound, one message per pair of nodes
// through each node's leader (core/node_traffic.hpp has the rule); else
// point to point, which moves each byte the fewest times through MPI (no
// intermediate copy for contiguous sides or long runs, cache-blocked kernels
// otherwise) and overlaps the self copy with the messages. MEASURE times every row marked
// in_measure. AUTO that learns (commit/routes.cpp) holds the first rows of
// its rule that apply and, after them, MEASURE's other rows, up to three.
constexpr std::array<StrategyRow, 6> rows{{
    // kind              name         build            auto   measure needs peers pieces
    {Strategy::shared, "SHARED", build_shared, true, true, true, true},
    {Strategy::hybrid, "HYBRID", build_hybrid, true, true, true, false},
    {Strategy::nodes, "NODES", build_nodes, true, true, true, false},
    {Strategy::p2p, "P2P", build_p2p, true, true, false, true},
    {Strategy::packed, "PACKED", build_packed, false, true, false, false},
    {Strategy::alltoallw, "ALLTOALLW", build_alltoallw, false, true, false, false},
}};

} // namespace

const StrategyRow& strategy_row(Strategy s) {
    for (const StrategyRow& r : rows)
        if (r.kind == s) return r;
    core::fail(core::Errc::internal,
               "no strategy row for strategy " + std::to_string(static_cast<int>(s)));
}

Choice choose(Strategy requested, bool peers, bool split, bool learn) {
    Choice c;
    if (requested == Strategy::automatic && learn && peers) {
        c.adaptive = true;
        for (const bool rule : {true, false})
            for (const StrategyRow& r : rows)
                if (r.in_auto == rule && (rule || r.in_measure) && (r.pieces || !split))
                    c.candidates.push_back(&r);
    } else if (requested == Strategy::automatic) {
        c.first_that_applies = true;
        for (const StrategyRow& r : rows)
            if (r.in_auto && (peers || !r.auto_needs_peers) && (r.pieces || !split))
                c.candidates.push_back(&r);
    } else if (requested == Strategy::measure) {
        c.timed = true;
        for (const StrategyRow& r : rows)
            if (r.in_measure && (r.pieces || !split)) c.candidates.push_back(&r);
    } else {
        c.candidates.push_back(&strategy_row(requested));
    }
    return c;
}

} // namespace dri::detail

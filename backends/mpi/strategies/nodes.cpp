// NODES: node-aware messages. Every piece between processes on different
// nodes travels through the two nodes' leaders, so that each ordered pair of
// nodes exchanges one message per reorganization, however many processes
// each node has (node_relay.cpp); pairs on one node exchange messages as
// P2P, and the self part is a local copy. It pays when the messages between
// nodes are latency-bound: AUTO takes it on several nodes when the pieces
// between nodes average at most core::aggregation_max_mean_piece bytes and
// aggregating saves messages (core/node_traffic.hpp). A forced NODES always
// applies (on one node it is P2P); MEASURE times it on several nodes only.
#include "mpi/runtime/collectives.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/node_map.hpp"
#include "mpi/strategies/parts.hpp"

namespace dri::detail {

namespace {

// The pairs of `plan` on one side of the node boundary: within nodes (with
// the local part) or between nodes (without it).
core::LocalPlan pairs_plan(const core::LocalPlan& plan, const ExecutorContext& ctx,
                           const NodeMap& map, bool between) {
    const auto crosses = [&](const core::PeerRegions& p, const std::vector<int>& rank_of) {
        return !map.same_node(map.me, rank_of.at(static_cast<std::size_t>(p.peer)));
    };
    return plan_part(
        plan, !between,
        [&](std::size_t i) { return crosses(plan.sends[i], ctx.recv_rank) == between; },
        [&](std::size_t i) { return crosses(plan.recvs[i], ctx.send_rank) == between; });
}

// Why NODES is not worth building for this transfer unless forced ("" when
// it is), the same on every process.
std::string why_not_worth_it(const core::NodeTraffic& t, ExecutorContext::Asked asked) {
    if (asked == ExecutorContext::Asked::forced) return {};
    if (t.nodes < 2) return "all processes are on one node: no message crosses nodes";
    if (asked == ExecutorContext::Asked::measured || core::aggregate_between_nodes(t)) return {};
    if (t.pair_messages <= t.node_pair_messages)
        return "every pair of nodes exchanges one message already";
    return "the pieces between nodes average " + std::to_string(t.bytes / t.pair_messages) +
           " bytes, more than the " + std::to_string(core::aggregation_max_mean_piece) +
           " below which aggregating them pays";
}

} // namespace

Built build_nodes(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    CommUntilTaken comm(ctx.comm);
    const NodeMap map = map_nodes(plan, ctx);
    std::string why = why_not_worth_it(traffic_between_nodes(map, ctx.comm), ctx.asked);
    if (!why.empty()) return {nullptr, std::move(why)};
    // The relay runs on a communicator of its own.
    ExecutorContext relay_ctx = ctx;
    relay_ctx.comm = library_dup(ctx.comm);
    std::unique_ptr<Executor> relay =
        make_node_relay(pairs_plan(plan, ctx, map, true), relay_ctx, map);
    comm.take();
    std::unique_ptr<Executor> messages = make_p2p(pairs_plan(plan, ctx, map, false), ctx);
    // The relay is waited for first: a leader passes its node's aggregates
    // on as soon as they are complete.
    return {make_two_parts(std::move(relay), std::move(messages)), {}};
}

} // namespace dri::detail

// Executors that other strategies compose (HYBRID is the single copy for
// some pairs beside point-to-point messages for the others; NODES the relay
// between nodes beside point-to-point messages within them).
#pragma once

#include "mpi/strategies/executor.hpp"
#include "mpi/strategies/node_map.hpp"
#include "mpi/strategies/shared_reach.hpp"

#include <memory>

namespace dri::detail {

// Part of `plan`: the sends and receives whose index keep_send(i) and
// keep_recv(i) accept, and the local part (self copy, zero fills) when
// `local`. How a strategy that composes others splits its pairs.
template <class KeepSend, class KeepRecv>
core::LocalPlan plan_part(const core::LocalPlan& plan, bool local, KeepSend keep_send,
                          KeepRecv keep_recv) {
    core::LocalPlan p;
    p.elem_size = plan.elem_size;
    p.send_split = plan.send_split;
    p.recv_split = plan.recv_split;
    p.send_pieces = plan.send_pieces;
    p.recv_pieces = plan.recv_pieces;
    if (local) {
        p.self = plan.self;
        p.self_pieces = plan.self_pieces;
        p.fills = plan.fills;
    }
    for (std::size_t i = 0; i < plan.sends.size(); ++i)
        if (keep_send(i)) p.sends.push_back(plan.sends[i]);
    for (std::size_t i = 0; i < plan.recvs.size(); ++i)
        if (keep_recv(i)) p.recvs.push_back(plan.recvs[i]);
    return p;
}

// No pair of `plan`; its local part when `local`.
inline core::LocalPlan local_part(const core::LocalPlan& plan, bool local) {
    const auto none = [](std::size_t) { return false; };
    return plan_part(plan, local, none, none);
}

// Point to point over every pair of `plan` (p2p.cpp).
std::unique_ptr<Executor> make_p2p(const core::LocalPlan& plan, const ExecutorContext& ctx);

// The single copy over the pairs `reach` marks (shared.cpp); with `local`,
// also the self part and zero fills.
std::unique_ptr<Executor> make_shared_part(const core::LocalPlan& plan, const ExecutorContext& ctx,
                                           const SharedReach& reach, bool local);

// The pairs of `plan` between processes on different nodes, through the
// nodes' leaders (node_relay.cpp); `plan` holds no local part.
std::unique_ptr<Executor> make_node_relay(const core::LocalPlan& plan, const ExecutorContext& ctx,
                                          const NodeMap& map);

// Two executors over disjoint pairs of one plan, run together; `first` is
// waited for first (two_parts.cpp).
std::unique_ptr<Executor> make_two_parts(std::unique_ptr<Executor> first,
                                         std::unique_ptr<Executor> second);

} // namespace dri::detail

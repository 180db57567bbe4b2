// Executors that other strategies compose (HYBRID is the single copy for
// some pairs beside point-to-point messages for the others; NODES the relay
// between nodes beside point-to-point messages within them).
#pragma once

#include "mpi/strategies/executor.hpp"
#include "mpi/strategies/node_map.hpp"
#include "mpi/strategies/shared_reach.hpp"

#include <memory>

namespace dri::detail {

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

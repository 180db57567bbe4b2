// Executors that other strategies compose (HYBRID is the single copy for
// some pairs beside point-to-point messages for the others).
#pragma once

#include "mpi/strategies/executor.hpp"
#include "mpi/strategies/shared_reach.hpp"

#include <memory>

namespace dri::detail {

// Point to point over every pair of `plan` (p2p.cpp).
std::unique_ptr<Executor> make_p2p(const core::LocalPlan& plan, const ExecutorContext& ctx);

// The single copy over the pairs `reach` marks (shared.cpp); with `local`,
// also the self part and zero fills.
std::unique_ptr<Executor> make_shared_part(const core::LocalPlan& plan, const ExecutorContext& ctx,
                                           const SharedReach& reach, bool local);

} // namespace dri::detail

// Adaptive AUTO at commit (docs/concepts.md, "AUTO keeps learning"): the
// routes a pair holds, within a memory cap, behind the executor that
// learns among them (strategies/adaptive.hpp), and the settings that say
// how much it learns.
#pragma once

#include "core/route_learner.hpp"
#include "mpi/commit/candidates.hpp"
#include "mpi/strategies/table.hpp"

#include <mpi.h>

namespace dri::detail {

// DRI_AUTO_LEARNING: on (the default), once or off; anything else is
// ignored with a warning.
core::Learning learning_from_environment();

// The scratch bytes per process a route other than the static rule's
// choice may need and still be held (DRI_AUTO_MEMORY, in bytes, with an
// optional K, M or G suffix; 128 MiB by default). The routes share one
// arena, as large as the largest route's scratch: so AUTO that learns holds
// at most this much more than the static rule's route would.
inline constexpr core::Index default_learning_memory = core::Index{128} << 20;
core::Index learning_memory_cap();

// How the routes learn: the mode agreed, and whether the pair's first
// process asks `transfer` to start from a learned file (its learned_path).
struct LearningAsked {
    core::Learning mode = core::Learning::on;
    bool from_file = false;
    const TransferImpl* transfer = nullptr;
};

// Collective over `comm` (borrowed; each route gets a duplicate): builds the
// first candidates of `choice` that apply, up to core::max_routes, keeps
// those within the memory cap on every process, and returns one executor:
// the adaptive one over them (seeded from the learned file when asked), or
// the one route left.
Candidates build_routes(const Choice& choice, const core::LocalPlan& plan, ExecutorContext ctx,
                        MPI_Comm comm, const LearningAsked& asked);

} // namespace dri::detail

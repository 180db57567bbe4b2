// A fan-out transfer's executor on one process: the executors of the pairs
// (sending side, one receiving side) this process takes part in, driven
// together, so that one reorganization of a producer delivers its buffer to
// every receiving side while each consumer completes only its own pair.
#pragma once

#include "mpi/strategies/executor.hpp"

#include <memory>
#include <vector>

namespace dri::detail {

// One pair's executor, and whether this process receives in that pair (it
// receives in at most one).
struct PairExecutor {
    std::unique_ptr<Executor> exec;
    bool receives = false;
};

std::unique_ptr<Executor> make_fanout(std::vector<PairExecutor> pairs);

} // namespace dri::detail

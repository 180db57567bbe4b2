// Commit's planning and executor phases for one transfer: this process's
// plan, then the executors of the strategies the request allows
// (strategies/table.hpp), and, for MEASURE, the timing that keeps the fastest.
#pragma once

#include "core/declaration.hpp"
#include "mpi/objects.hpp"
#include "mpi/strategies/executor.hpp"

#include <mpi.h>

#include <memory>
#include <vector>

namespace dri::detail {

class AdaptiveExecutor;

// The executors built for one transfer, with the strategy of each.
struct Candidates {
    std::vector<Strategy> kinds;
    std::vector<std::unique_ptr<Executor>> execs;
    std::vector<MPI_Comm> comms; // each executor's (owned by it); MEASURE's only
    // AUTO that learns: the one executor, which holds the routes (else null).
    AdaptiveExecutor* adaptive = nullptr;
};

// The executors of the pair of the sending side and receiving side `k` of
// `m`, in which this process is receiver `ri` (or -1). Collective over
// `comm`, the communicator of the pair's participants (borrowed: every
// executor gets a duplicate). Throws, the same error on every participant,
// when a forced strategy does not apply.
Candidates build_candidates(const TransferImpl& t, const core::Match& m, std::size_t k, int ri,
                            MPI_Comm comm);

// Collective over the transfer's participants: times every candidate (one
// warm-up, then rounds interleaving the candidates within the budget of
// runtime/measure_budget.hpp, the slowest participant counting; a candidate
// that cannot win is dropped early) and keeps the one of lowest median. Moves the user's buffers
// (receive buffers are overwritten, like FFTW_MEASURE). `receives`: whether this process receives
// in this pair.
void keep_fastest(const TransferImpl& t, Candidates& c, bool receives);

} // namespace dri::detail

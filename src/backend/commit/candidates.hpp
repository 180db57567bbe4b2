// Commit's planning and executor phases for one transfer: this process's
// plan, then the executors of the strategies the request allows
// (strategies/table.hpp), and, for MEASURE, the timing that keeps the fastest.
#pragma once

#include "backend/objects.hpp"
#include "backend/strategies/executor.hpp"
#include "core/declaration.hpp"

#include <mpi.h>

#include <memory>
#include <vector>

namespace dri::detail {

// The executors built for one transfer, with the strategy of each.
struct Candidates {
    std::vector<Strategy> kinds;
    std::vector<std::unique_ptr<Executor>> execs;
    std::vector<MPI_Comm> comms; // each executor's (owned by it)
};

// Collective over `comm`, the communicator of the transfer's participants
// (borrowed: every executor gets a duplicate). Throws, the same error on
// every participant, when a forced strategy does not apply.
Candidates build_candidates(const TransferImpl& t, const core::Match& m, MPI_Comm comm);

// Collective over the transfer's participants: times every candidate (one
// warm-up, then the median of three runs, the slowest participant counting)
// and keeps only the fastest. Moves the user's buffers (receive buffers are
// overwritten, like FFTW_MEASURE).
void keep_fastest(const TransferImpl& t, Candidates& c);

} // namespace dri::detail

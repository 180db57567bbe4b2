// How long MEASURE may time its candidates at commit: at most `reps` timed
// rounds each, and no more rounds once `seconds` of timed runs have passed
// (at least min_rounds are always timed). Read from the environment
// (DRI_MEASURE_REPS, DRI_MEASURE_SECONDS) of rank 0 of the committing
// communicator, so every process runs the same rounds.
#pragma once

#include <mpi.h>

namespace dri::detail {

struct MeasureBudget {
    static constexpr int min_rounds = 3;
    int reps = 7;
    double seconds = 1.0;
};

// Parses the two variables (null: unset); a value that is not a positive
// number keeps the default.
MeasureBudget budget_from(const char* reps, const char* seconds);

// Collective over comm: rank 0's budget.
MeasureBudget measure_budget(MPI_Comm comm);

} // namespace dri::detail

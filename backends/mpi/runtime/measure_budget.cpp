#include "mpi/runtime/measure_budget.hpp"

#include "mpi/runtime/handles.hpp"

#include <algorithm>
#include <cstdlib>

namespace dri::detail {

MeasureBudget budget_from(const char* reps, const char* seconds) {
    MeasureBudget b;
    if (reps) {
        char* end = nullptr;
        const long r = std::strtol(reps, &end, 10);
        if (end != reps && *end == '\0' && r > 0) b.reps = static_cast<int>(std::min(r, 1000L));
    }
    if (seconds) {
        char* end = nullptr;
        const double s = std::strtod(seconds, &end);
        if (end != seconds && *end == '\0' && s > 0) b.seconds = s;
    }
    return b;
}

MeasureBudget measure_budget(MPI_Comm comm) {
    MeasureBudget b =
        budget_from(std::getenv("DRI_MEASURE_REPS"), std::getenv("DRI_MEASURE_SECONDS"));
    double both[2] = {static_cast<double>(b.reps), b.seconds};
    check_mpi(MPI_Bcast(both, 2, MPI_DOUBLE, 0, comm), "MPI_Bcast");
    b.reps = static_cast<int>(both[0]);
    b.seconds = both[1];
    return b;
}

} // namespace dri::detail

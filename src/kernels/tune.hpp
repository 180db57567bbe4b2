// Choosing the kernel parameters (kernels/params.hpp) by timing the copy
// kernels on the host they run on, instead of trusting one host's
// constants: a fraction of a second of transposes, once per process.
#pragma once

#include "kernels/params.hpp"

#include <string>

namespace dri::core {

struct KernelTuning {
    KernelParams params; // the chosen values (the defaults where nothing won)
    double seconds = 0;  // what the measurement took
    std::string detail;  // per parameter: the candidates' times, for the report
};

// The last-level cache of this host's first CPU in bytes (sysfs), or 0.
Index last_level_cache();

// Times the candidates of each parameter on transposes of `data_bytes`
// (choose it larger than this process's share of the last-level cache:
// the parameters are about streams from memory), in three interleaved
// rounds. A candidate replaces the default only when it was at least 3%
// faster than the default in every round, so that noise (another process's
// burst of work) does not move a parameter from a value measured to be
// good; the medians are reported. The non-temporal threshold is timed as
// a transpose followed by a read of its destination, as a consumer reads
// what arrived: stores that bypass the cache make that read miss. Gives up
// past `budget_seconds`, keeping the defaults of the parameters not measured
// yet. Allocates three times `data_bytes` for the duration; no MPI. Does
// not set the parameters.
KernelTuning measure_kernel_params(double budget_seconds, Index data_bytes);

} // namespace dri::core

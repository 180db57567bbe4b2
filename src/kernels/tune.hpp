// Choosing the kernel parameters (kernels/params.hpp) by timing the copy
// kernels on the host they run on, instead of trusting one host's
// constants: a fraction of a second of transposes, once per process.
#pragma once

#include "kernels/params.hpp"

#include <string>
#include <vector>

namespace dri::core {

struct KernelTuning {
    KernelParams params; // the chosen values (the defaults where nothing won)
    double seconds = 0;  // what the measurement took
    std::string detail;  // per parameter: the candidates' times, for the report
};

// Of candidates' times in the same rounds (index 0 the default, the value
// kept unless another wins), the one to keep: another replaces the default
// only when it was at least 3% faster than the default in every round, the
// largest such margin winning, so that a burst of another process's work in
// one round cannot move a parameter.
int keep(const std::vector<std::vector<double>>& times);

// One size of the non-temporal threshold's measurement: a transpose of
// `bytes` followed by a read of its destination, with stores through the
// cache and with non-temporal stores, per round, each timed in steady state
// (right after a run of its own, as a transfer called in a loop runs).
struct NtRace {
    Index bytes = 0;
    std::vector<double> cached, non_temporal;
};

// The threshold from races of increasing sizes: the smallest size at which
// non-temporal stores won (keep(), stores through the cache being the
// default); twice the largest size measured when they won at none; -1 when
// nothing was measured. Stores through the cache are the side to beat: they
// never make the consumer's next read miss, and where the two are within
// noise they cost nothing.
Index nt_threshold_from(const std::vector<NtRace>& races);

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
// what arrived: stores that bypass the cache make that read miss
// (nt_threshold_from). Gives up
// past `budget_seconds`, keeping the defaults of the parameters not measured
// yet. Allocates three times `data_bytes` for the duration; no MPI. Does
// not set the parameters.
KernelTuning measure_kernel_params(double budget_seconds, Index data_bytes);

} // namespace dri::core

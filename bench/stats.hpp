// Summary statistics of one method's times per reorganization.
#pragma once

#include <vector>

namespace dri::bench {

struct Stats {
    double median = 0, min = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
    // Nearest-rank percentiles (p90: the smallest time at least 90 % of the
    // reps do not exceed); the median of an even count is the mean of the
    // middle two.
    static Stats of(std::vector<double> times);
    double jitter() const { return median > 0 ? max / median : 0; } // worst frame over typical
};

} // namespace dri::bench

// The measurement of one problem: every method called once cold, warmed up,
// checked against the oracle, then timed rep by rep, interleaved (rep r of
// every method before rep r + 1 of any), so drifts of the machine spread
// over all methods alike. A time is the slowest rank's.
#pragma once

#include "method.hpp"

#include <string>
#include <vector>

namespace dri::bench {

struct Timings {
    std::vector<double> reps; // slowest rank's seconds per timed rep
    double first = 0;         // the first call after setup (cold), slowest rank
    double setup = 0;         // setup (DRI: commit), slowest rank
    long long heap = -1;      // heap bytes held after setup, largest rank
    long long rss = -1;       // resident growth over setup and the first call, largest rank
    std::string error;        // wrong data on some rank: its first mismatch
};

struct MeasureOptions {
    int reps = 10, warmup = 2;
    bool progress = true; // rank 0 reports reps on stderr
    std::string trace;    // --trace: the CSV file of every timed rep per rank ("": none)
    bool rotate = false;  // --rotate: each method follows every other equally often
};

// Collective over the problem's communicator.
std::vector<Timings> measure(std::vector<Method>& methods, const Problem& pb, Rings& rings,
                             const MeasureOptions& o);

} // namespace dri::bench

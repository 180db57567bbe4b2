// --scenario pipeline and pipeline_turn: the latency of a frame that moves
// as it is produced (pieces, DRI_Transfer_set_pieces), against the same
// frame moved whole and against hand-written MPI that sends each piece as
// its work is done (docs/bench.md, "Pipelines: a frame that moves as it is
// produced").
#pragma once

#include "results.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace dri::bench {

// Collective over comm: every method's frame latency, its back-to-back
// frame rate (--stream-frames) and its latency without work (the per-piece
// overhead), printed on rank 0 as one report; one RunResult each. Throws
// dri::core::Error or std::runtime_error where the scenario cannot apply
// (the same on every rank).
std::vector<RunResult> run_pipeline(const Options& o, const tools::SpecOptions& spec,
                                    MPI_Comm comm);

namespace pipe {

// The work per element (--work-passes): given, or chosen so that the
// producer's work per frame about equals the whole frame's transfer.
struct Calibration {
    int passes = 0;
    bool automatic = false;
    double transfer_s = 0; // auto: one whole-frame DRI_Do without work, median, slowest rank
    double pass_s = 0;     // auto: one kernel pass over the largest producer block
};

// Prints the report on rank 0 and records what the table derives (frames
// per second, overhead per piece, the kernel) in each run's JSON `extra`.
// `stream` is null when --stream-frames is 0.
void report(const Options& o, const Calibration& cal, RunResult& latency, RunResult* stream,
            RunResult& work0, int rank);

} // namespace pipe

} // namespace dri::bench

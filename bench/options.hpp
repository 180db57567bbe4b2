// dri-bench's command line: the reorganization in dri-plan's vocabulary
// (programs/spec_options.hpp) or a named scenario, and how to measure it.
#pragma once

#include "spec_options.hpp"

#include <string>
#include <utility>
#include <vector>

namespace dri::bench {

struct Options {
    tools::SpecOptions spec;
    std::string scenario; // a shorthand for a spec ("" when given by flags)
    int halo = -1;        // halo rows each side (halo, reverse_halo); -1: the scenario's default
    std::string grid;     // ptrans: the process grid PxQ ("": the most square one)
    long long nb = 80;    // ptrans: the block size
    std::string send_ranks, recv_ranks;
    std::vector<std::string> strategies{"alltoallw", "packed", "p2p", "shared", "hybrid"};
    std::vector<std::string> methods; // empty: every method
    int reps = 10, warmup = 2, buffers = 1, sweep_steps = 5;
    std::string memory = "shared"; // send rings: shared, allocator, owned or heap (rings.hpp)
    std::string sweep = "none";    // none | sizes | ranks-per-node
    std::string combine = "none";  // none | sum | max | min: the receivers combine (DRI only)
    std::string json, csv;
    std::string trace;           // --trace: every timed rep per rank, as CSV (trace.hpp)
    bool count_messages = false; // one more call per method with the PMPI counter on
    bool rotate = false;         // --rotate: each rep starts one method later
    // --scenario pipeline and pipeline_turn (pipeline.hpp): the piece counts
    // timed, the kernel's passes per element ("auto": about the transfer's
    // time) and the frames of each back-to-back rep (0: not measured).
    std::vector<int> pieces{1, 8, 32, 128};
    std::string work_passes = "auto";
    int stream_frames = 5;
    std::vector<std::string> argv; // the full command line, recorded in the JSON
};

// Parses the command line. Returns -1 to go on, or the exit status (0 after
// --help); errors are printed by rank 0 only.
int parse_options(int argc, char** argv, int rank, Options& o);

// The spec of a named scenario at `size` ranks on the given shape (empty:
// the scenario's default shape) with `halo` rows of overlap (halo and
// reverse_halo; -1: the scenario's default). Throws dri::core::Error for an
// unknown name or a shape of the wrong dimension. reverse_halo's spec is the
// forward halo exchange; what is timed is its reverse (SUM).
tools::SpecOptions scenario_spec(const std::string& name, const std::string& shape,
                                 const std::string& type, int size, int halo = -1,
                                 const std::string& grid = "", long long nb = 80);

// Whether a scenario times the reverse (SUM) of its spec's transfer.
bool is_reverse_scenario(const std::string& name);

// Whether a scenario times frames that move as they are produced (pieces):
// pipeline and pipeline_turn, with methods of their own (pipeline.hpp).
bool is_pipeline_scenario(const std::string& name);

// --scenario ptrans's process grid {P, Q} at `size` ranks: `grid` ("PxQ";
// "": P the largest divisor of size not above its square root). Throws
// dri::core::Error when P * Q is not size.
std::pair<int, int> ptrans_grid(const std::string& grid, int size);

// --scenario ptrans's receiving ranks: C's block (p, q) is coordinate (q, p)
// of the receiver's Q x P grid and is held by rank p*Q + q (HPCC's
// row-major BLACS numbering), so receiver index g = q*P + p is rank
// (g mod P)*Q + g / P.
std::vector<int> ptrans_recv_ranks(int P, int Q);

// The flags that give the same reorganization as `s` (printed and recorded
// so a shorthand run can be reproduced, and changed, with flags).
std::string spec_flags(const tools::SpecOptions& s);

} // namespace dri::bench

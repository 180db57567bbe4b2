// What AUTO that learns learned, kept in a file for a later run to start
// from (docs/api.md, "A learned file"), as FFTW keeps its wisdom. Pure
// logic, without MPI: the text of the file, read back with every field
// checked, and the keys that say which transfer, on which machine, an entry
// is about. A file written by another dri version or MPI library, or for
// another node layout, is never trusted; a damaged one is refused whole.
#pragma once

#include "core/plan.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dri::core {

// Where a file comes from: what was learned holds for this dri and this MPI
// library only (their routes and their speeds differ).
struct LearnedOrigin {
    std::string dri_version; // e.g. "1.0.0"
    std::string mpi_library; // the first line of MPI_Get_library_version
};

// One transfer's (one pair's) learning.
struct LearnedEntry {
    std::uint64_t transfer = 0;  // its plans, over its processes in rank order
    std::uint64_t nodes = 0;     // how its processes lie on nodes
    std::vector<int> strategies; // its routes (DRI_Strategy values), the static rule's first
    int current = 0;             // the route it ran
    std::vector<double> seconds; // each route's last agreed time; -1 when never timed
    friend bool operator==(const LearnedEntry&, const LearnedEntry&) = default;
};

// The file's text: a header naming its origin, one line per entry, and a
// last line with the entry count and a checksum of everything before it.
std::string format_learned(const LearnedOrigin& origin, const std::vector<LearnedEntry>& entries);

// The entries of `text` when it is a whole, undamaged file of this origin;
// else none, and `problem` says why (for the warning).
struct LearnedRead {
    std::vector<LearnedEntry> entries;
    std::string problem; // empty when the file was read
};
LearnedRead parse_learned(std::string_view text, const LearnedOrigin& origin);

// The largest file read (a learned file holds a line per transfer).
inline constexpr std::size_t max_learned_bytes = std::size_t{1} << 20;

// `entries` with `add` in place of the entries about the same transfer on
// the same node layout, in their order; the others kept.
std::vector<LearnedEntry> merge_learned(std::vector<LearnedEntry> entries,
                                        const std::vector<LearnedEntry>& add);

// The entry for a transfer with these keys and these routes: its index in
// `entries`, or -1 with `why` saying what did not match.
int find_learned(const std::vector<LearnedEntry>& entries, std::uint64_t transfer,
                 std::uint64_t nodes, const std::vector<int>& strategies, std::string& why);

// This process's part of a transfer's key: everything its plan moves, where
// from and where to (equal plans, equal keys).
std::uint64_t plan_key(const LocalPlan& plan);

// A 64-bit mix of two values (the processes' parts are joined with XOR, each
// mixed with its rank first, so that the order of the processes counts).
std::uint64_t mix_key(std::uint64_t a, std::uint64_t b);

} // namespace dri::core

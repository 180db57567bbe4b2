// Partitions: how each dimension of the global array is cut into blocks.
#pragma once

#include "core/shape.hpp"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace dri::core {

inline constexpr Index unbounded = std::numeric_limits<Index>::max();

// What a block's overlap holds where it reaches past the global bounds.
// Values are the C binding's DRI_EDGE_*.
enum class EdgePolicy : int {
    truncate = 0,  // the overlap stops at the bound: fewer cells are stored
    zero = 1,      // cells past the bound are stored and filled with zero bytes
    replicate = 2, // cells past the bound repeat the edge element
    wrap = 3,      // cells past the bound take the elements of the other end (torus)
};

// Values are the C binding's DRI_PART_*.
enum class PartKind : int {
    whole = 0,  // the dimension is not cut: one process along it
    block = 1,  // contiguous blocks, sizes differing by at most one
    cyclic = 2, // blocks of block_size elements dealt round-robin
    ranges = 3, // explicit [first, last] per process coordinate
};

// An inclusive index range [first, last]; empty when last == first - 1.
struct Range {
    Index first = 0;
    Index last = -1;
    Index size() const { return last - first + 1; }
    friend bool operator==(const Range&, const Range&) = default;
};

// Partition of one dimension: DRI's 4-tuple (left overlap, min block extent,
// max block extent, right overlap) plus the kind and an optional process count.
struct DimPartition {
    PartKind kind = PartKind::block;
    Index left = 0;              // overlap before each block
    Index right = 0;             // overlap after each block
    Index min_block = 1;         // block: smallest allowed block extent (0 allows empty blocks)
    Index max_block = unbounded; // block: largest allowed block extent
    Index block_size = 0;        // cyclic: elements per block
    int nprocs = 0;              // processes along this dimension; 0 = chosen by the library
    std::vector<Range> ranges;   // ranges: one per process coordinate
    EdgePolicy edge = EdgePolicy::truncate;

    static DimPartition whole(Index left = 0, Index right = 0,
                              EdgePolicy edge = EdgePolicy::truncate);
    static DimPartition block(int nprocs = 0);
    // The DRI 4-tuple.
    static DimPartition block4(Index left, Index min_block, Index max_block, Index right,
                               EdgePolicy edge = EdgePolicy::truncate);
    static DimPartition cyclic(Index block_size, int nprocs = 0);
    static DimPartition explicit_ranges(std::vector<Range> ranges);

    DimPartition& with_overlap(Index l, Index r, EdgePolicy e) {
        left = l;
        right = r;
        edge = e;
        return *this;
    }
    friend bool operator==(const DimPartition&, const DimPartition&) = default;
};

using Partition = std::vector<DimPartition>;

// Checks a partition against a shape (dimension count, overlap, min/max,
// ranges inside the bounds). Throws Error with a message naming the dimension.
void validate_partition(const Shape& shape, const Partition& part);
// The checks of one dimension; without an extent only those that do not
// depend on it (used when a partition is created on its own). The extent is
// optional rather than a sentinel value: every Index is a possible extent.
void validate_dim_partition(const DimPartition& dp, std::size_t dim, std::optional<Index> extent);

// Whether `p` processes along dimension `d` satisfy that dimension's constraints.
// On failure `why` (if given) says which constraint failed.
bool dim_count_fits(Index extent, const DimPartition& dp, Index p, std::string* why = nullptr);

// The process grid (processes per dimension, product == nprocs). Counts given
// in the partition are kept; the others are chosen among all factorizations
// that satisfy the min/max constraints, preferring the smallest sum of block
// extents (the most cube-like blocks), ties to more processes in earlier
// dimensions. Throws Errc::grid when nothing fits.
std::vector<int> choose_grid(const Shape& shape, const Partition& part, int nprocs);

// The text notation of docs/concepts.md ("Text notation"), in its canonical
// form; parse_partition (core/spec.hpp) reads it back to an equal partition.
std::string to_string(const DimPartition& dp); // e.g. "block[0:]/2~1:1:wrap"
std::string to_string(const Partition& p);     // items comma separated: "block,whole"
std::string to_string(PartKind k);             // "whole", "block", "cyclic", "ranges"
std::string to_string(EdgePolicy e);           // "truncate", "zero", "replicate", "wrap"

} // namespace dri::core

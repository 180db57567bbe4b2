// Pieces: one side's block split along one dimension, so that a frame can
// move piece by piece (a producer marks each piece of its send buffer ready,
// a consumer waits for each piece of its receive buffer). A piece is a
// range of local indices along the split dimension, every index of the
// others. The planner groups a pair's regions by the sender's pieces (one
// message per pair and sender piece) and says which receiver pieces each
// group lands in.
#pragma once

#include "core/distribution.hpp"

#include <utility>
#include <vector>

namespace dri::core {

// Most pieces one side may be split into (DRI_MAX_PIECES): a piece is a
// message tag, and MPI promises tags up to 32767.
constexpr int max_pieces = 16384;

struct PieceSplit {
    int dim = -1;  // the split dimension; -1: not split, one piece
    int count = 1; // pieces per process
    // Explicit boundaries per process of the side (count + 1 local indices
    // each, from 0 to the block's extent along dim); empty: even pieces.
    // Only the processes that gave their own carry a list; an empty list
    // means even pieces for that process.
    std::vector<std::vector<Index>> bounds;
    bool split() const { return dim >= 0; }
    // Piece k of process `index` of `dist`: its local range [first, second)
    // along dim (the whole extent when not split).
    std::pair<Index, Index> range(const Distribution& dist, int index, int k) const;
    friend bool operator==(const PieceSplit&, const PieceSplit&) = default;
};

// Piece k of count even pieces of a block of `extent` cells: [lo, hi).
std::pair<Index, Index> even_piece(Index extent, int count, int k);

// Checks a split one process asks for (Errc::arg): a dimension of the
// array, a count in [1, max_pieces] and, when `bounds` is not empty,
// count + 1 non-decreasing boundaries from 0 to `extent`.
void check_split(int ndims, int dim, int count, const std::vector<Index>& bounds, Index extent);

} // namespace dri::core

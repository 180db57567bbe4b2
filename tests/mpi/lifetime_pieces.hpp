// Pieces in the lifetime state machine (test_lifetime_mpi.cpp): the parts of
// its model that need nothing of the sequence itself.
//
// - Split: the split one process asked for on one role
//   (DRI_Transfer_set_pieces, DRI_Transfer_set_piece_bounds); every process
//   of a side must ask for the same dimension and count, or the commit is
//   DRI_ERR_INCONSISTENT on every process (boundaries are each process's own,
//   so the model does not follow them).
// - Marks: per rank, the send pieces it marked ready (DRI_Piece_ready) in
//   the reorganization in flight.
// - Where each word of a ring buffer lies in its block (local indices), so
//   that a sender writes a piece's cells only just before it marks the
//   piece, and a receiver checks a piece's cells as soon as it has arrived.
// - The bad arguments of a split, and a process's own boundaries.
#pragma once

#include "dri/dri.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lifetime {

// One process's split of a role: the dimension (-1: never split) and the
// piece count (1 when never split).
struct Split {
    int dim = -1, count = 1;
    bool split() const { return dim >= 0; }
    bool operator==(const Split&) const = default;
};

// The splits of one side, per rank, and whether all the ranks in `ranks`
// (a bit per rank: those that declared the side) asked for the same.
inline Split split_of(const std::vector<Split>& per_rank, int r) {
    return r >= 0 && static_cast<std::size_t>(r) < per_rank.size()
               ? per_rank[static_cast<std::size_t>(r)]
               : Split{};
}

inline bool splits_agree(const std::vector<Split>& per_rank, std::uint32_t ranks) {
    bool first = true;
    Split s;
    for (int r = 0; r < 32 && (ranks >> r) != 0; ++r) {
        if (!((ranks >> r) & 1U)) continue;
        if (first) s = split_of(per_rank, r), first = false;
        if (!(split_of(per_rank, r) == s)) return false;
    }
    return true;
}

// The split of the lowest rank of `ranks` (the side's, when they agree).
inline Split split_of_side(const std::vector<Split>& per_rank, std::uint32_t ranks) {
    for (int r = 0; r < 32; ++r)
        if ((ranks >> r) & 1U) return split_of(per_rank, r);
    return {};
}

// The send pieces each rank has marked ready in the reorganization in
// flight: empty for a rank whose send role is not split (or that has none).
struct Marks {
    std::vector<std::vector<char>> of; // per rank, per piece

    // A reorganization started: nothing marked; the ranks of `splitting`
    // have `count` pieces each.
    void start(int ranks, std::uint32_t splitting, int count) {
        of.assign(static_cast<std::size_t>(ranks), {});
        for (int r = 0; r < ranks; ++r)
            if ((splitting >> r) & 1U)
                of[static_cast<std::size_t>(r)].assign(static_cast<std::size_t>(count), 0);
    }
    void clear() { of.clear(); }
    // The pieces of rank r not marked yet, in piece order.
    std::vector<int> unmarked(int r) const {
        std::vector<int> k;
        if (static_cast<std::size_t>(r) >= of.size()) return k;
        const std::vector<char>& m = of[static_cast<std::size_t>(r)];
        for (std::size_t i = 0; i < m.size(); ++i)
            if (!m[i]) k.push_back(static_cast<int>(i));
        return k;
    }
    bool any_unmarked(int r) const { return !unmarked(r).empty(); }
    bool any_marked(int r) const {
        return static_cast<std::size_t>(r) < of.size() &&
               std::any_of(of[static_cast<std::size_t>(r)].begin(),
                           of[static_cast<std::size_t>(r)].end(), [](char c) { return c != 0; });
    }
    bool all() const {
        for (std::size_t r = 0; r < of.size(); ++r)
            if (any_unmarked(static_cast<int>(r))) return false;
        return true;
    }
    void mark(int r, int k) { of[static_cast<std::size_t>(r)][static_cast<std::size_t>(k)] = 1; }
    bool marked(int r, int k) const {
        return of[static_cast<std::size_t>(r)][static_cast<std::size_t>(k)] != 0;
    }
};

// Per word of a block buffer: its local indices along each dimension (as
// DRI_Transfer_piece counts them: 0 at the first stored element of the
// block, halo included), {-1, -1} for padding.
using LocalIndex = std::array<DRI_Index, 2>;

inline std::vector<LocalIndex> local_map(const DRI_Blockinfo& b, int ndims) {
    std::vector<LocalIndex> map(static_cast<std::size_t>(b.bytes / 4), LocalIndex{-1, -1});
    const DRI_Index n1 = ndims > 1 ? b.local_extent[1] : 1;
    for (DRI_Index i0 = 0; i0 < b.local_extent[0]; ++i0)
        for (DRI_Index i1 = 0; i1 < n1; ++i1) {
            const DRI_Index off = i0 * b.strides[0] + (ndims > 1 ? i1 * b.strides[1] : 0);
            map[static_cast<std::size_t>(off)] = {i0, ndims > 1 ? i1 : 0};
        }
    return map;
}

// Calls f(word) for every word of a block whose local index along `dim`
// lies in [lo, hi); every stored word when dim < 0 (a role never split is
// one piece).
template <class F>
void for_piece_words(const std::vector<LocalIndex>& local, int dim, DRI_Index lo, DRI_Index hi,
                     F&& f) {
    for (std::size_t w = 0; w < local.size(); ++w) {
        if (local[w][0] < 0) continue;
        if (dim >= 0) {
            const DRI_Index i = local[w][static_cast<std::size_t>(dim)];
            if (i < lo || i >= hi) continue;
        }
        f(w);
    }
}

// The bad arguments of a split (one at most, on one rank).
enum SplitBad {
    kSplitDim,        // a dimension outside the array: DRI_ERR_ARG
    kSplitCountZero,  // count 0: DRI_ERR_ARG
    kSplitCountHuge,  // DRI_MAX_PIECES + 1: DRI_ERR_ARG
    kSplitBoundsEnd,  // boundaries that end past the block: DRI_ERR_ARG
    kSplitBoundsBack, // boundaries that decrease: DRI_ERR_ARG
    kSplitBoundsNull, // bounds NULL: DRI_ERR_NULL
    kSplitRole,       // a role that is neither DRI_ROLE_SEND nor DRI_ROLE_RECV: DRI_ERR_ARG
    kSplitStale,      // a stale transfer handle: DRI_ERR_HANDLE
    kSplitBads
};

inline const char* split_bad_text(int v) {
    static const char* const text[] = {"a dimension outside the array",
                                       "count 0",
                                       "count DRI_MAX_PIECES + 1",
                                       "boundaries that end past the block",
                                       "boundaries that decrease",
                                       "bounds NULL",
                                       "an unknown role",
                                       "a stale transfer"};
    return v >= 0 && v < kSplitBads ? text[v] : "legal arguments";
}

// A process's own boundaries of `count` pieces over a block of extent e
// along the split dimension: 0, sorted draws in [0, e], e (empty pieces
// too); or, bad, ending at e + 1 or going back. `below(n)` draws in [0, n).
template <class Below>
std::vector<DRI_Index> draw_bounds(DRI_Index e, int count, int bad, Below&& below) {
    std::vector<DRI_Index> b(static_cast<std::size_t>(count) + 1, 0);
    for (int k = 1; k < count; ++k)
        b[static_cast<std::size_t>(k)] = below(static_cast<int>(e) + 1);
    b.back() = e;
    std::sort(b.begin() + 1, b.end() - 1);
    if (bad == kSplitBoundsEnd) b.back() = e + 1;
    if (bad == kSplitBoundsBack && count >= 3) b[1] = e, b[2] = 0; // e > 0: every block has a cell
    return b;
}

} // namespace lifetime

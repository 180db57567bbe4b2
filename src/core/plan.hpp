// Plan logic: for a sending (distribution, layout) and a receiving
// (distribution, layout) of the same global shape, which region of which
// sender's buffer goes to which region of which receiver's buffer.
//
// A region is a strided box of elements described in both buffers by a byte
// offset and up to 2 * ndims axes (extent, sender byte stride, receiver byte
// stride), outermost axis first. A sender stride of 0 repeats one source
// element (replicated edge). Both sides of a pair compute the same regions in
// the same order, so packing on one side and unpacking on the other, or MPI
// datatypes built from each side's half, match element for element.
#pragma once

#include "core/distribution.hpp"
#include "core/layout.hpp"
#include "core/pieces.hpp"

#include <vector>

namespace dri::core {

struct Axis {
    Index n = 1; // number of elements along this axis
    Index s = 0; // byte stride in the sender's buffer
    Index r = 0; // byte stride in the receiver's buffer
    friend bool operator==(const Axis&, const Axis&) = default;
};

struct Region {
    Index s_off = 0;        // byte offset in the sender's buffer
    Index r_off = 0;        // byte offset in the receiver's buffer
    std::vector<Axis> axes; // outermost first; empty means one element
    Index elements() const;
    friend bool operator==(const Region&, const Region&) = default;
};

struct PeerRegions {
    int peer = -1;      // receiver index (in sends) or sender index (in recvs)
    Index elements = 0; // total over the regions
    std::vector<Region> regions;
    // When the sending side is split into pieces (core/pieces.hpp), a pair
    // has one entry per sender piece with cells in it, in piece order: its
    // piece, and (in recvs) the receiver's pieces its cells land in. Not
    // split: one entry, piece 0, landing in piece 0 (or every receiver
    // piece its cells reach).
    int piece = 0;
    std::vector<int> lands;
};

// One side of a reorganization. Each process may store its block in its own
// layout: `layouts[i]` is process i's when `layouts` is not empty, else every
// process stores in `layout`.
struct Side {
    Side(const Distribution* d = nullptr, Layout l = {}, std::vector<Layout> own = {},
         PieceSplit pieces = {})
        : dist(d), layout(std::move(l)), layouts(std::move(own)), split(std::move(pieces)) {}
    const Distribution* dist = nullptr;
    Layout layout;
    std::vector<Layout> layouts;
    PieceSplit split; // how the side's processes split their blocks (not split: one piece)
    const Layout& layout_of(int index) const {
        return layouts.empty() ? layout : layouts[static_cast<std::size_t>(index)];
    }
};

// What one process does in one reorganization. A process may be a sender
// (send_index >= 0), a receiver (recv_index >= 0), or both; `self` holds the
// regions it moves from its own send buffer to its own receive buffer.
struct LocalPlan {
    Index elem_size = 1;
    LocalLayout send_layout;        // valid when a sender
    LocalLayout recv_layout;        // valid when a receiver
    std::vector<PeerRegions> sends; // to other receivers, by receiver index
    std::vector<PeerRegions> recvs; // from other senders, by sender index
    std::vector<Region> self;       // own send buffer -> own receive buffer
    std::vector<Region> fills;      // receive-buffer regions zero-filled (r_off, axes[].r)
    // Pieces (core/pieces.hpp): whether this process's blocks are split on
    // each side and into how many pieces (1 when not split or without the
    // role; a split may have one piece), and `self` grouped by send piece:
    // regions [begin, end) of `self` belong to send piece `piece` and land in
    // receive pieces `lands`. Every group with cells, in piece order.
    bool send_split = false, recv_split = false;
    int send_pieces = 1, recv_pieces = 1;
    struct SelfPiece {
        int piece = 0;
        std::size_t begin = 0, end = 0;
        std::vector<int> lands;
    };
    std::vector<SelfPiece> self_pieces;
};

// Checks that both sides describe the same global array (Errc::mismatch),
// that the sending side is disjoint and covering, and that both layouts fit
// their distributions.
void check_sides(const Side& send, const Side& recv);

// Which receiver cells a plan fills: every stored cell (a reorganization),
// or only the receivers' owned cells, without overlap copies, edge cells or
// fills (the owner's copy of each element, which a REPLACE reverse takes
// back).
enum class Cells { all, owned };

// The plan of the process that is sender `send_index` (or -1) and receiver
// `recv_index` (or -1). Cost is proportional to the process grid extents plus
// the regions produced, not to the total number of processes squared.
LocalPlan plan_local(const Side& send, const Side& recv, int send_index, int recv_index,
                     Cells cells = Cells::all);

// How many elements sender `s` sends to each receiver it sends to (its own
// index on the receiving side included), by receiver index: the element
// counts of plan_local(send, recv, s, -1).sends without building a region,
// for the pieces of every process at once (dri-plan's node model, O(P^2)
// pairs). The sides must have passed check_sides.
struct PeerElements {
    int peer = -1;
    Index elements = 0;
    friend bool operator==(const PeerElements&, const PeerElements&) = default;
};
std::vector<PeerElements> send_elements(const Side& send, const Side& recv, int s);

// Regions sender `s` moves to receiver `r` (both indices on their side).
std::vector<Region> pair_regions(const Side& send, const Side& recv, int s, int r);

// The global elements sender `s` sends to receiver `r`: per dimension, the
// sorted, merged global index ranges; the set sent is their product. Empty
// when the pair exchanges nothing. For viewing and drawing plans.
std::vector<std::vector<Range>> pair_global_ranges(const Side& send, const Side& recv, int s,
                                                   int r);

} // namespace dri::core

// The building blocks of the planner (core/plan.cpp) that the box planner
// (core/box_plan.cpp) shares: per-dimension pieces of stored cells, matched
// stretches (runs) and their product into regions.
#pragma once

#include "core/pair_strides.hpp"
#include "core/plan.hpp"

#include <vector>

namespace dri::core {

enum class PieceKind { zero, run, repeat };

// A run of a receiver's stored cells along one dimension and where they come
// from: `run` takes global elements src, src+1, ...; `repeat` takes element
// src n times (replicated edge); `zero` takes nothing (zero padding).
struct Piece {
    Index local = 0;
    Index n = 0;
    Index src = 0;
    PieceKind kind = PieceKind::run;
};

// One matched stretch along one dimension, or a regular repetition of it:
// for i < reps, cells r + i*dr .. (+n) of the receiver take cells s + i*ds ..
// (+n*step) of the sender.
struct Run {
    Index n = 0, s = 0, r = 0;
    Index step = 1; // 1, or 0 for a repeated source element
    Index reps = 1, ds = 0, dr = 0;
};

// The stored cells of grid coordinate c along dimension d of a (tensor)
// distribution, in local order: all of them, or only the owned ones.
std::vector<Piece> recv_pieces(const Distribution& dist, int d, int c, Cells cells = Cells::all);

// Appends a matched stretch of n cells (sender local index s, receiver
// local index r, sender step 1 or 0), merging it into the last run when it
// continues it or repeats it regularly.
void add_match(std::vector<Run>& runs, Index n, Index s, Index r, Index step);

// Removes unit axes, orders axes by receiver stride (outermost first) and
// merges axes that continue each other on both sides.
void normalize(Region& reg);

// The product over dimensions of the per-dimension runs: one region per
// combination of runs, offsets from 0.
void emit_regions(const std::vector<const std::vector<Run>*>& runs, const Strides& st,
                  std::vector<Region>& out);

Index count_elements(const std::vector<Region>& regs);

// One sender piece's share of a pair: its regions, and the receiver pieces
// they land in (when asked for).
struct PieceGroup {
    int piece = 0;
    std::vector<Region> regions;
    std::vector<int> lands;
};

// The regions of the pair (sender s, receiver r) whose per-dimension runs
// are `runs`, grouped by s's pieces (core/pieces.hpp): one group per piece
// with cells in the pair, in piece order; without a split, one group with
// the regions emit_regions gives. `lands`: also say which of r's pieces each
// group lands in. Both processes of a pair group alike.
std::vector<PieceGroup> split_pair(const std::vector<const std::vector<Run>*>& runs,
                                   const Strides& st, const Side& send, int s, const Side& recv,
                                   int r, bool lands);

// Zero-filled receive cells of receiver r of a tensor distribution.
std::vector<Region> fill_regions(const Distribution& rd, const LocalLayout& rl, int r);

} // namespace dri::core

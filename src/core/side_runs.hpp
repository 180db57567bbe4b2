// One side of a message's regions seen on its own: how long the contiguous
// runs are once that side's axes are merged. The planner merges two axes only
// when they continue each other on both sides (plan.cpp, normalize), so a
// piece that is one dense block in the sender's buffer may still carry two
// axes because the receiver's strides differ; routing one side of a message
// (direct, MPI datatype or packed) asks about that side alone.
#pragma once

#include "core/plan.hpp"

#include <vector>

namespace dri::core {

enum class RegionSide { sender, receiver };

// Bytes of each contiguous run of one side of `reg`, in the region's element
// order (the order a packed stream has): the innermost axes merged as long as
// each outer one continues the run inside it in that side's memory.
Index side_run_bytes(const Region& reg, Index elem, RegionSide side);

// The shortest such run over `regs` (0 when there is none).
Index shortest_side_run(const std::vector<Region>& regs, Index elem, RegionSide side);

// Whether one side of `regs`, read in region order, is one contiguous byte
// range of that side's buffer; if so, *offset is where it starts.
bool side_contiguous(const std::vector<Region>& regs, Index elem, RegionSide side, Index* offset);

} // namespace dri::core

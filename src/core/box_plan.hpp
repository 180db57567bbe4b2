// Planning by box intersection: a reorganization where one side or both
// are box distributions (core/box_partition.hpp). The result is the same
// LocalPlan of regions that plan_local returns for tensor partitions, so
// every strategy of the backend executes it unchanged; plan_local calls
// plan_local_boxes when a side has boxes.
//
// Each process's stored cells are cut into tiles, a tile being a product of
// per-dimension pieces with one base offset and one stride per dimension:
// one tile per non-empty box of a box side, one tile (the whole local block,
// with its overlap and edges on a receiving side) for a process of a tensor
// side. A pair of processes exchanges, for every receiver tile and then every
// sender tile in order, the product of the per-dimension matches: both ends
// of a pair compute the same regions in the same order.
#pragma once

#include "core/plan.hpp"

namespace dri::core {

// The layout checks of box sides (no padding, no explicit strides).
void check_box_sides(const Side& send, const Side& recv);

// As plan_local (core/plan.hpp), for sides of which at least one has boxes.
// The sides must have passed check_sides.
LocalPlan plan_local_boxes(const Side& send, const Side& recv, int send_index, int recv_index,
                           Cells cells);

// As pair_regions, for sides of which at least one has boxes.
std::vector<Region> pair_box_regions(const Side& send, const Side& recv, int s, int r);

// The global elements sender s sends to receiver r (for viewing and drawing
// plans), one entry per matched pair of tiles: per dimension the sorted,
// merged global index ranges, the set being their product (a box when both
// tiles are boxes). Empty when the pair exchanges nothing.
using RangeProduct = std::vector<std::vector<Range>>;
std::vector<RangeProduct> pair_global_boxes(const Side& send, const Side& recv, int s, int r);

} // namespace dri::core

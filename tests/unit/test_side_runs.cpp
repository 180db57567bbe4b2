#include "core/side_runs.hpp"

#include <doctest/doctest.h>

using namespace dri::core;

namespace {
const ElementType f64 = ElementType::predefined(ElemKind::float64);
}

// 8x8x8 doubles, planes split among 2 senders (whole,whole,block) and rows
// among 2 receivers (block,whole,whole): sender 0's piece for receiver 1 is
// the lower half of its 8x8x4 buffer, one dense block, while the receiver
// gets it as runs of 4 doubles. The planner keeps two axes (the receiver's
// strides do not merge), the sender's side alone is one run.
TEST_CASE("a side dense on its own: one run, though the region has two axes") {
    const Shape s({8, 8, 8}, f64);
    const Distribution planes(
        s, {DimPartition::whole(), DimPartition::whole(), DimPartition::block()}, 2);
    const Distribution rows(
        s, {DimPartition::block(), DimPartition::whole(), DimPartition::whole()}, 2);
    const auto regs = pair_regions({&planes, Layout::packed(3)}, {&rows, Layout::packed(3)}, 0, 1);
    REQUIRE(regs.size() == 1);
    CHECK(regs[0].axes.size() == 2);
    CHECK(side_run_bytes(regs[0], 8, RegionSide::sender) == 4 * 8 * 4 * 8);
    CHECK(side_run_bytes(regs[0], 8, RegionSide::receiver) == 4 * 8);
    Index off = -1;
    CHECK(side_contiguous(regs, 8, RegionSide::sender, &off));
    CHECK(off == 4 * 8 * 4 * 8);
    CHECK_FALSE(side_contiguous(regs, 8, RegionSide::receiver, &off));
    CHECK(shortest_side_run(regs, 8, RegionSide::receiver) == 32);
}

TEST_CASE("runs stop at the first axis that does not continue them, in region order") {
    // A transpose: dense in the sender's memory but not in the region's
    // element order (inner axis strided), so no long run on the sender side.
    const Region t{0, 0, {{4, 8, 32}, {4, 32, 8}}};
    CHECK(side_run_bytes(t, 8, RegionSide::sender) == 8);
    CHECK(side_run_bytes(t, 8, RegionSide::receiver) == 128);
    Index off = 0;
    CHECK_FALSE(side_contiguous({t}, 8, RegionSide::sender, &off));
    CHECK(side_contiguous({t}, 8, RegionSide::receiver, &off));
    // A replicated edge (sender stride 0) is never a run.
    const Region rep{16, 0, {{3, 0, 8}}};
    CHECK(side_run_bytes(rep, 8, RegionSide::sender) == 8);
    // Regions that follow each other make one range; a gap breaks it.
    const Region a{64, 0, {{2, 8, 8}}}, b{80, 16, {{2, 8, 8}}}, c{104, 32, {{2, 8, 8}}};
    CHECK(side_contiguous({a, b}, 8, RegionSide::sender, &off));
    CHECK(off == 64);
    CHECK_FALSE(side_contiguous({a, b, c}, 8, RegionSide::sender, &off));
    CHECK(side_contiguous({a, b, c}, 8, RegionSide::receiver, &off));
    CHECK(off == 0);
    CHECK(shortest_side_run({}, 8, RegionSide::sender) == 0);
}

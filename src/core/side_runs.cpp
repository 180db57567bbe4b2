#include "core/side_runs.hpp"

#include "core/checked.hpp"

#include <algorithm>

namespace dri::core {

namespace {

Index stride_of(const Axis& a, RegionSide side) {
    return side == RegionSide::sender ? a.s : a.r;
}

Index offset_of(const Region& r, RegionSide side) {
    return side == RegionSide::sender ? r.s_off : r.r_off;
}

} // namespace

Index side_run_bytes(const Region& reg, Index elem, RegionSide side) {
    Index run = elem;
    for (auto a = reg.axes.rbegin(); a != reg.axes.rend(); ++a) {
        if (stride_of(*a, side) != run) break;
        run = checked_mul(run, a->n, "run bytes");
    }
    return run;
}

Index shortest_side_run(const std::vector<Region>& regs, Index elem, RegionSide side) {
    Index shortest = 0;
    for (const Region& r : regs) {
        const Index run = side_run_bytes(r, elem, side);
        shortest = shortest == 0 ? run : std::min(shortest, run);
    }
    return shortest;
}

bool side_contiguous(const std::vector<Region>& regs, Index elem, RegionSide side, Index* offset) {
    if (regs.empty()) return false;
    Index next = offset_of(regs.front(), side);
    for (const Region& r : regs) {
        const Index bytes = checked_mul(r.elements(), elem, "bytes");
        if (offset_of(r, side) != next || side_run_bytes(r, elem, side) != bytes) return false;
        next = checked_add(next, bytes, "offset");
    }
    *offset = offset_of(regs.front(), side);
    return true;
}

} // namespace dri::core

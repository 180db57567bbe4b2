// Converts the core's value types (as drawn by the random case generator)
// into public API objects, so MPI tests and dri-bench can drive dri::* with them.
#pragma once

#include "core/layout.hpp"
#include "core/partition.hpp"
#include "dri/dri.hpp"

namespace dri::test {

inline dri::DimPart to_api(const core::DimPartition& p) {
    dri::DimPart d;
    d.kind = static_cast<DRI_Partkind>(p.kind);
    d.left = p.left;
    d.right = p.right;
    d.min_block = p.min_block;
    d.max_block = p.max_block;
    d.block_size = p.block_size;
    d.nprocs = p.nprocs;
    d.edge = static_cast<dri::Edge>(p.edge);
    for (const core::Range& r : p.ranges)
        d.ranges.emplace_back(r.first, r.last);
    return d;
}

inline dri::Partition to_api(const core::Partition& p) {
    std::vector<dri::DimPart> dims;
    for (const auto& d : p)
        dims.push_back(to_api(d));
    return dri::Partition(std::move(dims));
}

inline dri::Layout to_api(const core::Layout& l) {
    if (l.has_explicit_strides()) return dri::Layout::strided(l.strides());
    return dri::Layout::ordered(l.order(), l.pad());
}

inline dri::GlobalData to_api(const core::Shape& s) {
    if (s.type().kind == core::ElemKind::record)
        return dri::GlobalData::record(s.extents(), s.elem_size());
    return dri::GlobalData(s.extents(), static_cast<dri::Type>(s.type().kind));
}

} // namespace dri::test

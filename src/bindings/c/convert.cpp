#include "bindings/c/convert.hpp"

#include "bindings/c/registry.hpp"

namespace dri::capi {

void check_ndims(int ndims) {
    if (ndims < 1 || ndims > DRI_MAX_DIMS)
        core::fail(core::Errc::ndims, "ndims must be in [1, " + std::to_string(DRI_MAX_DIMS) +
                                          "], got " + std::to_string(ndims));
}

std::vector<Index> array_of(int ndims, const DRI_Index* values, const char* what) {
    check_ndims(ndims);
    need_ptr(values, what);
    return std::vector<Index>(values, values + ndims);
}

core::DimPartition dim_from_c(const DRI_Dimpart& p, int d) {
    core::DimPartition c;
    c.kind = static_cast<core::PartKind>(raw(p.kind));
    c.left = p.left_overlap;
    c.right = p.right_overlap;
    c.min_block = p.min_block;
    c.max_block = p.max_block;
    c.block_size = p.block_size;
    c.nprocs = p.nprocs;
    c.edge = static_cast<core::EdgePolicy>(raw(p.edge));
    if (c.kind == core::PartKind::ranges) {
        if (p.nranges < 1)
            core::fail(core::Errc::partition, "dimension " + std::to_string(d) +
                                                  ": explicit partition needs nranges >= 1");
        need_ptr(p.ranges, "ranges");
        for (int i = 0; i < p.nranges; ++i)
            c.ranges.push_back({p.ranges[2 * i], p.ranges[2 * i + 1]});
    }
    return c;
}

std::vector<std::span<std::byte>> buffers_of(int nbuf, void* const* buffers,
                                             const DRI_Index* sizes) {
    if (nbuf < 1)
        core::fail(core::Errc::buffer_count,
                   "a role needs at least one buffer, got " + std::to_string(nbuf));
    need_ptr(buffers, "buffer array");
    need_ptr(sizes, "buffer size array");
    std::vector<std::span<std::byte>> out;
    for (int i = 0; i < nbuf; ++i) {
        if (sizes[i] < 0)
            core::fail(core::Errc::buffer_size,
                       "buffer " + std::to_string(i) + " has a negative size");
        out.emplace_back(static_cast<std::byte*>(buffers[i]), static_cast<std::size_t>(sizes[i]));
    }
    return out;
}

DRI_Blockinfo to_c(const core::BlockInfo& b) {
    DRI_Blockinfo info{};
    info.ndims = static_cast<int>(b.local_extent.size());
    info.index = b.index;
    for (int k = 0; k < info.ndims; ++k) {
        const auto u = static_cast<std::size_t>(k);
        info.coords[k] = b.coords[u];
        info.owned_first[k] = b.owned_first[u];
        info.owned_last[k] = b.owned_last[u];
        info.owned_count[k] = b.owned_count[u];
        info.stored_first[k] = b.stored_first[u];
        info.stored_last[k] = b.stored_last[u];
        info.segments[k] = b.segments[u];
        info.local_extent[k] = b.local_extent[u];
        info.strides[k] = b.strides[u];
    }
    info.bytes = b.bytes;
    return info;
}

core::ElementType predefined_type(const DRI_Datatype& type) {
    const int t = raw(type);
    if (t == DRI_RECORD) core::fail(core::Errc::type, "records need DRI_Globaldata_create_record");
    return core::ElementType::predefined(static_cast<core::ElemKind>(t));
}

} // namespace dri::capi

// The C binding (include/dri/dri.h), its descriptive objects: init and
// errors, global data, partitions, groups, distributions, layouts, blocks.
// Handles are ids into a registry (registry.hpp), so a destroyed or forged
// handle is detected (DRI_ERR_HANDLE) instead of being dereferenced.
#include "bindings/c/convert.hpp"
#include "bindings/c/registry.hpp"
#include "core/spec.hpp"

#include <algorithm>
#include <cstring>
#include <string>

using namespace dri::capi;
using dri::core::Index;
namespace detail = dri::detail;
namespace core = dri::core;

extern "C" {

int DRI_Init(void) {
    return api([] { detail::runtime_init(); });
}

int DRI_Finalize(void) {
    return api([] {
        detail::require_initialized();
        {
            std::unordered_map<std::uintptr_t, Object> doomed;
            {
                std::lock_guard<std::mutex> lock(registry_mutex);
                doomed.swap(registry());
            }
        } // every forgotten object is destroyed here, its MPI resources freed
        detail::runtime_finalize();
    });
}

int DRI_Initialized(int* flag) {
    return api([&] {
        need_ptr(flag, "flag");
        *flag = detail::is_initialized() ? 1 : 0;
    });
}

int DRI_Get_version(int* major, int* minor, int* patch) {
    return api([&] {
        need_ptr(major, "major");
        need_ptr(minor, "minor");
        need_ptr(patch, "patch");
        // The numbers this library was built with (dri/version.h, from CMake).
        *major = DRI_VERSION_MAJOR;
        *minor = DRI_VERSION_MINOR;
        *patch = DRI_VERSION_PATCH;
    });
}

const char* DRI_Error_string(int code) {
    return core::errc_description(static_cast<core::Errc>(code));
}

const char* DRI_Last_error_message(void) {
    return last_error.c_str();
}

int DRI_Kernel_tuning(char* text, int size, int* length) {
    return api([&] {
        if (size < 0) core::fail(core::Errc::arg, "DRI_Kernel_tuning: negative size");
        if (size > 0) need_ptr(text, "text");
        detail::tune_kernels_once(); // no commit yet: choose them now
        const std::string line = detail::kernel_tuning_report();
        if (length) *length = static_cast<int>(line.size());
        if (size == 0) return;
        const std::size_t n = std::min(line.size(), static_cast<std::size_t>(size - 1));
        std::memcpy(text, line.data(), n);
        text[n] = '\0';
    });
}

int DRI_Globaldata_create(int ndims, const DRI_Index extents[], DRI_Datatype type,
                          DRI_Globaldata* gdo) {
    return api([&] {
        detail::require_initialized();
        need_ptr(gdo, "output handle");
        *gdo = add<DRI_Globaldata>(
            detail::make_globaldata(array_of(ndims, extents, "extents"), predefined_type(type)));
    });
}

int DRI_Globaldata_create_record(int ndims, const DRI_Index extents[], DRI_Index record_bytes,
                                 DRI_Globaldata* gdo) {
    return api([&] {
        detail::require_initialized();
        need_ptr(gdo, "output handle");
        *gdo = add<DRI_Globaldata>(detail::make_globaldata(
            array_of(ndims, extents, "extents"), core::ElementType::record(record_bytes)));
    });
}

int DRI_Globaldata_get(DRI_Globaldata gdo, int* ndims, DRI_Index extents[DRI_MAX_DIMS],
                       DRI_Index* elem_bytes) {
    return api([&] {
        detail::require_initialized();
        const auto g = lookup<std::shared_ptr<const detail::GlobalDataImpl>>(gdo, "global data");
        if (ndims) *ndims = g->shape.ndims();
        if (extents)
            for (int d = 0; d < g->shape.ndims(); ++d)
                extents[d] = g->shape.extent(d);
        if (elem_bytes) *elem_bytes = g->shape.elem_size();
    });
}

int DRI_Globaldata_destroy(DRI_Globaldata* gdo) {
    return api([&] {
        detail::require_initialized();
        remove<std::shared_ptr<const detail::GlobalDataImpl>>(gdo, "global data");
    });
}

int DRI_Partition_create(int ndims, const DRI_Dimpart parts[], DRI_Partition* part) {
    return api([&] {
        detail::require_initialized();
        need_ptr(part, "output handle");
        check_ndims(ndims);
        need_ptr(parts, "partition array");
        core::Partition p;
        for (int d = 0; d < ndims; ++d)
            p.push_back(dim_from_c(parts[d], d));
        *part = add<DRI_Partition>(detail::make_partition(std::move(p)));
    });
}

int DRI_Partition_create_spec(const char* spec, DRI_Partition* part) {
    return api([&] {
        detail::require_initialized();
        need_ptr(spec, "partition text");
        need_ptr(part, "output handle");
        *part = add<DRI_Partition>(detail::make_partition(core::parse_partition(spec)));
    });
}

int DRI_Partition_destroy(DRI_Partition* part) {
    return api([&] {
        detail::require_initialized();
        remove<std::shared_ptr<const detail::PartitionImpl>>(part, "partition");
    });
}

int DRI_Group_create(MPI_Comm parent, int n, const int ranks[], DRI_Group* group) {
    return api([&] {
        detail::require_initialized();
        need_ptr(group, "output handle");
        std::vector<int> r;
        if (ranks) {
            if (n < 1)
                core::fail(core::Errc::group,
                           "a group needs at least one process, got " + std::to_string(n));
            r.assign(ranks, ranks + n);
        }
        *group = add<DRI_Group>(detail::make_group(parent, std::move(r), ranks ? 0 : n));
    });
}

int DRI_Group_size(DRI_Group group, int* size) {
    return api([&] {
        detail::require_initialized();
        need_ptr(size, "size");
        *size = static_cast<int>(
            lookup<std::shared_ptr<const detail::GroupImpl>>(group, "group")->ranks.size());
    });
}

int DRI_Group_index(DRI_Group group, int* index) {
    return api([&] {
        detail::require_initialized();
        need_ptr(index, "index");
        *index = lookup<std::shared_ptr<const detail::GroupImpl>>(group, "group")->my_index;
    });
}

int DRI_Group_destroy(DRI_Group* group) {
    return api([&] {
        detail::require_initialized();
        remove<std::shared_ptr<const detail::GroupImpl>>(group, "group");
    });
}

int DRI_Distribution_create(DRI_Globaldata gdo, DRI_Partition part, DRI_Group group,
                            DRI_Distribution* dist) {
    return DRI_Distribution_create_ordered(gdo, part, group, DRI_GRID_ROW_MAJOR, dist);
}

int DRI_Distribution_create_ordered(DRI_Globaldata gdo, DRI_Partition part, DRI_Group group,
                                    DRI_Grid_order order, DRI_Distribution* dist) {
    return api([&] {
        detail::require_initialized();
        // With a valid group, bad other arguments still take part in the
        // collective, so that every member fails instead of some hanging.
        const auto g = lookup<std::shared_ptr<const detail::GroupImpl>>(group, "group");
        std::shared_ptr<const detail::GlobalDataImpl> gp;
        std::shared_ptr<const detail::PartitionImpl> pp;
        const detail::Status pre = detail::capture([&] {
            need_ptr(dist, "output handle");
            gp = lookup<std::shared_ptr<const detail::GlobalDataImpl>>(gdo, "global data");
            pp = lookup<std::shared_ptr<const detail::PartitionImpl>>(part, "partition");
        });
        // The order is read as the caller's int: any value reaches the
        // collective check, which refuses it on every member.
        const int ord = raw(order);
        auto d = detail::make_distribution(gp.get(), pp.get(), g, static_cast<core::GridOrder>(ord),
                                           pre);
        *dist = add<DRI_Distribution>(std::move(d));
    });
}

int DRI_Distribution_grid(DRI_Distribution dist, int grid[DRI_MAX_DIMS]) {
    return api([&] {
        detail::require_initialized();
        need_ptr(grid, "grid");
        const auto d = lookup<DistP>(dist, "distribution");
        for (std::size_t k = 0; k < d->dist.grid().size(); ++k)
            grid[k] = d->dist.grid()[k];
    });
}

int DRI_Distribution_destroy(DRI_Distribution* dist) {
    return api([&] {
        detail::require_initialized();
        remove<DistP>(dist, "distribution");
    });
}

int DRI_Layout_create(int ndims, const int order[], const DRI_Index pad[], DRI_Layout* layout) {
    return api([&] {
        detail::require_initialized();
        need_ptr(layout, "output handle");
        check_ndims(ndims);
        need_ptr(order, "order");
        std::vector<Index> p;
        if (pad) p.assign(pad, pad + ndims);
        *layout = add<DRI_Layout>(
            detail::make_layout(core::Layout::ordered(std::vector<int>(order, order + ndims), p)));
    });
}

int DRI_Layout_create_strided(int ndims, const DRI_Index strides[], DRI_Layout* layout) {
    return api([&] {
        detail::require_initialized();
        need_ptr(layout, "output handle");
        *layout = add<DRI_Layout>(
            detail::make_layout(core::Layout::strided(array_of(ndims, strides, "strides"))));
    });
}

int DRI_Layout_destroy(DRI_Layout* layout) {
    return api([&] {
        detail::require_initialized();
        remove<std::shared_ptr<const detail::LayoutImpl>>(layout, "layout");
    });
}

int DRI_Blockinfo_get_index(DRI_Distribution dist, DRI_Layout layout, int index,
                            DRI_Blockinfo* info) {
    return api([&] {
        detail::require_initialized();
        need_ptr(info, "blockinfo");
        const auto d = lookup<DistP>(dist, "distribution");
        const auto l = lookup<std::shared_ptr<const detail::LayoutImpl>>(layout, "layout");
        *info = to_c(detail::block_info(*d, *l, index));
    });
}

int DRI_Blockinfo_get(DRI_Distribution dist, DRI_Layout layout, DRI_Blockinfo* info) {
    int index = -1;
    const int rc = api([&] {
        detail::require_initialized();
        index = lookup<DistP>(dist, "distribution")->group->my_index;
        if (index < 0)
            core::fail(core::Errc::group, "the calling process is not in the distribution's group");
    });
    return rc != DRI_SUCCESS ? rc : DRI_Blockinfo_get_index(dist, layout, index, info);
}

int DRI_Blockinfo_segment(DRI_Distribution dist, int index, int dim, DRI_Index k,
                          DRI_Index* owned_first, DRI_Index* owned_last, DRI_Index* stored_first,
                          DRI_Index* stored_last, DRI_Index* local_start) {
    return api([&] {
        detail::require_initialized();
        const auto d = lookup<DistP>(dist, "distribution");
        const core::Distribution& cd = d->dist;
        if (cd.boxes())
            core::fail(core::Errc::partition, "a box distribution has no segments: its boxes are "
                                              "queried with DRI_Distribution_boxes");
        if (dim < 0 || dim >= cd.ndims())
            core::fail(core::Errc::arg, "dimension " + std::to_string(dim) + " out of range");
        const int c = cd.coords(index)[static_cast<std::size_t>(dim)];
        if (k < 0 || k >= cd.segment_count(dim, c))
            core::fail(core::Errc::arg, "segment " + std::to_string(k) + " out of range [0, " +
                                            std::to_string(cd.segment_count(dim, c)) + ")");
        const core::Segment s = cd.segment(dim, c, k);
        if (owned_first) *owned_first = s.own_lo;
        if (owned_last) *owned_last = s.own_hi - 1;
        if (stored_first) *stored_first = s.lo;
        if (stored_last) *stored_last = s.hi - 1;
        if (local_start) *local_start = s.local;
    });
}

} // extern "C"

// The C binding (include/dri/dri.h): handles are ids into a registry of
// implementation objects, so a destroyed or forged handle is detected
// (DRI_ERR_HANDLE) instead of being dereferenced. Ids are never reused.
#include "registry.hpp"
#include "shared.hpp"

#include "spec.hpp"

namespace dri::capi {

void check_ndims(int ndims) {
    if (ndims < 1 || ndims > DRI_MAX_DIMS)
        core::fail(core::Errc::ndims, "ndims must be in [1, " + std::to_string(DRI_MAX_DIMS) +
                                          "], got " + std::to_string(ndims));
}

std::vector<Index> extents_of(int ndims, const DRI_Index* extents) {
    check_ndims(ndims);
    need_ptr(extents, "extents");
    return std::vector<Index>(extents, extents + ndims);
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

DRI_Blockinfo to_c(const BlockInfo& b) {
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

// A predefined element type (records are created by their own call).
core::ElementType predefined_type(const DRI_Datatype& type) {
    const int t = raw(type);
    if (t == DRI_RECORD) core::fail(core::Errc::type, "records need DRI_Globaldata_create_record");
    return core::ElementType::predefined(static_cast<core::ElemKind>(t));
}

using DistP = std::shared_ptr<const detail::DistributionImpl>;
using XferP = std::shared_ptr<detail::TransferImpl>;

int declare(DRI_Transfer xfer, detail::RoleKind kind, DRI_Distribution dist, DRI_Layout layout,
            int nbuf, void* const buffers[], const DRI_Index sizes[]) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        const DistP d = lookup<DistP>(dist, "distribution");
        const auto l = lookup<std::shared_ptr<const detail::LayoutImpl>>(layout, "layout");
        detail::declare_role(*t, kind, d, *l, buffers_of(nbuf, buffers, sizes));
    });
}

} // namespace dri::capi

using namespace dri::capi;

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

const char* DRI_Error_string(int code) {
    return core::errc_description(static_cast<core::Errc>(code));
}

const char* DRI_Last_error_message(void) {
    return last_error.c_str();
}

int DRI_Globaldata_create(int ndims, const DRI_Index extents[], DRI_Datatype type,
                          DRI_Globaldata* gdo) {
    return api([&] {
        detail::require_initialized();
        need_ptr(gdo, "output handle");
        *gdo = add<DRI_Globaldata>(
            detail::make_globaldata(extents_of(ndims, extents), predefined_type(type)));
    });
}

int DRI_Globaldata_create_record(int ndims, const DRI_Index extents[], DRI_Index record_bytes,
                                 DRI_Globaldata* gdo) {
    return api([&] {
        detail::require_initialized();
        need_ptr(gdo, "output handle");
        *gdo = add<DRI_Globaldata>(detail::make_globaldata(
            extents_of(ndims, extents), core::ElementType::record(record_bytes)));
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
        *group = add<DRI_Group>(detail::make_group(parent, std::move(r)));
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
        auto d = detail::make_distribution(gp.get(), pp.get(), g, pre);
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
        *layout =
            add<DRI_Layout>(detail::make_layout(core::Layout::strided(extents_of(ndims, strides))));
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

int DRI_Transfer_create(const char* name, DRI_Transfer* xfer) {
    return api([&] {
        detail::require_initialized();
        need_ptr(name, "transfer name");
        need_ptr(xfer, "output handle");
        *xfer = add<DRI_Transfer>(detail::make_transfer(name));
    });
}

int DRI_Transfer_send(DRI_Transfer xfer, DRI_Distribution dist, DRI_Layout layout, int nbuf,
                      void* const buffers[], const DRI_Index sizes[]) {
    return declare(xfer, detail::RoleKind::send, dist, layout, nbuf, buffers, sizes);
}

int DRI_Transfer_recv(DRI_Transfer xfer, DRI_Distribution dist, DRI_Layout layout, int nbuf,
                      void* const buffers[], const DRI_Index sizes[]) {
    return declare(xfer, detail::RoleKind::recv, dist, layout, nbuf, buffers, sizes);
}

int DRI_Corner_turn_blocks(MPI_Comm comm, DRI_Index nrows, DRI_Index ncols, DRI_Datatype type,
                           DRI_Blockinfo* send, DRI_Blockinfo* recv) {
    return api([&] {
        detail::require_initialized();
        // Local argument errors still join the collective so nobody hangs.
        core::ElementType t;
        const detail::Status pre = detail::capture([&] {
            need_ptr(send, "send blockinfo");
            need_ptr(recv, "receive blockinfo");
            t = predefined_type(type);
        });
        const CornerTurnBlocks b = detail::corner_turn_blocks(comm, nrows, ncols, t, pre);
        *send = to_c(b.send);
        *recv = to_c(b.recv);
    });
}

int DRI_Corner_turn_create(MPI_Comm comm, DRI_Index nrows, DRI_Index ncols, DRI_Datatype type,
                           int nbuf, void* const send_buffers[], const DRI_Index send_sizes[],
                           void* const recv_buffers[], const DRI_Index recv_sizes[],
                           DRI_Transfer* xfer) {
    return api([&] {
        detail::require_initialized();
        core::ElementType t;
        std::vector<std::span<std::byte>> sb, rb;
        const detail::Status pre = detail::capture([&] {
            need_ptr(xfer, "output handle");
            t = predefined_type(type);
            sb = buffers_of(nbuf, send_buffers, send_sizes);
            rb = buffers_of(nbuf, recv_buffers, recv_sizes);
        });
        auto made = detail::corner_turn(comm, nrows, ncols, t, sb, rb, pre);
        *xfer = add<DRI_Transfer>(std::move(made));
    });
}

int DRI_Alloc_mem(MPI_Comm comm, DRI_Index bytes, void** base) {
    return api([&] {
        detail::require_initialized();
        // A NULL result pointer on one process still joins the collective.
        const detail::Status pre =
            base ? detail::Status{}
                 : detail::Status{core::Errc::null_pointer, "DRI_Alloc_mem: base is NULL"};
        void* p = detail::shared_alloc(comm, bytes, pre);
        if (base) *base = p;
    });
}

int DRI_Free_mem(MPI_Comm comm, void* base) {
    return api([&] {
        detail::require_initialized();
        detail::shared_free(comm, base);
    });
}

int DRI_Transfer_set_strategy(DRI_Transfer xfer, DRI_Strategy strategy) {
    return api([&] {
        detail::require_initialized();
        detail::set_strategy(*lookup<XferP>(xfer, "transfer"),
                             static_cast<Strategy>(raw(strategy)));
    });
}

int DRI_Commit(MPI_Comm comm, int count, DRI_Transfer xfers[]) {
    return api([&] {
        detail::require_initialized();
        // Bad arguments still join the collective so nobody hangs.
        std::vector<XferP> keep;
        std::vector<detail::TransferImpl*> impls;
        const detail::Status pre = detail::capture([&] {
            if (count < 0) core::fail(core::Errc::arg, "commit: negative transfer count");
            if (count > 0) need_ptr(xfers, "transfer array");
            for (int i = 0; i < count; ++i)
                keep.push_back(lookup<XferP>(xfers[i], "transfer"));
        });
        if (!pre.failed())
            for (const XferP& t : keep)
                impls.push_back(t.get());
        detail::commit(comm, impls, pre);
    });
}

int DRI_Transfer_commit(DRI_Transfer xfer) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        detail::TransferImpl* p = t.get();
        detail::commit(t->parent(), std::span<detail::TransferImpl* const>(&p, 1));
    });
}

int DRI_Do(DRI_Transfer xfer) {
    return api([&] {
        detail::require_initialized();
        detail::execute(*lookup<XferP>(xfer, "transfer"));
    });
}

int DRI_Do_start(DRI_Transfer xfer) {
    return api([&] {
        detail::require_initialized();
        detail::start(*lookup<XferP>(xfer, "transfer"));
    });
}

int DRI_Do_wait(DRI_Transfer xfer) {
    return api([&] {
        detail::require_initialized();
        detail::wait(*lookup<XferP>(xfer, "transfer"));
    });
}

int DRI_Do_test(DRI_Transfer xfer, int* done) {
    return api([&] {
        detail::require_initialized();
        need_ptr(done, "done flag");
        *done = detail::test(*lookup<XferP>(xfer, "transfer")) ? 1 : 0;
    });
}

int DRI_Transfer_current(DRI_Transfer xfer, int* send_buffer, int* recv_buffer) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        if (send_buffer) *send_buffer = t->send ? t->send->current : -1;
        if (recv_buffer) *recv_buffer = t->recv ? t->recv->current : -1;
    });
}

int DRI_Transfer_destroy(DRI_Transfer* xfer) {
    return api([&] {
        detail::require_initialized();
        remove<XferP>(xfer, "transfer");
    });
}

} // extern "C"

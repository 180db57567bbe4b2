// The C++ API (include/dri/dri.hpp): thin wrappers over the backend's
// interface that turn core errors into dri::Error.
#include "dri/dri.hpp"

#include "bindings/cxx/guarded.hpp"
#include "core/spec.hpp"
#include "mpi/interface.hpp"

#include <cstdint>
#include <new>
#include <utility>

namespace dri {

using cxx::guarded;
using cxx::need;

namespace {

constexpr bool codes_agree() {
    for (int i = 0; i < core::errc_count; ++i)
        if (static_cast<int>(static_cast<Errc>(i)) != static_cast<int>(static_cast<core::Errc>(i)))
            return false;
    return core::errc_count == DRI_ERR_STRATEGY + 1;
}
static_assert(codes_agree(), "dri.h error codes and the core's Errc must agree");
static_assert(static_cast<int>(Type::complex_double) ==
              static_cast<int>(core::ElemKind::complex_double));
static_assert(static_cast<int>(Type::byte) == static_cast<int>(core::ElemKind::byte));
static_assert(DRI_RECORD == static_cast<int>(core::ElemKind::record));
static_assert(DRI_EDGE_WRAP == static_cast<int>(core::EdgePolicy::wrap));
static_assert(DRI_PART_RANGES == static_cast<int>(core::PartKind::ranges));
static_assert(static_cast<int>(Strategy::shared) == static_cast<int>(detail::Strategy::shared));
static_assert(static_cast<int>(Strategy::measure) == static_cast<int>(detail::Strategy::measure));
static_assert(static_cast<int>(Strategy::hybrid) == static_cast<int>(detail::Strategy::hybrid));
static_assert(static_cast<int>(Strategy::nodes) == static_cast<int>(detail::Strategy::nodes));
static_assert(detail::strategy_count == DRI_STRATEGY_NODES + 1);

core::DimPartition to_core(const DimPart& p) {
    core::DimPartition c;
    c.kind = static_cast<core::PartKind>(p.kind);
    c.left = p.left;
    c.right = p.right;
    c.min_block = p.min_block;
    c.max_block = p.max_block;
    c.block_size = p.block_size;
    c.nprocs = p.nprocs;
    c.edge = static_cast<core::EdgePolicy>(p.edge);
    for (const auto& [first, last] : p.ranges)
        c.ranges.push_back({first, last});
    return c;
}

BlockInfo to_api(const core::BlockInfo& b) {
    BlockInfo out;
    out.index = b.index;
    out.coords = b.coords;
    out.owned_first = b.owned_first;
    out.owned_last = b.owned_last;
    out.owned_count = b.owned_count;
    out.stored_first = b.stored_first;
    out.stored_last = b.stored_last;
    out.segments = b.segments;
    out.local_extent = b.local_extent;
    out.strides = b.strides;
    out.bytes = b.bytes;
    return out;
}

} // namespace

void init() {
    guarded([] { detail::runtime_init(); });
}
void finalize() {
    guarded([] { detail::runtime_finalize(); });
}
bool initialized() {
    return detail::is_initialized();
}

GlobalData::GlobalData(std::vector<Index> extents, Type type)
    : impl_(guarded([&] {
          return detail::make_globaldata(
              std::move(extents), core::ElementType::predefined(static_cast<core::ElemKind>(type)));
      })) {}

GlobalData GlobalData::record(std::vector<Index> extents, Index record_bytes) {
    return GlobalData(guarded([&] {
        return detail::make_globaldata(std::move(extents), core::ElementType::record(record_bytes));
    }));
}

int GlobalData::ndims() const {
    return need(impl_, "GlobalData").shape.ndims();
}
std::vector<Index> GlobalData::extents() const {
    return need(impl_, "GlobalData").shape.extents();
}
Index GlobalData::elem_size() const {
    return need(impl_, "GlobalData").shape.elem_size();
}
GlobalData::~GlobalData() = default;

Partition::Partition(std::vector<DimPart> dims)
    : impl_(guarded([&] {
          core::Partition p;
          for (const DimPart& d : dims)
              p.push_back(to_core(d));
          return detail::make_partition(std::move(p));
      })) {}

Partition Partition::parse(const std::string& spec) {
    return Partition(guarded([&] {
        detail::require_initialized();
        return detail::make_partition(core::parse_partition(spec));
    }));
}

int Partition::ndims() const {
    return static_cast<int>(need(impl_, "Partition").part.size());
}
Partition::~Partition() = default;

Group::Group(MPI_Comm parent) : Group(parent, {}) {}
Group::Group(MPI_Comm parent, std::vector<int> ranks)
    : impl_(guarded([&] { return detail::make_group(parent, std::move(ranks)); })) {}
int Group::size() const {
    return static_cast<int>(need(impl_, "Group").ranks.size());
}
int Group::index() const {
    return need(impl_, "Group").my_index;
}
const std::vector<int>& Group::ranks() const {
    return need(impl_, "Group").ranks;
}
MPI_Comm Group::parent() const {
    return need(impl_, "Group").parent;
}
Group::~Group() = default;

Layout Layout::packed(int ndims) {
    return Layout(guarded([&] { return detail::make_layout(core::Layout::packed(ndims)); }));
}
Layout Layout::ordered(std::vector<int> order, std::vector<Index> pad) {
    return Layout(guarded([&] {
        return detail::make_layout(core::Layout::ordered(std::move(order), std::move(pad)));
    }));
}
Layout Layout::strided(std::vector<Index> strides) {
    return Layout(
        guarded([&] { return detail::make_layout(core::Layout::strided(std::move(strides))); }));
}
int Layout::ndims() const {
    return need(impl_, "Layout").layout.ndims();
}
Layout::~Layout() = default;

Distribution::Distribution(const GlobalData& gdo, const Partition& part, const Group& group,
                           GridOrder order)
    : impl_(guarded([&] {
          need(group.impl(), "Group");
          return detail::make_distribution(gdo.impl().get(), part.impl().get(), group.impl(),
                                           static_cast<core::GridOrder>(order));
      })) {}

namespace {
std::vector<core::Box> to_core(const std::vector<Box>& boxes) {
    std::vector<core::Box> out;
    for (const Box& b : boxes)
        out.push_back({b.first, b.last});
    return out;
}
} // namespace

Distribution Distribution::from_boxes(const GlobalData& gdo, const Group& group,
                                      const std::vector<Box>& mine) {
    return Distribution(guarded([&] {
        need(group.impl(), "Group");
        return detail::make_box_distribution(gdo.impl().get(), group.impl(), to_core(mine), {},
                                             false);
    }));
}

Distribution Distribution::from_boxes(const GlobalData& gdo, const Group& group,
                                      const std::vector<Box>& all, const std::vector<int>& owners) {
    return Distribution(guarded([&] {
        need(group.impl(), "Group");
        return detail::make_box_distribution(gdo.impl().get(), group.impl(), to_core(all), owners,
                                             true);
    }));
}

std::vector<Box> Distribution::boxes(int idx) const {
    return guarded([&] {
        std::vector<Box> out;
        for (const core::Box& b : core::owned_boxes(need(impl_, "Distribution").dist, idx))
            out.push_back({b.first, b.last});
        return out;
    });
}

bool Distribution::has_boxes() const {
    return need(impl_, "Distribution").dist.boxes() != nullptr;
}

Index Distribution::cells(int idx) const {
    Index n = 0;
    for (const Box& b : boxes(idx))
        n += core::Box{b.first, b.last}.cells();
    return n;
}

std::vector<int> Distribution::grid() const {
    return need(impl_, "Distribution").dist.grid();
}
GridOrder Distribution::grid_order() const {
    return static_cast<GridOrder>(need(impl_, "Distribution").dist.grid_order());
}
int Distribution::size() const {
    return need(impl_, "Distribution").dist.nprocs();
}
int Distribution::index() const {
    return need(impl_, "Distribution").group->my_index;
}
Distribution::~Distribution() = default;

BlockInfo Distribution::block(const Layout& layout) const {
    if (index() < 0)
        throw Error(Errc::group, "the calling process is not in the distribution's group");
    return block(layout, index());
}

BlockInfo Distribution::block(const Layout& layout, int idx) const {
    return guarded([&] {
        return to_api(
            detail::block_info(need(impl_, "Distribution"), need(layout.impl(), "Layout"), idx));
    });
}

namespace {
// A predefined element type; a bad value becomes the collective's `pre`
// error so that every process still takes part.
detail::Status element_type(Type type, core::ElementType& out) {
    return detail::capture(
        [&] { out = core::ElementType::predefined(static_cast<core::ElemKind>(type)); });
}
} // namespace

CornerTurnBlocks corner_turn_blocks(MPI_Comm comm, Index nrows, Index ncols, Type type) {
    return guarded([&] {
        core::ElementType t;
        const detail::Status pre = element_type(type, t);
        const detail::CornerTurnBlocks b = detail::corner_turn_blocks(comm, nrows, ncols, t, pre);
        return CornerTurnBlocks{to_api(b.send), to_api(b.recv)};
    });
}

SharedMemory::SharedMemory(std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(INT64_MAX))
        throw Error(Errc::overflow, "SharedMemory: size beyond 2^63 bytes");
    base_ = guarded(
        [&] { return static_cast<std::byte*>(detail::shared_alloc(static_cast<Index>(bytes))); });
    size_ = bytes;
}

SharedMemory::SharedMemory(SharedMemory&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)), size_(std::exchange(o.size_, 0)) {}

SharedMemory& SharedMemory::operator=(SharedMemory&& o) noexcept {
    if (this != &o) {
        release();
        base_ = std::exchange(o.base_, nullptr);
        size_ = std::exchange(o.size_, 0);
    }
    return *this;
}

void SharedMemory::free() {
    // Freeing twice is DRI_ERR_ARG, as DRI_Free_mem's (docs/errors.md).
    if (!base_) throw Error(Errc::arg, "SharedMemory::free: already freed or moved from");
    guarded([&] { detail::shared_free(base_); });
    base_ = nullptr;
    size_ = 0;
}

void SharedMemory::release() noexcept {
    if (base_) deallocate(base_);
    base_ = nullptr;
    size_ = 0;
}

void* SharedMemory::allocate(std::size_t bytes) {
    try {
        if (bytes > static_cast<std::size_t>(INT64_MAX)) throw std::bad_alloc();
        return detail::shared_alloc(static_cast<Index>(bytes));
    } catch (const core::Error&) {
        throw std::bad_alloc();
    }
}

void SharedMemory::deallocate(void* p) noexcept {
    detail::shared_free_when_unused(p);
}

SharedMemory::~SharedMemory() {
    release();
}

Transfer corner_turn(MPI_Comm comm, Index nrows, Index ncols, Type type,
                     std::span<const std::span<std::byte>> send_buffers,
                     std::span<const std::span<std::byte>> recv_buffers) {
    return Transfer(guarded([&] {
        core::ElementType t;
        const detail::Status pre = element_type(type, t);
        return detail::corner_turn(comm, nrows, ncols, t, send_buffers, recv_buffers, pre);
    }));
}

void commit(MPI_Comm comm, std::span<Transfer* const> transfers) {
    guarded([&] {
        std::vector<detail::TransferImpl*> impls;
        for (Transfer* t : transfers)
            impls.push_back(t ? t->impl() : nullptr);
        detail::commit(comm, impls);
    });
}

} // namespace dri

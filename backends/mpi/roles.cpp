// Declaring a transfer's roles, and what may be set before its commit: the
// strategy, how arrivals combine, and the split of a role into pieces.
#include "core/box_partition.hpp"
#include "core/pieces.hpp"
#include "mpi/interface.hpp"

#include "mpi/shared_memory.hpp"

#include <atomic>
#include <cstdint>
#include <utility>

namespace dri::detail {

using core::Errc;
using core::Index;

namespace {

// The bytes of this process's block in the role, after checking that the
// role can be declared.
Index block_bytes(const TransferImpl& t, const DistributionImpl& d, const core::Layout& l,
                  const char* what) {
    if (t.committed)
        core::fail(core::Errc::state, "transfer '" + t.name + "' is already committed");
    if (d.group->my_index < 0)
        core::fail(core::Errc::group, "transfer '" + t.name +
                                          "': the calling process is not in the " + what +
                                          " distribution's group");
    if (l.ndims() != d.dist.ndims())
        core::fail(core::Errc::layout, "transfer '" + t.name + "': the " + what + " layout has " +
                                           std::to_string(l.ndims()) + " dimensions, the data " +
                                           std::to_string(d.dist.ndims()));
    if (d.dist.boxes()) core::check_box_layout(l);
    return core::bind_layout(l, d.dist.local_extents(d.group->my_index), d.dist.shape().elem_size())
        .bytes;
}

void check_ring_length(const TransferImpl& t, std::size_t n, const char* what) {
    if (n == 0)
        core::fail(core::Errc::buffer_count,
                   "transfer '" + t.name + "': the " + what + " role needs at least one buffer");
}

Role make_role(const TransferImpl& t, std::shared_ptr<const DistributionImpl> d,
               const core::Layout& l, std::span<const std::span<std::byte>> buffers,
               const char* what) {
    const Index need = block_bytes(t, *d, l, what);
    check_ring_length(t, buffers.size(), what);
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        if (buffers[i].data() == nullptr && need > 0)
            core::fail(core::Errc::buffer, "transfer '" + t.name + "': " + what + " buffer " +
                                               std::to_string(i) + " is NULL");
        if (static_cast<Index>(buffers[i].size()) < need)
            core::fail(core::Errc::buffer_size,
                       "transfer '" + t.name + "': " + what + " buffer " + std::to_string(i) +
                           " has " + std::to_string(buffers[i].size()) +
                           " bytes but the block needs " + std::to_string(need));
    }
    static std::atomic<std::uint64_t> rings{0}; // ring ids, unique in the process
    std::vector<std::span<std::byte>> ring(buffers.begin(), buffers.end());
    return Role{std::move(d), l, std::move(ring), 0, {}, ++rings, -1, 1, {}};
}

const char* role_name(RoleKind kind) {
    return kind == RoleKind::send ? "sending" : "receiving";
}

} // namespace

std::shared_ptr<TransferImpl> make_transfer(std::string name) {
    require_initialized();
    if (name.empty()) core::fail(Errc::arg, "a transfer needs a non-empty name");
    auto t = std::make_shared<TransferImpl>();
    t->name = std::move(name);
    return t;
}

namespace {

std::optional<Role>& free_slot(TransferImpl& t, RoleKind kind, const DistributionImpl* dist) {
    std::optional<Role>& slot = kind == RoleKind::send ? t.send : t.recv;
    require_initialized();
    if (!dist) core::fail(Errc::handle, "transfer '" + t.name + "': invalid distribution");
    if (slot)
        core::fail(Errc::duplicate,
                   "transfer '" + t.name + "' already has a " + role_name(kind) + " role");
    return slot;
}

} // namespace

void remember_refusal(TransferImpl& t, RoleKind kind, std::shared_ptr<const DistributionImpl> dist,
                      const core::Error& e) {
    // A role already declared stands: declaring it again is the error alone.
    const bool declared = kind == RoleKind::send ? t.send.has_value() : t.recv.has_value();
    if (!t.committed && !declared && dist)
        t.refused[kind == RoleKind::send ? 0 : 1] = {e.code(), e.what(), std::move(dist)};
}

namespace {

// Declares a role with `make`, remembering a refusal of its arguments for
// the commit (TransferImpl::refused); a later declaration of the role that
// succeeds forgets it. Refusals of the call itself (no DRI, a bad handle, a
// role declared twice) are not remembered: the role is not in question.
template <class Make>
void declare_with(TransferImpl& t, RoleKind kind, std::shared_ptr<const DistributionImpl> dist,
                  Make make) {
    std::optional<Role>& slot = free_slot(t, kind, dist.get());
    try {
        slot = make(dist);
    } catch (const core::Error& e) {
        remember_refusal(t, kind, std::move(dist), e);
        throw;
    }
    t.refused[kind == RoleKind::send ? 0 : 1] = {};
}

} // namespace

void declare_role(TransferImpl& t, RoleKind kind, std::shared_ptr<const DistributionImpl> dist,
                  const LayoutImpl& layout, std::span<const std::span<std::byte>> buffers) {
    declare_with(t, kind, std::move(dist), [&](std::shared_ptr<const DistributionImpl> d) {
        return make_role(t, std::move(d), layout.layout, buffers, role_name(kind));
    });
}

void declare_owned_role(TransferImpl& t, RoleKind kind,
                        std::shared_ptr<const DistributionImpl> dist, const LayoutImpl& layout,
                        int nbuf) {
    declare_with(t, kind, std::move(dist), [&](std::shared_ptr<const DistributionImpl> d) {
        const Index bytes = block_bytes(t, *d, layout.layout, role_name(kind));
        check_ring_length(t, nbuf < 0 ? 0 : static_cast<std::size_t>(nbuf), role_name(kind));
        std::vector<SharedBuffer> ring = shared_ring(nbuf, bytes);
        Role r = make_role(t, std::move(d), layout.layout, spans_of(ring, bytes), role_name(kind));
        r.owned = std::move(ring);
        return r;
    });
}

std::span<std::byte> ring_buffer(const TransferImpl& t, RoleKind kind, int k) {
    const std::optional<Role>& r = kind == RoleKind::send ? t.send : t.recv;
    if (!r)
        core::fail(Errc::state, "transfer '" + t.name + "' has no " + role_name(kind) + " role");
    if (k < 0 || static_cast<std::size_t>(k) >= r->buffers.size())
        core::fail(Errc::arg, "transfer '" + t.name + "': the " + role_name(kind) + " ring has " +
                                  std::to_string(r->buffers.size()) +
                                  " buffers, there is no buffer " + std::to_string(k));
    return r->buffers[static_cast<std::size_t>(k)];
}

void set_strategy(TransferImpl& t, Strategy s) {
    require_initialized();
    if (t.committed) core::fail(Errc::state, "transfer '" + t.name + "' is already committed");
    if (static_cast<int>(s) < 0 || static_cast<int>(s) >= strategy_count)
        core::fail(Errc::arg, "unknown strategy " + std::to_string(static_cast<int>(s)));
    t.strategy = s;
}

void set_combine(TransferImpl& t, core::CombineOp op) {
    require_initialized();
    if (t.committed) core::fail(Errc::state, "transfer '" + t.name + "' is already committed");
    if (!t.recv)
        core::fail(Errc::state, "transfer '" + t.name +
                                    "': only a process that declared the receiving role (before "
                                    "this call) chooses how arriving elements are combined");
    if (static_cast<int>(op) < 0 ||
        static_cast<int>(op) > static_cast<int>(core::CombineOp::replace))
        core::fail(Errc::arg, "transfer '" + t.name + "': unknown combine operation " +
                                  std::to_string(static_cast<int>(op)));
    t.combine = op;
}

namespace {

// The role of t (const or not), which must be declared.
template <class Xfer>
auto& declared_role(Xfer& t, RoleKind kind) {
    auto& r = kind == RoleKind::send ? t.send : t.recv;
    if (static_cast<int>(kind) != 0 && static_cast<int>(kind) != 1)
        core::fail(Errc::arg, "transfer '" + t.name + "': unknown role " +
                                  std::to_string(static_cast<int>(kind)));
    if (!r)
        core::fail(Errc::state, "transfer '" + t.name + "' has no " + role_name(kind) + " role");
    return *r;
}

// The extent of this process's block of the role along dimension d.
Index local_extent(const Role& r, int d) {
    const DistributionImpl& dist = *r.dist;
    return dist.dist.local_extents(dist.group->my_index)[static_cast<std::size_t>(d)];
}

} // namespace

void set_pieces(TransferImpl& t, RoleKind kind, int dim, int count, std::vector<Index> bounds) {
    require_initialized();
    Role& r = declared_role(t, kind);
    if (t.committed) core::fail(Errc::state, "transfer '" + t.name + "' is already committed");
    const int nd = r.dist->dist.ndims();
    try {
        if (r.dist->dist.boxes())
            core::fail(Errc::strategy, "pieces are not available on box distributions");
        core::check_split(nd, dim, count, bounds, dim >= 0 && dim < nd ? local_extent(r, dim) : 0);
    } catch (const core::Error& e) {
        core::fail(e.code(),
                   "transfer '" + t.name + "', " + role_name(kind) + " role: " + e.what());
    }
    r.piece_dim = dim;
    r.piece_count = count;
    r.piece_bounds = std::move(bounds);
}

std::pair<int, int> pieces_of(const TransferImpl& t, RoleKind kind) {
    const Role& r = declared_role(t, kind);
    return {r.piece_dim, r.piece_count};
}

std::pair<Index, Index> piece_range(const TransferImpl& t, RoleKind kind, int k) {
    const Role& r = declared_role(t, kind);
    if (k < 0 || k >= r.piece_count)
        core::fail(Errc::arg, "transfer '" + t.name + "': the " + role_name(kind) + " role has " +
                                  std::to_string(r.piece_count) + " piece" +
                                  (r.piece_count == 1 ? "" : "s") + ", there is no piece " +
                                  std::to_string(k));
    if (r.piece_dim < 0) return {0, local_extent(r, 0)};
    if (!r.piece_bounds.empty())
        return {r.piece_bounds[static_cast<std::size_t>(k)],
                r.piece_bounds[static_cast<std::size_t>(k) + 1]};
    return core::even_piece(local_extent(r, r.piece_dim), r.piece_count, k);
}

} // namespace dri::detail

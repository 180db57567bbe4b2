#include "ops.hpp"

#include "commit.hpp"
#include "executor.hpp"
#include "wire.hpp"

#include <atomic>
#include <optional>

namespace dri::detail {

using core::Errc;
using core::Index;

namespace {

// Collective over the group: builds the distribution when every member
// passed the same global data and partition and they are valid.
core::Distribution create_distribution(const core::Shape* shape, const core::Partition* part,
                                       const GroupImpl& g, const Status& pre) {
    if (g.my_index < 0)
        core::fail(core::Errc::group, "rank " + std::to_string(g.parent_rank) +
                                          " is not a member of the distribution's group");
    MPI_Group parent_group = MPI_GROUP_NULL, sub = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    check_mpi(MPI_Comm_group(g.parent, &parent_group), "MPI_Comm_group");
    int rc = MPI_Group_incl(parent_group, static_cast<int>(g.ranks.size()), g.ranks.data(), &sub);
    MPI_Group_free(&parent_group);
    check_mpi(rc, "MPI_Group_incl");
    rc = MPI_Comm_create_group(g.parent, sub, 0x445249, &comm);
    MPI_Group_free(&sub);
    check_mpi(rc, "MPI_Comm_create_group");
    count_handle(+1);
    struct FreeComm {
        MPI_Comm& c;
        ~FreeComm() { detail::free_comm(c); }
    } free_group_comm{comm};
    check_mpi(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    agree(comm, pre); // a member that failed before the call fails it everywhere

    // Same arguments everywhere? Compare a hash of their canonical form.
    Writer w;
    write_shape_partition(w, *shape, *part);
    const std::uint64_t h = fnv1a(w.str_bytes());
    unsigned long long hv[2] = {h, ~h};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, hv, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm),
              "MPI_Allreduce");
    if (hv[0] != h || hv[1] != ~h)
        agree(comm, {core::Errc::inconsistent,
                     "the processes of the group passed different global data or partitions to "
                     "the distribution's collective creation"});
    std::optional<core::Distribution> dist;
    agree(comm, capture([&] { dist.emplace(*shape, *part, static_cast<int>(g.ranks.size())); }));
    return std::move(*dist);
}

Role make_role(const TransferImpl& t, std::shared_ptr<const DistributionImpl> d,
               const core::Layout& l, std::span<const std::span<std::byte>> buffers,
               const char* what) {
    if (t.committed)
        core::fail(core::Errc::state, "transfer '" + t.name + "' is already committed");
    if (d->group->my_index < 0)
        core::fail(core::Errc::group, "transfer '" + t.name +
                                          "': the calling process is not in the " + what +
                                          " distribution's group");
    if (l.ndims() != d->dist.ndims())
        core::fail(core::Errc::layout, "transfer '" + t.name + "': the " + what + " layout has " +
                                           std::to_string(l.ndims()) + " dimensions, the data " +
                                           std::to_string(d->dist.ndims()));
    if (buffers.empty())
        core::fail(core::Errc::buffer_count,
                   "transfer '" + t.name + "': the " + what + " role needs at least one buffer");
    const Index need =
        core::bind_layout(l, d->dist.local_extents(d->group->my_index), d->dist.shape().elem_size())
            .bytes;
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
    return Role{std::move(d), l, std::vector<std::span<std::byte>>(buffers.begin(), buffers.end()),
                0};
}

std::byte* current(std::optional<Role>& r) {
    return r ? r->buffers[static_cast<std::size_t>(r->current)].data() : nullptr;
}

} // namespace

void require_no_mpi_failure(const TransferImpl& t) {
    if (!t.failed.empty())
        core::fail(core::Errc::state, "transfer '" + t.name +
                                          "' is unusable after an earlier MPI failure (" +
                                          t.failed + "); destroy it");
}

namespace {

void advance(TransferImpl& t) {
    for (auto* r : {&t.send, &t.recv})
        if (*r) (*r)->current = ((*r)->current + 1) % static_cast<int>((*r)->buffers.size());
}

void ready(const TransferImpl& t, bool want_in_flight) {
    require_initialized();
    if (!t.committed || !t.exec)
        core::fail(core::Errc::state, "transfer '" + t.name + "' is not committed");
    require_no_mpi_failure(t);
    if (t.in_flight != want_in_flight)
        core::fail(core::Errc::state,
                   "transfer '" + t.name + "' " +
                       (want_in_flight ? "has no reorganization in flight"
                                       : "already has a reorganization in flight"));
}

} // namespace

std::shared_ptr<const GlobalDataImpl> make_globaldata(std::vector<Index> extents,
                                                      core::ElementType type) {
    require_initialized();
    return std::make_shared<const GlobalDataImpl>(
        GlobalDataImpl{core::Shape(std::move(extents), type)});
}

std::shared_ptr<const PartitionImpl> make_partition(core::Partition part) {
    require_initialized();
    if (part.empty() || part.size() > static_cast<std::size_t>(core::max_dims))
        core::fail(Errc::ndims, "a partition has 1 to " + std::to_string(core::max_dims) +
                                    " dimensions, got " + std::to_string(part.size()));
    for (std::size_t d = 0; d < part.size(); ++d)
        core::validate_dim_partition(part[d], d, std::nullopt);
    return std::make_shared<const PartitionImpl>(PartitionImpl{std::move(part)});
}

std::shared_ptr<const GroupImpl> make_group(MPI_Comm parent, std::vector<int> ranks) {
    require_initialized();
    if (parent == MPI_COMM_NULL)
        core::fail(Errc::group, "the parent communicator is MPI_COMM_NULL");
    int size = 0, me = 0;
    check_mpi(MPI_Comm_size(parent, &size), "MPI_Comm_size");
    check_mpi(MPI_Comm_rank(parent, &me), "MPI_Comm_rank");
    if (ranks.empty())
        for (int r = 0; r < size; ++r)
            ranks.push_back(r);
    std::vector<bool> seen(static_cast<std::size_t>(size), false);
    auto g = std::make_shared<GroupImpl>();
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const int r = ranks[i];
        if (r < 0 || r >= size)
            core::fail(Errc::group, "group rank " + std::to_string(r) +
                                        " is outside the parent's [0, " + std::to_string(size) +
                                        ")");
        if (seen[static_cast<std::size_t>(r)])
            core::fail(Errc::group, "rank " + std::to_string(r) + " appears twice in the group");
        seen[static_cast<std::size_t>(r)] = true;
        if (r == me) g->my_index = static_cast<int>(i);
    }
    g->parent = parent;
    g->ranks = std::move(ranks);
    g->parent_rank = me;
    return g;
}

std::shared_ptr<const LayoutImpl> make_layout(core::Layout layout) {
    require_initialized();
    return std::make_shared<const LayoutImpl>(LayoutImpl{std::move(layout)});
}

std::shared_ptr<const DistributionImpl> make_distribution(const GlobalDataImpl* gdo,
                                                          const PartitionImpl* part,
                                                          std::shared_ptr<const GroupImpl> group,
                                                          const Status& pre) {
    require_initialized();
    if (!group) core::fail(Errc::handle, "distribution: invalid group");
    Status first = pre;
    if (!first.failed() && (!gdo || !part))
        first = {Errc::handle, "distribution: invalid global data or partition"};
    core::Distribution d = create_distribution(gdo ? &gdo->shape : nullptr,
                                               part ? &part->part : nullptr, *group, first);
    return std::make_shared<const DistributionImpl>(
        DistributionImpl{std::move(group), std::move(d)});
}

BlockInfo block_info(const DistributionImpl& dist, const LayoutImpl& layout, int idx) {
    require_initialized();
    const core::Distribution& d = dist.dist;
    if (idx < 0 || idx >= d.nprocs())
        core::fail(Errc::arg, "process index " + std::to_string(idx) + " outside the group [0, " +
                                  std::to_string(d.nprocs()) + ")");
    const core::LocalLayout ll =
        core::bind_layout(layout.layout, d.local_extents(idx), d.shape().elem_size());
    BlockInfo b;
    b.index = idx;
    b.coords = d.coords(idx);
    for (int k = 0; k < d.ndims(); ++k) {
        const int c = b.coords[static_cast<std::size_t>(k)];
        const Index n = d.segment_count(k, c);
        b.segments.push_back(n);
        b.local_extent.push_back(d.local_extent(k, c));
        b.owned_count.push_back(d.owned_extent(k, c));
        b.strides.push_back(ll.strides[static_cast<std::size_t>(k)]);
        const core::Segment first = n ? d.segment(k, c, 0) : core::Segment{0, 0, 0, 0, 0};
        const core::Segment last = n ? d.segment(k, c, n - 1) : core::Segment{0, 0, 0, 0, 0};
        b.owned_first.push_back(first.own_lo);
        b.owned_last.push_back(last.own_hi - 1);
        b.stored_first.push_back(first.lo);
        b.stored_last.push_back(last.hi - 1);
    }
    b.bytes = ll.bytes;
    return b;
}

TransferImpl::TransferImpl() {
    register_transfer(this);
}

TransferImpl::~TransferImpl() {
    unregister_transfer(this);
    release();
}

void TransferImpl::release() noexcept {
    if (exec) exec->release();
    exec.reset();
    committed = false;
    in_flight = false;
}

MPI_Comm TransferImpl::parent() const {
    if (send) return send->dist->group->parent;
    if (recv) return recv->dist->group->parent;
    return MPI_COMM_WORLD;
}

std::shared_ptr<TransferImpl> make_transfer(std::string name) {
    require_initialized();
    if (name.empty()) core::fail(Errc::arg, "a transfer needs a non-empty name");
    auto t = std::make_shared<TransferImpl>();
    t->name = std::move(name);
    return t;
}

void declare_role(TransferImpl& t, RoleKind kind, std::shared_ptr<const DistributionImpl> dist,
                  const LayoutImpl& layout, std::span<const std::span<std::byte>> buffers) {
    std::optional<Role>& slot = kind == RoleKind::send ? t.send : t.recv;
    const char* what = kind == RoleKind::send ? "sending" : "receiving";
    require_initialized();
    if (!dist) core::fail(Errc::handle, "transfer '" + t.name + "': invalid distribution");
    if (slot)
        core::fail(Errc::duplicate, "transfer '" + t.name + "' already has a " + what + " role");
    slot = make_role(t, std::move(dist), layout.layout, buffers, what);
}

void set_strategy(TransferImpl& t, Strategy s) {
    require_initialized();
    if (t.committed) core::fail(Errc::state, "transfer '" + t.name + "' is already committed");
    if (static_cast<int>(s) < DRI_STRATEGY_AUTO || static_cast<int>(s) > DRI_STRATEGY_SHARED)
        core::fail(Errc::arg, "unknown strategy " + std::to_string(static_cast<int>(s)));
    t.strategy = s;
}

void commit(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Status& pre) {
    commit_transfers(comm, xfers, pre);
}

namespace {

// The two distributions and layouts of the corner turn over every process of
// comm. Collective; a local failure (bad extents, a bad type) is carried
// through the distribution's collective so that every process fails alike.
struct CornerTurnSides {
    std::shared_ptr<const DistributionImpl> rows, cols;
    std::shared_ptr<const LayoutImpl> row_major, col_major;
};

CornerTurnSides corner_turn_sides(MPI_Comm comm, Index nrows, Index ncols, core::ElementType type,
                                  const Status& pre) {
    require_initialized();
    CornerTurnSides s;
    std::shared_ptr<const GlobalDataImpl> gdo;
    Status st = pre;
    if (!st.failed()) st = capture([&] { gdo = make_globaldata({nrows, ncols}, type); });
    const auto rows_p = make_partition({core::DimPartition::block(), core::DimPartition::whole()});
    const auto cols_p = make_partition({core::DimPartition::whole(), core::DimPartition::block()});
    const auto group = make_group(comm, {});
    s.rows = make_distribution(gdo.get(), rows_p.get(), group, st);
    s.cols = make_distribution(gdo.get(), cols_p.get(), group);
    s.row_major = make_layout(core::Layout::packed(2));
    s.col_major = make_layout(core::Layout::ordered({1, 0}));
    return s;
}

} // namespace

CornerTurnBlocks corner_turn_blocks(MPI_Comm comm, Index nrows, Index ncols, core::ElementType type,
                                    const Status& pre) {
    const CornerTurnSides s = corner_turn_sides(comm, nrows, ncols, type, pre);
    return {block_info(*s.rows, *s.row_major, s.rows->group->my_index),
            block_info(*s.cols, *s.col_major, s.cols->group->my_index)};
}

std::shared_ptr<TransferImpl> corner_turn(MPI_Comm comm, Index nrows, Index ncols,
                                          core::ElementType type,
                                          std::span<const std::span<std::byte>> send_buffers,
                                          std::span<const std::span<std::byte>> recv_buffers,
                                          const Status& pre) {
    const CornerTurnSides s = corner_turn_sides(comm, nrows, ncols, type, pre);
    // One name per call: every process makes its convenience calls in the
    // same order (they are collective), so the k-th call matches everywhere.
    static std::atomic<long> calls{0};
    auto t = make_transfer("dri corner turn #" + std::to_string(calls++));
    // Buffer errors are local: they go into the commit's agreement.
    const Status declared = capture([&] {
        declare_role(*t, RoleKind::send, s.rows, *s.row_major, send_buffers);
        declare_role(*t, RoleKind::recv, s.cols, *s.col_major, recv_buffers);
    });
    TransferImpl* p = t.get();
    commit(comm, std::span<TransferImpl* const>(&p, 1), declared);
    return t;
}

namespace {

// Runs one executor step. An MPI failure leaves the reorganization half done
// on this process and unknowable on the others: the executor abandons what
// is in flight and the transfer refuses further use (DRI_ERR_STATE) instead
// of delivering data that may be wrong.
template <class F>
auto guarded_step(TransferImpl& t, F&& step) {
    try {
        return step();
    } catch (const core::Error& e) {
        if (e.code() != Errc::mpi) throw;
        t.exec->abandon();
        t.in_flight = false;
        t.failed = e.what();
        throw;
    }
}

} // namespace

void execute(TransferImpl& t) {
    ready(t, false);
    guarded_step(t, [&] { t.exec->run(current(t.send), current(t.recv)); });
    advance(t);
}

void start(TransferImpl& t) {
    ready(t, false);
    guarded_step(t, [&] { t.exec->start(current(t.send), current(t.recv)); });
    t.in_flight = true;
}

void wait(TransferImpl& t) {
    ready(t, true);
    guarded_step(t, [&] { t.exec->wait(); });
    t.in_flight = false;
    advance(t);
}

bool test(TransferImpl& t) {
    ready(t, true);
    if (!guarded_step(t, [&] { return t.exec->test(); })) return false;
    t.in_flight = false;
    advance(t);
    return true;
}

} // namespace dri::detail

// Transfers: declaring roles, and running a committed plan (DRI_Do and the
// non-blocking start / wait / test).
#include "core/box_partition.hpp"
#include "mpi/interface.hpp"

#include "mpi/commit/commit.hpp"
#include "mpi/shared_memory.hpp"
#include "mpi/strategies/executor.hpp"
#include "mpi/strategies/progress.hpp"

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
    return Role{std::move(d), l, std::move(ring), 0, {}, ++rings};
}

const char* role_name(RoleKind kind) {
    return kind == RoleKind::send ? "sending" : "receiving";
}

std::byte* current(std::optional<Role>& r) {
    return r ? r->buffers[static_cast<std::size_t>(r->current)].data() : nullptr;
}

BusyBuffer current_busy(const std::optional<Role>& r) {
    if (!r) return {};
    return {r->buffers[static_cast<std::size_t>(r->current)], r->ring_id, r->current};
}

// The same buffer of the same ring (whatever its size: an empty block's
// too), or bytes both reach.
bool overlap(const BusyBuffer& a, const BusyBuffer& b) {
    if (a.ring != 0 && a.ring == b.ring && a.index == b.index) return true;
    const std::span<const std::byte> x = a.bytes, y = b.bytes;
    return !x.empty() && !y.empty() && x.data() < y.data() + y.size() &&
           y.data() < x.data() + x.size();
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

// Marks the buffers a reorganization of t is about to move as in flight,
// after checking that its forward or reverse does not have one of them in
// flight: refused (DRI_ERR_STATE) before anything is touched.
void claim_buffers(TransferImpl& t) {
    const BusyBuffer mine[2] = {current_busy(t.send), current_busy(t.recv)};
    std::lock_guard<std::mutex> lock(t.family->mutex);
    for (const TransferImpl* o : t.family->members) {
        if (o == &t) continue;
        for (const BusyBuffer& theirs : {o->busy_send, o->busy_recv})
            for (int k = 0; k < 2; ++k)
                if (overlap(mine[k], theirs))
                    core::fail(Errc::state,
                               "transfer '" + t.name + "': its current " +
                                   (k == 0 ? "send" : "receive") + " buffer is in flight in '" +
                                   o->name +
                                   "', which runs over the same rings; complete that "
                                   "reorganization first (or use another buffer of the ring)");
    }
    t.busy_send = mine[0];
    t.busy_recv = mine[1];
}

void free_buffers(TransferImpl& t) noexcept {
    std::lock_guard<std::mutex> lock(t.family->mutex);
    t.busy_send = t.busy_recv = {};
}

} // namespace

TransferImpl::TransferImpl() : family(std::make_shared<RingFamily>()) {
    family->members.push_back(this);
    register_transfer(this);
}

TransferImpl::~TransferImpl() {
    unregister_transfer(this);
    release();
    std::lock_guard<std::mutex> lock(family->mutex);
    std::erase(family->members, this);
}

void join_family(const TransferImpl& forward, TransferImpl& reverse) {
    std::lock_guard<std::mutex> lock(forward.family->mutex);
    forward.family->members.push_back(&reverse);
    reverse.family = forward.family;
}

// A reorganization in flight is completed first, as DRI_Do_wait would, by
// every strategy alike: a peer may be waiting for this process's part (the
// single copy's readers answer their senders only as they copy), so freeing
// the requests instead would leave it hanging. If completing fails in MPI,
// the reorganization is abandoned.
void TransferImpl::release() noexcept {
    if (exec && in_flight && failed.empty() && mpi_alive()) {
        try {
            exec->wait();
        } catch (...) {
            exec->abandon();
        }
    }
    if (exec) exec->release();
    exec.reset();
    for (SharedBlock* b : pinned)
        shared_use(b, -1);
    pinned.clear();
    sides.reset();
    committed = false;
    in_flight = false;
    std::lock_guard<std::mutex> lock(family->mutex);
    busy_send = busy_recv = {};
}

// Every ring buffer in DRI shared memory pins its allocation: DRI_Free_mem
// refuses while the transfer is committed, whatever the strategy.
void TransferImpl::pin_rings() {
    for (const auto* role : {&send, &recv}) {
        if (!*role) continue;
        for (const std::span<std::byte>& b : (*role)->buffers) {
            SharedBlock* blk = shared_find_own(b.data(), static_cast<core::Index>(b.size()));
            if (!blk) continue;
            shared_use(blk, +1);
            pinned.push_back(blk);
        }
    }
}

MPI_Comm TransferImpl::parent() const {
    if (send) return send->dist->group->parent;
    if (recv) return recv->dist->group->parent;
    for (const Refusal& r : refused)
        if (r.dist) return r.dist->group->parent;
    return MPI_COMM_NULL;
}

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

void commit(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Status& pre) {
    commit_transfers(comm, xfers, pre);
}

void commit_alone(TransferImpl& t) {
    require_initialized();
    // Without a role there are no processes to agree with: a local error.
    const MPI_Comm comm = t.parent();
    if (comm == MPI_COMM_NULL)
        core::fail(Errc::state,
                   "transfer '" + t.name + "' declares neither a sender nor a receiver role");
    TransferImpl* p = &t;
    commit(comm, std::span<TransferImpl* const>(&p, 1));
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
        free_buffers(t);
        t.failed = e.what();
        throw;
    }
}

// Claims the current buffers, then runs `step` on them (guarded); if it
// fails, whatever the error, they are no longer in flight.
template <class F>
void claimed_step(TransferImpl& t, F&& step) {
    claim_buffers(t);
    try {
        guarded_step(t, std::forward<F>(step));
    } catch (...) {
        free_buffers(t);
        throw;
    }
}

} // namespace

void execute(TransferImpl& t) {
    ready(t, false);
    claimed_step(t, [&] { t.exec->run(current(t.send), current(t.recv)); });
    free_buffers(t);
    advance(t);
}

void start(TransferImpl& t) {
    ready(t, false);
    claimed_step(t, [&] { t.exec->start(current(t.send), current(t.recv)); });
    t.in_flight = true;
}

void wait(TransferImpl& t) {
    ready(t, true);
    guarded_step(t, [&] { t.exec->wait(); });
    t.in_flight = false;
    free_buffers(t);
    advance(t);
}

bool test(TransferImpl& t) {
    ready(t, true);
    // A test progresses the single copies in flight here too (progress.hpp).
    progress_others(nullptr);
    if (!guarded_step(t, [&] { return t.exec->test(); })) return false;
    t.in_flight = false;
    free_buffers(t);
    advance(t);
    return true;
}

} // namespace dri::detail

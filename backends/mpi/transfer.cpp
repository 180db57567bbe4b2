// Transfers: running a committed plan (DRI_Do, the non-blocking start /
// wait / test, and the piece calls); teardown. Declaring roles: roles.cpp.
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

void require_runnable(const TransferImpl& t, bool want_in_flight) {
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
// the requests instead would leave it hanging. So send pieces still
// unmarked are marked first: their bytes, whatever they hold, go to their
// receivers, who would otherwise wait for them forever. A reorganization a
// piece call completed already is not completed twice. If completing fails
// in MPI, the reorganization is abandoned.
void TransferImpl::release() noexcept {
    if (exec && in_flight && !frame_done && failed.empty() && mpi_alive()) {
        try {
            for (int k = 0; marked && send && k < send->piece_count; ++k)
                if (!marked[static_cast<std::size_t>(k)].exchange(true)) exec->piece_ready(k);
            exec->wait();
        } catch (...) {
            exec->abandon();
        }
    }
    if (exec) exec->release();
    learners.clear();
    exec.reset();
    for (SharedBlock* b : pinned)
        shared_use(b, -1);
    pinned.clear();
    sides.reset();
    committed = false;
    in_flight = false;
    frame_done = false;
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

namespace {

bool send_split(const TransferImpl& t) {
    return t.send && t.send->piece_dim >= 0;
}

// A wait or test may complete the reorganization only once every piece of
// a split send role is marked and its marking has returned: else its
// messages are not all posted (DRI_ERR_STATE, nothing changes).
void require_all_marked(const TransferImpl& t) {
    if (!send_split(t) || t.marks.load(std::memory_order_acquire) == t.send->piece_count) return;
    int k = 0;
    while (k < t.send->piece_count && t.marked[static_cast<std::size_t>(k)].load())
        ++k;
    core::fail(Errc::state, "transfer '" + t.name + "': send piece " + std::to_string(k) +
                                " is not marked ready (DRI_Piece_ready), or its marking has not "
                                "returned; mark every piece before completing the reorganization");
}

void clear_marks(TransferImpl& t) {
    if (!send_split(t)) return;
    for (int k = 0; k < t.send->piece_count; ++k)
        t.marked[static_cast<std::size_t>(k)].store(false, std::memory_order_relaxed);
    t.marks.store(0, std::memory_order_relaxed);
}

void check_piece(const TransferImpl& t, const std::optional<Role>& role, int k, const char* what) {
    require_runnable(t, true);
    if (!role)
        core::fail(Errc::state, "transfer '" + t.name + "': this process has no " + what +
                                    " role, so no " + what + " pieces");
    if (k < 0 || k >= role->piece_count)
        core::fail(Errc::arg, "transfer '" + t.name + "': the " + what + " role has " +
                                  std::to_string(role->piece_count) + " piece" +
                                  (role->piece_count == 1 ? "" : "s") + ", there is no piece " +
                                  std::to_string(k));
}

// Completes the reorganization in flight with `step` (wait or test), unless
// a piece call completed it already.
template <class F>
bool complete(TransferImpl& t, F&& step) {
    require_runnable(t, true);
    require_all_marked(t);
    if (!t.frame_done && !guarded_step(t, std::forward<F>(step))) return false;
    t.in_flight = false;
    t.frame_done = false;
    free_buffers(t);
    advance(t);
    return true;
}

} // namespace

// DRI_Do on a split send role: the executor marks every piece itself.
void execute(TransferImpl& t) {
    require_runnable(t, false);
    claimed_step(t, [&] { t.exec->run(current(t.send), current(t.recv)); });
    free_buffers(t);
    advance(t);
}

void start(TransferImpl& t) {
    require_runnable(t, false);
    clear_marks(t);
    t.frame_done = false;
    claimed_step(t, [&] { t.exec->start(current(t.send), current(t.recv)); });
    t.in_flight = true;
}

void wait(TransferImpl& t) {
    complete(t, [&] {
        t.exec->wait();
        return true;
    });
}

bool test(TransferImpl& t) {
    require_runnable(t, true);
    // A test progresses the single copies in flight here too (progress.hpp).
    progress_others(nullptr);
    return complete(t, [&] { return t.exec->test(); });
}

void piece_ready(TransferImpl& t, int k) {
    check_piece(t, t.send, k, "send");
    if (!send_split(t))
        core::fail(Errc::state, "transfer '" + t.name +
                                    "': its send role is not split into pieces, so its one piece "
                                    "was marked ready when the reorganization started");
    if (t.marked[static_cast<std::size_t>(k)].exchange(true, std::memory_order_acq_rel))
        core::fail(Errc::state, "transfer '" + t.name + "': send piece " + std::to_string(k) +
                                    " is already marked ready in this reorganization");
    guarded_step(t, [&] { t.exec->piece_ready(k); });
    t.marks.fetch_add(1, std::memory_order_acq_rel);
}

bool piece_arrived(TransferImpl& t, int k, bool block) {
    check_piece(t, t.recv, k, "receive");
    // A piece call progresses the single copies in flight here too
    // (progress.hpp), as DRI_Do_test does.
    progress_others(nullptr);
    if (t.exec->moves_pieces())
        return guarded_step(t, [&] { return t.exec->piece_arrived(k, block); });
    // Without pieces the one receive piece is the whole frame.
    if (!t.frame_done) {
        require_all_marked(t);
        t.frame_done = guarded_step(t, [&] {
            if (!block) return t.exec->test();
            t.exec->wait();
            return true;
        });
    }
    return t.frame_done;
}

} // namespace dri::detail

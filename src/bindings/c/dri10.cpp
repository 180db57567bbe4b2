// The DRI-1.0 compatibility layer (include/dri/dri10.h) over the same
// objects as dri.h: predefined partitions and layouts are registry entries
// with fixed ids; a DRI_Reorg is one role of a named transfer, and the roles
// of one name on this process share the transfer, its buffers and the state
// of the frame in flight.
#include "dri/dri10.h"

#include "bindings/c/convert.hpp"
#include "bindings/c/registry.hpp"

#include <cstdlib>
#include <map>

namespace dri::capi {

namespace {

// Everything the roles of one name on this process share.
struct Shared {
    std::string name;
    // Both roles' rings, in node shared memory so that the single copy
    // applies; declared before the transfer so that they outlive it.
    std::vector<detail::SharedBuffer> buffers;
    std::shared_ptr<detail::TransferImpl> t;
    int declared = 0, connected = 0;
    // Whether a frame is in flight is the transfer's own state (t->in_flight).
    bool send_out = false;         // a send buffer is handed out (got, not put)
    std::byte* recv_out = nullptr; // the receive buffer handed out (got, not put)
    bool disconnected = false;
};

// The live names of this process (an entry expires with its last role).
std::mutex names_mutex;
std::map<std::string, std::weak_ptr<Shared>>& names() {
    static std::map<std::string, std::weak_ptr<Shared>> n;
    return n;
}

std::byte* current_buffer(const std::optional<detail::Role>& role) {
    return role->buffers[static_cast<std::size_t>(role->current)].data();
}

void fail_state(const Shared& s, const std::string& why) {
    core::fail(core::Errc::state, "reorganization '" + s.name + "': " + why);
}

} // namespace

struct Reorg {
    std::shared_ptr<Shared> s;
    detail::RoleKind kind = detail::RoleKind::send;
    core::BlockInfo block;
    bool connected = false, disconnected = false;

    Shared& usable(detail::RoleKind want, const char* call) const {
        if (kind != want)
            core::fail(core::Errc::arg,
                       std::string(call) + ": the reorganization object is a " +
                           (kind == detail::RoleKind::send ? "DRI_SEND" : "DRI_RECV") + " role");
        if (disconnected || s->disconnected)
            fail_state(*s, std::string(call) + " after DRI_Reorg_disconnect");
        if (!s->t->committed) fail_state(*s, std::string(call) + " before DRI_Reorg_connect");
        detail::require_no_mpi_failure(*s->t);
        return *s;
    }
};

void ensure_predefined() {
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        if (registry().count(0x10)) return;
    }
    using core::DimPartition;
    const DimPartition w = DimPartition::whole(), b = DimPartition::block();
    const std::pair<std::uintptr_t, core::Partition> parts[] = {
        {0x10, {w}},       {0x11, {b}},       {0x12, {w, w}},    {0x13, {w, b}},
        {0x14, {b, w}},    {0x15, {b, b}},    {0x16, {w, w, b}}, {0x17, {w, b, w}},
        {0x18, {b, w, w}}, {0x19, {w, b, b}}, {0x1a, {b, w, b}}, {0x1b, {b, b, w}}};
    const std::pair<std::uintptr_t, std::vector<int>> orders[] = {
        {0x40, {0}},       {0x41, {0, 1}},    {0x42, {1, 0}},
        {0x43, {0, 1, 2}}, {0x44, {0, 2, 1}}, {0x45, {1, 0, 2}},
        {0x46, {1, 2, 0}}, {0x47, {2, 0, 1}}, {0x48, {2, 1, 0}}};
    std::unordered_map<std::uintptr_t, Object> made;
    for (const auto& [id, part] : parts)
        made.emplace(id, detail::make_partition(part));
    for (const auto& [id, order] : orders)
        made.emplace(id, detail::make_layout(core::Layout::ordered(order)));
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (auto& [id, obj] : made)
        registry().insert_or_assign(id, std::move(obj));
}

// The steps the four buffer calls share: the handle, the buffer pointer and
// a role of the right kind that is connected; then f(shared state, *buffer).
template <class F>
int buffer_call(DRI_Reorg reorg, void** buffer, detail::RoleKind kind, const char* call, F&& f) {
    return api([&] {
        detail::require_initialized();
        need_ptr(buffer, "buffer pointer");
        const auto r = lookup<std::shared_ptr<Reorg>>(reorg, "reorganization");
        f(r->usable(kind, call), *buffer);
    });
}

} // namespace dri::capi

using namespace dri::capi;
using dri::detail::RoleKind;

extern "C" {

int DRI_Reorg_create(DRI_Reorgtype type, const char* name, DRI_Distribution dist, DRI_Layout layout,
                     int nbufs, DRI_Reorg* reorg) {
    return api([&] {
        detail::require_initialized();
        need_ptr(name, "reorganization name");
        need_ptr(reorg, "output handle");
        const int role = raw(type);
        if (role != DRI_SEND && role != DRI_RECV)
            core::fail(core::Errc::arg, "reorganization type must be DRI_SEND or DRI_RECV");
        if (nbufs < 1)
            core::fail(core::Errc::buffer_count,
                       "a role needs at least one buffer, got " + std::to_string(nbufs));
        const auto d =
            lookup<std::shared_ptr<const detail::DistributionImpl>>(dist, "distribution");
        const auto l = lookup<std::shared_ptr<const detail::LayoutImpl>>(layout, "layout");
        if (d->group->my_index < 0)
            core::fail(core::Errc::group, "the calling process is not in the distribution's group");
        auto r = std::make_shared<Reorg>();
        r->kind = role == DRI_SEND ? RoleKind::send : RoleKind::recv;
        r->block = detail::block_info(*d, *l, d->group->my_index);
        std::lock_guard<std::mutex> names_lock(names_mutex);
        std::shared_ptr<Shared> s = names()[name].lock();
        if (!s) {
            s = std::make_shared<Shared>();
            s->name = name;
            s->t = detail::make_transfer(name);
        }
        if (s->connected > 0) fail_state(*s, "a role was created after DRI_Reorg_connect");
        // The ring: page aligned, distinct even for empty blocks.
        std::vector<detail::SharedBuffer> ring = detail::shared_ring(nbufs, r->block.bytes);
        const std::vector<std::span<std::byte>> spans = detail::spans_of(ring, r->block.bytes);
        detail::declare_role(*s->t, r->kind, d, *l, spans);
        for (auto& b : ring)
            s->buffers.push_back(std::move(b));
        ++s->declared;
        names()[name] = s;
        r->s = std::move(s);
        *reorg = add<DRI_Reorg>(std::move(r));
    });
}

int DRI_Reorg_connect(DRI_Reorg reorg) {
    return api([&] {
        detail::require_initialized();
        const auto r = lookup<std::shared_ptr<Reorg>>(reorg, "reorganization");
        Shared& s = *r->s;
        // After a failed connect nothing is committed: destroy the roles.
        if (r->connected) fail_state(s, "this role is already connected");
        r->connected = true;
        if (++s.connected < s.declared) return; // this process's other role commits
        detail::commit_alone(*s.t);
    });
}

int DRI_Reorg_get_sendbuf(DRI_Reorg reorg, void** buffer) {
    return buffer_call(
        reorg, buffer, RoleKind::send, "DRI_Reorg_get_sendbuf", [](Shared& s, void*& buf) {
            if (s.send_out) fail_state(s, "the send buffer got last was not put back");
            if (s.t->in_flight) {
                if (s.t->recv) fail_state(s, "get the receive buffer of the frame in flight first");
                detail::wait(*s.t); // a pure sender completes its previous frame
            }
            buf = current_buffer(s.t->send);
            s.send_out = true;
        });
}

int DRI_Reorg_put_sendbuf(DRI_Reorg reorg, void** buffer) {
    return buffer_call(reorg, buffer, RoleKind::send, "DRI_Reorg_put_sendbuf",
                       [](Shared& s, void*& buf) {
                           if (!s.send_out || buf != current_buffer(s.t->send))
                               fail_state(s, "put a send buffer that DRI_Reorg_get_sendbuf did "
                                             "not hand out");
                           // The frame lands in the receive ring's current buffer: not in one
                           // the user still holds (possible with a ring of one buffer).
                           if (s.recv_out && s.t->recv && current_buffer(s.t->recv) == s.recv_out)
                               fail_state(s, "put the receive buffer of the previous frame first");
                           detail::start(*s.t);
                           s.send_out = false;
                           buf = nullptr;
                       });
}

int DRI_Reorg_get_recvbuf(DRI_Reorg reorg, void** buffer) {
    return buffer_call(reorg, buffer, RoleKind::recv, "DRI_Reorg_get_recvbuf",
                       [](Shared& s, void*& buf) {
                           if (s.recv_out)
                               fail_state(s, "the receive buffer got last was not put back");
                           std::byte* filled = current_buffer(s.t->recv);
                           if (s.t->send) {
                               if (!s.t->in_flight)
                                   fail_state(s, "put this process's send buffer first");
                               detail::wait(*s.t);
                           } else {
                               detail::execute(*s.t); // a pure receiver runs the frame here
                           }
                           s.recv_out = filled;
                           buf = filled;
                       });
}

int DRI_Reorg_put_recvbuf(DRI_Reorg reorg, void** buffer) {
    return buffer_call(reorg, buffer, RoleKind::recv, "DRI_Reorg_put_recvbuf",
                       [](Shared& s, void*& buf) {
                           if (!s.recv_out || buf != s.recv_out)
                               fail_state(s, "put a receive buffer that DRI_Reorg_get_recvbuf "
                                             "did not hand out");
                           s.recv_out = nullptr;
                           buf = nullptr;
                       });
}

int DRI_Reorg_disconnect(DRI_Reorg reorg) {
    return api([&] {
        detail::require_initialized();
        const auto r = lookup<std::shared_ptr<Reorg>>(reorg, "reorganization");
        Shared& s = *r->s;
        if (!s.t->committed || r->disconnected) fail_state(s, "not connected");
        if (s.t->in_flight) detail::wait(*s.t);
        r->disconnected = true;
        // With the name's last connected role: the communicator and scratch
        // go; the buffers stay until the roles are destroyed.
        if (--s.connected == 0) {
            s.disconnected = true;
            s.t->release();
        }
    });
}

int DRI_Reorg_destroy(DRI_Reorg* reorg) {
    return api([&] {
        detail::require_initialized();
        need_ptr(reorg, "pointer to the reorganization handle");
        const auto r = lookup<std::shared_ptr<Reorg>>(*reorg, "reorganization");
        // A frame in flight must finish before its buffers may go (after an
        // MPI failure the transfer has abandoned it: nothing is in flight).
        if (r->s->t->in_flight) detail::wait(*r->s->t);
        remove<std::shared_ptr<Reorg>>(reorg, "reorganization");
    });
}

int DRI_Reorg_blockinfo(DRI_Reorg reorg, DRI_Blockinfo* info) {
    return api([&] {
        detail::require_initialized();
        need_ptr(info, "blockinfo");
        *info = to_c(lookup<std::shared_ptr<Reorg>>(reorg, "reorganization")->block);
    });
}

} // extern "C"

// The C binding (include/dri/dri.h), transfers: declaring, committing and
// running them, the corner turn in one call, node shared memory.
#include "bindings/c/convert.hpp"
#include "bindings/c/registry.hpp"

namespace dri::capi {
namespace {

int declare(DRI_Transfer xfer, detail::RoleKind kind, DRI_Distribution dist, DRI_Layout layout,
            int nbuf, void* const buffers[], const DRI_Index sizes[]) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        const DistP d = lookup<DistP>(dist, "distribution");
        const auto l = lookup<std::shared_ptr<const detail::LayoutImpl>>(layout, "layout");
        // No buffers: the transfer allocates a ring of nbuf (the forum's n-buffs).
        if (!buffers && !sizes) return detail::declare_owned_role(*t, kind, d, *l, nbuf);
        std::vector<std::span<std::byte>> ring;
        try {
            ring = buffers_of(nbuf, buffers, sizes);
        } catch (const dri::core::Error& e) {
            detail::remember_refusal(*t, kind, d, e);
            throw;
        }
        detail::declare_role(*t, kind, d, *l, ring);
    });
}

} // namespace
} // namespace dri::capi

using namespace dri::capi;
using dri::core::Index;
namespace detail = dri::detail;
namespace core = dri::core;

extern "C" {

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
        const detail::CornerTurnBlocks b = detail::corner_turn_blocks(comm, nrows, ncols, t, pre);
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

int DRI_Alloc_mem(DRI_Index bytes, void** base) {
    return api([&] {
        need_ptr(base, "DRI_Alloc_mem: base");
        *base = detail::shared_alloc(bytes);
    });
}

int DRI_Free_mem(void* base) {
    return api([&] { detail::shared_free(base); });
}

namespace {

// The role by reference: C may pass any int, which is no DRI_Role value to copy.
detail::RoleKind role_kind(const DRI_Role& role, const std::string& call) {
    const int r = raw(role); // any int from C
    if (r != DRI_ROLE_SEND && r != DRI_ROLE_RECV)
        core::fail(core::Errc::arg, call + ": unknown role " + std::to_string(r));
    return r == DRI_ROLE_SEND ? detail::RoleKind::send : detail::RoleKind::recv;
}

} // namespace

int DRI_Transfer_buffer(DRI_Transfer xfer, DRI_Role role, int k, void** base, DRI_Index* bytes) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        need_ptr(base, "DRI_Transfer_buffer: base");
        const std::span<std::byte> b =
            detail::ring_buffer(*t, role_kind(role, "DRI_Transfer_buffer"), k);
        *base = b.data();
        if (bytes) *bytes = static_cast<DRI_Index>(b.size());
    });
}

int DRI_Transfer_strategy(DRI_Transfer xfer, DRI_Strategy* strategy) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        need_ptr(strategy, "DRI_Transfer_strategy: strategy");
        *strategy = static_cast<DRI_Strategy>(detail::route_in_use(*t));
    });
}

int DRI_Transfer_set_strategy(DRI_Transfer xfer, DRI_Strategy strategy) {
    return api([&] {
        detail::require_initialized();
        detail::set_strategy(*lookup<XferP>(xfer, "transfer"),
                             static_cast<detail::Strategy>(raw(strategy)));
    });
}

int DRI_Transfer_set_combine(DRI_Transfer xfer, DRI_Combine op) {
    return api([&] {
        detail::require_initialized();
        detail::set_combine(*lookup<XferP>(xfer, "transfer"),
                            static_cast<core::CombineOp>(raw(op)));
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
        detail::commit_alone(*lookup<XferP>(xfer, "transfer"));
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

int DRI_Transfer_reverse(DRI_Transfer forward, DRI_Combine op, DRI_Transfer* reverse) {
    return api([&] {
        detail::require_initialized();
        // A stale forward handle leaves no processes to agree with (a local
        // error); a NULL output handle still joins the collective.
        const XferP f = lookup<XferP>(forward, "transfer");
        const detail::Status pre = detail::capture([&] { need_ptr(reverse, "output handle"); });
        auto made = detail::reverse_transfer(*f, static_cast<core::CombineOp>(raw(op)), pre);
        *reverse = add<DRI_Transfer>(std::move(made));
    });
}

int DRI_Transfer_destroy(DRI_Transfer* xfer) {
    return api([&] {
        detail::require_initialized();
        remove<XferP>(xfer, "transfer");
    });
}

} // extern "C"

int DRI_Transfer_set_pieces(DRI_Transfer xfer, DRI_Role role, int dim, int count) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        detail::set_pieces(*t, role_kind(role, "DRI_Transfer_set_pieces"), dim, count);
    });
}

int DRI_Transfer_set_piece_bounds(DRI_Transfer xfer, DRI_Role role, int dim, int count,
                                  const DRI_Index bounds[]) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        const detail::RoleKind kind = role_kind(role, "DRI_Transfer_set_piece_bounds");
        need_ptr(bounds, "DRI_Transfer_set_piece_bounds: bounds");
        if (count < 1 || count > core::max_pieces)
            core::fail(core::Errc::arg, "transfer '" + t->name + "': a piece count of " +
                                            std::to_string(count) + ": it must lie in [1, " +
                                            std::to_string(core::max_pieces) + "]");
        detail::set_pieces(*t, kind, dim, count,
                           std::vector<core::Index>(bounds, bounds + count + 1));
    });
}

int DRI_Transfer_pieces(DRI_Transfer xfer, DRI_Role role, int* dim, int* count) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        need_ptr(dim, "DRI_Transfer_pieces: dim");
        need_ptr(count, "DRI_Transfer_pieces: count");
        std::tie(*dim, *count) = detail::pieces_of(*t, role_kind(role, "DRI_Transfer_pieces"));
    });
}

int DRI_Transfer_piece(DRI_Transfer xfer, DRI_Role role, int k, DRI_Index* lo, DRI_Index* hi) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        need_ptr(lo, "DRI_Transfer_piece: lo");
        need_ptr(hi, "DRI_Transfer_piece: hi");
        std::tie(*lo, *hi) = detail::piece_range(*t, role_kind(role, "DRI_Transfer_piece"), k);
    });
}

int DRI_Piece_ready(DRI_Transfer xfer, int k) {
    return api([&] {
        detail::require_initialized();
        detail::piece_ready(*lookup<XferP>(xfer, "transfer"), k);
    });
}

int DRI_Piece_test(DRI_Transfer xfer, int k, int* arrived) {
    return api([&] {
        detail::require_initialized();
        const XferP t = lookup<XferP>(xfer, "transfer");
        need_ptr(arrived, "DRI_Piece_test: arrived");
        *arrived = detail::piece_arrived(*t, k, false) ? 1 : 0;
    });
}

int DRI_Piece_wait(DRI_Transfer xfer, int k) {
    return api([&] {
        detail::require_initialized();
        detail::piece_arrived(*lookup<XferP>(xfer, "transfer"), k, true);
    });
}

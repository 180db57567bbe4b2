#include "mpi/strategies/messages.hpp"

#include "core/side_runs.hpp"
#include "kernels/copy.hpp"

#include <climits>
#include <cstdlib>
#include <cstring>

namespace dri::detail {

core::Index total_bytes(const std::vector<core::Region>& regs, core::Index elem) {
    core::Index n = 0;
    for (const core::Region& r : regs)
        n = core::checked_add(n, core::checked_mul(r.elements(), elem, "bytes"), "bytes");
    return n;
}

void pack_all(const std::byte* src, const std::vector<core::Region>& regs, core::Index elem,
              std::byte* out, core::Index whole) {
    for (const core::Region& r : regs)
        out += core::pack_region(src, r, elem, out, whole);
}

void unpack_all(const std::byte* in, const std::vector<core::Region>& regs, core::Index elem,
                std::byte* dst) {
    for (const core::Region& r : regs)
        in += core::unpack_region(in, r, elem, dst);
}

bool huge_pages_allowed() {
    const char* v = std::getenv("DRI_HUGE_PAGES");
    return !(v && std::strcmp(v, "off") == 0);
}

RouteRule route_rule(MpiLibrary lib, SingleCopy copy) {
    // Other libraries keep the earlier rule: datatypes from 2 KiB runs.
    if (lib == MpiLibrary::other) return {2048, 2048, 2048, never_run};
    // MPICH 4.0 and Open MPI 4.1 (docs/concepts.md has the measurements):
    // - a dense send received as a datatype: the library unpacks each piece
    //   of it from its own shared memory while in cache, rather than copy it
    //   whole into scratch and unpack it from there. On Open MPI from 64 B
    //   runs (1.15-2x faster), on MPICH from 4 KiB (1.05-1.4x; shorter runs
    //   won or lost by up to 1.2x with the state of the machine);
    // - otherwise packing beat a datatype on a strided side (8 B to 256 KiB
    //   runs; MPICH's sender datatypes from 32 KiB won by 1.3-1.4x or lost
    //   by 1.15x with the state of the machine, and by 15x under load);
    // - on Open MPI with CMA, a dense send of 4 MiB or more received whole
    //   went 1.2-1.3x faster from huge pages (tied at 2 MiB, lost at 1 MiB,
    //   where the scratch gets no huge page; lost without CMA).
    if (lib == MpiLibrary::mpich) return {never_run, never_run, 4096, never_run};
    const bool huge = copy == SingleCopy::cma && huge_pages_allowed();
    return {never_run, never_run, 64, huge ? huge_send_from : never_run};
}

Pages send_scratch_pages(MpiLibrary lib) {
    return lib == MpiLibrary::open_mpi && huge_pages_allowed() ? Pages::huge : Pages::normal;
}

namespace {

// The route of one side by its own runs alone.
Route own_route(const std::vector<core::Region>& regs, core::Index elem, bool is_send,
                const RouteRule& rule, core::Index* offset) {
    const auto side = is_send ? core::RegionSide::sender : core::RegionSide::receiver;
    if (core::side_contiguous(regs, elem, side, offset)) return Route::direct;
    const core::Index run = core::shortest_side_run(regs, elem, side);
    return run >= (is_send ? rule.send_datatype_run : rule.recv_datatype_run) ? Route::datatype
                                                                              : Route::packed;
}

} // namespace

Route route_of(const std::vector<core::Region>& regs, core::Index elem, bool is_send,
               const RouteRule& rule, core::Index* offset) {
    core::Index other_offset = 0;
    const Route send = own_route(regs, elem, true, rule, is_send ? offset : &other_offset);
    Route recv = own_route(regs, elem, false, rule, is_send ? &other_offset : offset);
    if (recv == Route::packed && send == Route::direct &&
        core::shortest_side_run(regs, elem, core::RegionSide::receiver) >=
            rule.recv_datatype_run_from_dense)
        recv = Route::datatype;
    if (!is_send) return recv;
    // A dense send is read whole by the receiver unless it takes a datatype.
    return send == Route::direct && recv != Route::datatype &&
                   total_bytes(regs, elem) >= rule.send_dense_packed_from
               ? Route::packed
               : send;
}

int send_bytes(const std::byte* buf, core::Index bytes, const Datatype& type, int peer,
               MPI_Comm comm, MPI_Request* req, int tag) {
    if (type.get() != MPI_DATATYPE_NULL) return MPI_Isend(buf, 1, type.get(), peer, tag, comm, req);
#if DRI_MPI_LARGE_COUNT
    return MPI_Isend_c(buf, bytes, MPI_BYTE, peer, tag, comm, req);
#else
    return MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, comm, req);
#endif
}

int recv_bytes(std::byte* buf, core::Index bytes, const Datatype& type, int peer, MPI_Comm comm,
               MPI_Request* req, int tag) {
    if (type.get() != MPI_DATATYPE_NULL) return MPI_Irecv(buf, 1, type.get(), peer, tag, comm, req);
#if DRI_MPI_LARGE_COUNT
    return MPI_Irecv_c(buf, bytes, MPI_BYTE, peer, tag, comm, req);
#else
    return MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, comm, req);
#endif
}

bool needs_big(core::Index bytes) {
    return !DRI_MPI_LARGE_COUNT && bytes > INT_MAX;
}

Message plan_message(const core::PeerRegions& p, int rank, core::Index elem, bool is_send,
                     core::Index& scratch, bool combined) {
    Message m;
    m.rank = rank;
    m.bytes = total_bytes(p.regions, elem);
    // Only a message the huge-page rule may reach asks the library for its
    // single-copy mechanism: MPI_T_init_thread took 0.2 s on Open MPI 4.1,
    // at every process's first P2P commit, small or not.
    const SingleCopy copy = m.bytes >= huge_send_from ? single_copy() : SingleCopy::unknown;
    RouteRule rule = route_rule(mpi_library(), copy);
    if (combined) // received whole: no receiver side is a datatype
        rule.recv_datatype_run = rule.recv_datatype_run_from_dense = never_run;
    m.route =
        combined && !is_send ? Route::packed : route_of(p.regions, elem, is_send, rule, &m.offset);
    if (m.route == Route::datatype)
        m.type = regions_datatype(p.regions, is_send ? SideOf::sender : SideOf::receiver, elem);
    if (m.route == Route::packed) {
        m.offset = scratch;
        scratch = core::checked_add(scratch, (m.bytes + 63) / 64 * 64, "scratch size");
    }
    if (m.route != Route::datatype && needs_big(m.bytes)) m.type = byte_range_datatype(0, m.bytes);
    m.regions = p.regions;
    m.piece = p.piece;
    m.lands = p.lands;
    return m;
}

} // namespace dri::detail

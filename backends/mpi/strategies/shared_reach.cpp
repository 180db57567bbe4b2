#include "mpi/strategies/shared_reach.hpp"

#include "core/wire.hpp"
#include "mpi/runtime/collectives.hpp"

#include <algorithm>
#include <cstdint>

namespace dri::detail {

namespace {

// Where each buffer of this process's ring lives: (allocation key, offset
// in this process's segment, bytes), key 0 when not in DRI shared memory.
std::vector<std::byte> publish_ring(SharedReach& reach, const ExecutorContext& ctx) {
    core::Writer w;
    w.i64(static_cast<core::Index>(ctx.send_buffers.size()));
    for (const std::span<std::byte>& b : ctx.send_buffers) {
        const auto bytes = static_cast<core::Index>(b.size());
        SharedBlock* blk = shared_find_own(b.data(), bytes);
        w.i64(blk ? static_cast<core::Index>(blk->key) : 0);
        w.i64(blk ? b.data() - blk->base : 0);
        w.i64(bytes);
        reach.own.push_back(b);
        reach.own_wins.push_back(blk ? blk->win : MPI_WIN_NULL);
        reach.own_blocks.push_back(blk);
    }
    return w.bytes();
}

// Whether receiver `rank` of comm can read every buffer of this process's ring.
bool reads_my_ring(const SharedReach& reach, MPI_Comm comm, int rank) {
    if (reach.own_blocks.empty()) return false;
    for (const SharedBlock* b : reach.own_blocks)
        if (!b || shared_node_rank(*b, comm, rank) < 0) return false;
    return true;
}

// The ring sender `rank` published, in this address space, when this
// process can read all of it.
std::optional<Ring> their_ring(core::Reader rd, MPI_Comm comm, int rank) {
    Ring ring;
    const core::Index n = rd.i64();
    for (core::Index i = 0; i < n; ++i) {
        const auto key = static_cast<std::uint64_t>(rd.i64());
        const core::Index off = rd.i64(), bytes = rd.i64();
        SharedBlock* blk = key ? shared_find(key) : nullptr;
        const int node = blk ? shared_node_rank(*blk, comm, rank) : -1;
        if (node < 0) return std::nullopt;
        const auto u = static_cast<std::size_t>(node);
        const std::byte* base = blk->bases[u] + off;
        if (!within(base, bytes, blk->bases[u], blk->sizes[u]))
            core::fail(core::Errc::internal, "a published buffer lies outside its segment");
        ring.bufs.push_back(base);
        ring.wins.push_back(blk->win);
        ring.blocks.push_back(blk);
    }
    if (n == 0) return std::nullopt;
    return ring;
}

} // namespace

bool SharedReach::all() const {
    return std::all_of(reader.begin(), reader.end(), [](bool b) { return b; }) &&
           std::all_of(source.begin(), source.end(), [](const auto& s) { return s.has_value(); });
}

bool SharedReach::any() const {
    return std::any_of(reader.begin(), reader.end(), [](bool b) { return b; }) ||
           std::any_of(source.begin(), source.end(), [](const auto& s) { return s.has_value(); });
}

namespace {

// Each sender sends its ring table to the receivers it sends to, and each
// receiver takes the tables of the senders it reads from: what a process
// receives grows with its peers, not with the number of processes.
std::vector<std::vector<std::byte>> exchange_tables(const core::LocalPlan& plan,
                                                    const ExecutorContext& ctx,
                                                    const std::vector<std::byte>& mine) {
    constexpr int tag = 1;
    std::vector<MPI_Request> sent(plan.sends.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < plan.sends.size(); ++i)
        check_mpi(MPI_Isend(mine.data(), static_cast<int>(mine.size()), MPI_BYTE,
                            ctx.recv_rank.at(static_cast<std::size_t>(plan.sends[i].peer)), tag,
                            ctx.comm, &sent[i]),
                  "MPI_Isend");
    std::vector<std::vector<std::byte>> tables;
    for (const core::PeerRegions& p : plan.recvs) {
        MPI_Message msg = MPI_MESSAGE_NULL;
        MPI_Status st;
        check_mpi(MPI_Mprobe(ctx.send_rank.at(static_cast<std::size_t>(p.peer)), tag, ctx.comm,
                             &msg, &st),
                  "MPI_Mprobe");
        int n = 0;
        check_mpi(MPI_Get_count(&st, MPI_BYTE, &n), "MPI_Get_count");
        std::vector<std::byte>& t = tables.emplace_back(static_cast<std::size_t>(n));
        check_mpi(MPI_Mrecv(t.data(), n, MPI_BYTE, &msg, MPI_STATUS_IGNORE), "MPI_Mrecv");
    }
    check_mpi(MPI_Waitall(static_cast<int>(sent.size()), sent.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    return tables;
}

} // namespace

SharedReach shared_reach(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    SharedReach reach;
    const std::vector<std::byte> mine = publish_ring(reach, ctx);
    const std::vector<std::vector<std::byte>> tables = exchange_tables(plan, ctx, mine);
    // Reading the tables may fail (a corrupt table is a bug); agree so that
    // no process leaves the collective steps that follow early.
    const Status st = capture([&] {
        for (const core::PeerRegions& p : plan.sends)
            reach.reader.push_back(
                reads_my_ring(reach, ctx.comm, ctx.recv_rank.at(static_cast<std::size_t>(p.peer))));
        for (std::size_t i = 0; i < plan.recvs.size(); ++i)
            reach.source.push_back(
                their_ring(core::Reader(tables[i].data(), tables[i].size()), ctx.comm,
                           ctx.send_rank.at(static_cast<std::size_t>(plan.recvs[i].peer))));
    });
    agree(ctx.comm, st);
    return reach;
}

} // namespace dri::detail

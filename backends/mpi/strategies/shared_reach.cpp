#include "mpi/strategies/shared_reach.hpp"

#include "core/wire.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/runtime/handles.hpp"

#include <algorithm>
#include <cstdint>

namespace dri::detail {

namespace {

constexpr int table_tag = 1, answer_tag = 2;

} // namespace

std::vector<std::byte> ring_table(const std::vector<std::span<std::byte>>& bufs) {
    core::Writer w;
    w.i64(static_cast<core::Index>(bufs.size()));
    for (const std::span<std::byte>& b : bufs) {
        const auto bytes = static_cast<core::Index>(b.size());
        const SharedBlock* blk = shared_find_own(b.data(), bytes);
        if (!blk || blk->id.fd < 0) return {};
        const SegmentId& id = blk->id;
        for (std::int64_t v :
             {id.pid, id.fd, id.dev, id.ino, id.bytes, b.data() - blk->base, bytes})
            w.i64(v);
    }
    return w.bytes();
}

std::optional<Ring> map_ring(const std::vector<std::byte>& table, Access access) {
    core::Reader rd(table.data(), table.size());
    if (rd.done()) return std::nullopt;
    Ring ring;
    const core::Index n = rd.i64();
    for (core::Index i = 0; i < n; ++i) {
        SegmentId id;
        id.pid = rd.i64();
        id.fd = rd.i64();
        id.dev = rd.i64();
        id.ino = rd.i64();
        id.bytes = rd.i64();
        const core::Index off = rd.i64(), bytes = rd.i64();
        std::shared_ptr<const RemoteSegment> seg = map_remote(id, access);
        if (!seg) return std::nullopt;
        if (off < 0 || off > seg->bytes() ||
            !within(seg->base() + off, bytes, seg->base(), seg->bytes()))
            core::fail(core::Errc::internal, "a published buffer lies outside its segment");
        ring.bufs.push_back(seg->base() + off);
        ring.segments.push_back(std::move(seg));
    }
    if (n == 0) return std::nullopt;
    return ring;
}

std::vector<std::byte> receive_table(int from, int tag, MPI_Comm comm) {
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    check_mpi(MPI_Mprobe(from, tag, comm, &msg, &st), "MPI_Mprobe");
    int n = 0;
    check_mpi(MPI_Get_count(&st, MPI_BYTE, &n), "MPI_Get_count");
    std::vector<std::byte> table(static_cast<std::size_t>(n));
    check_mpi(MPI_Mrecv(table.data(), n, MPI_BYTE, &msg, MPI_STATUS_IGNORE), "MPI_Mrecv");
    return table;
}

namespace {

// Collective over comm: which ranks of comm share this process's node.
std::vector<bool> node_mates(MPI_Comm comm) {
    MPI_Comm node = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    count_handle(+1);
    const ScopedComm owned(node);
    int size = 0;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    MPI_Group all = MPI_GROUP_NULL, mates = MPI_GROUP_NULL;
    check_mpi(MPI_Comm_group(comm, &all), "MPI_Comm_group");
    int rc = MPI_Comm_group(node, &mates);
    std::vector<int> ranks(static_cast<std::size_t>(size)), there(ranks.size());
    for (int r = 0; r < size; ++r)
        ranks[static_cast<std::size_t>(r)] = r;
    if (rc == MPI_SUCCESS)
        rc = MPI_Group_translate_ranks(all, size, ranks.data(), mates, there.data());
    MPI_Group_free(&all);
    if (mates != MPI_GROUP_NULL) MPI_Group_free(&mates);
    check_mpi(rc, "MPI_Group_translate_ranks");
    std::vector<bool> out;
    for (int t : there)
        out.push_back(t != MPI_UNDEFINED);
    return out;
}

// Each sender sends its ring table to the receivers it sends to on its node
// (an empty one to the others), and each receiver takes the tables of the
// senders it receives from: what a process receives grows with its peers,
// not with the number of processes.
std::vector<std::vector<std::byte>> exchange_tables(const core::LocalPlan& plan,
                                                    const ExecutorContext& ctx,
                                                    const std::vector<std::byte>& mine,
                                                    const std::vector<bool>& mates) {
    std::vector<MPI_Request> sent(plan.sends.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < plan.sends.size(); ++i) {
        const int to = ctx.recv_rank.at(static_cast<std::size_t>(plan.sends[i].peer));
        const int n = mates[static_cast<std::size_t>(to)] ? static_cast<int>(mine.size()) : 0;
        check_mpi(MPI_Isend(mine.data(), n, MPI_BYTE, to, table_tag, ctx.comm, &sent[i]),
                  "MPI_Isend");
    }
    std::vector<std::vector<std::byte>> tables;
    for (const core::PeerRegions& p : plan.recvs)
        tables.push_back(
            receive_table(ctx.send_rank.at(static_cast<std::size_t>(p.peer)), table_tag, ctx.comm));
    check_mpi(MPI_Waitall(static_cast<int>(sent.size()), sent.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    return tables;
}

// Each receiver tells each of its senders whether it reads the ring; each
// sender learns which of its receivers do.
std::vector<bool> exchange_answers(const core::LocalPlan& plan, const ExecutorContext& ctx,
                                   const std::vector<std::optional<Ring>>& source) {
    std::vector<int> mine(plan.recvs.size()), theirs(plan.sends.size());
    std::vector<MPI_Request> reqs;
    for (std::size_t i = 0; i < plan.recvs.size(); ++i) {
        mine[i] = source[i].has_value() ? 1 : 0;
        check_mpi(MPI_Isend(&mine[i], 1, MPI_INT,
                            ctx.send_rank.at(static_cast<std::size_t>(plan.recvs[i].peer)),
                            answer_tag, ctx.comm, &reqs.emplace_back()),
                  "MPI_Isend");
    }
    for (std::size_t i = 0; i < plan.sends.size(); ++i)
        check_mpi(MPI_Irecv(&theirs[i], 1, MPI_INT,
                            ctx.recv_rank.at(static_cast<std::size_t>(plan.sends[i].peer)),
                            answer_tag, ctx.comm, &reqs.emplace_back()),
                  "MPI_Irecv");
    check_mpi(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    std::vector<bool> out;
    for (int t : theirs)
        out.push_back(t != 0);
    return out;
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

SharedReach shared_reach(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    SharedReach reach;
    reach.own = ctx.send_buffers;
    const std::vector<bool> mates = node_mates(ctx.comm);
    const std::vector<std::byte> mine = ring_table(ctx.send_buffers);
    const std::vector<std::vector<std::byte>> tables = exchange_tables(plan, ctx, mine, mates);
    // Reading the tables may fail (a corrupt table is a bug): answer "no"
    // for the rest, then agree so that nobody continues on a failure.
    const Status st = capture([&] {
        for (const std::vector<std::byte>& t : tables)
            reach.source.push_back(map_ring(t));
    });
    reach.source.resize(plan.recvs.size());
    reach.reader = exchange_answers(plan, ctx, reach.source);
    agree(ctx.comm, st);
    return reach;
}

} // namespace dri::detail

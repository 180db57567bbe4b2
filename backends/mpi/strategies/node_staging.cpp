#include "mpi/strategies/node_staging.hpp"

#include "mpi/runtime/handles.hpp"

namespace dri::detail {

namespace {

// Tags of the exchange at commit, apart from those of the relay's calls.
constexpr int staging_tag = 7, incoming_tag = 8, incoming_answer_tag = 9, staging_answer_tag = 10;

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

int receive_answer(int from, int tag, MPI_Comm comm) {
    int yes = 0;
    check_mpi(MPI_Recv(&yes, 1, MPI_INT, from, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    return yes;
}

// Sends are posted first and receives taken in a fixed order: no process
// waits for a message its peer can only send after a receive of its own.
class Exchange {
  public:
    explicit Exchange(MPI_Comm comm) : comm_(comm) {}
    ~Exchange() {
        if (!reqs_.empty())
            MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
    }
    Exchange(const Exchange&) = delete;
    Exchange& operator=(const Exchange&) = delete;

    void send(const std::vector<std::byte>& table, int to, int tag) {
        check_mpi(MPI_Isend(table.data(), static_cast<int>(table.size()), MPI_BYTE, to, tag, comm_,
                            &reqs_.emplace_back()),
                  "MPI_Isend");
    }
    void answer(bool yes, int to, int tag) {
        answers_.push_back(std::make_unique<int>(yes ? 1 : 0));
        check_mpi(
            MPI_Isend(answers_.back().get(), 1, MPI_INT, to, tag, comm_, &reqs_.emplace_back()),
            "MPI_Isend");
    }

  private:
    MPI_Comm comm_;
    std::vector<MPI_Request> reqs_;
    std::vector<std::unique_ptr<int>> answers_;
};

StagingReach leader_side(const NodeMap& map, MPI_Comm comm, std::span<std::byte> incoming) {
    StagingReach reach;
    const std::vector<std::byte> table = ring_table({incoming});
    Exchange ex(comm);
    for (const NodeMember& m : map.members)
        if (m.rank != map.me && !m.in.empty()) ex.send(table, m.rank, incoming_tag);
    for (const NodeMember& m : map.members) {
        if (m.rank == map.me || m.out.empty()) continue;
        std::optional<Ring> ring = map_ring(receive_table(m.rank, staging_tag, comm));
        ex.answer(ring.has_value(), m.rank, staging_answer_tag);
        if (ring) reach.staged.emplace(m.rank, std::move(*ring));
    }
    for (const NodeMember& m : map.members)
        if (m.rank != map.me && !m.in.empty() &&
            receive_answer(m.rank, incoming_answer_tag, comm) != 0)
            reach.sharers.push_back(m.rank);
    return reach;
}

StagingReach member_side(const NodeMap& map, MPI_Comm comm, std::span<std::byte> staging) {
    StagingReach reach;
    const NodeMember& me = map.mine();
    const std::vector<std::byte> table = ring_table({staging});
    Exchange ex(comm);
    if (!me.out.empty()) ex.send(table, map.leader_rank(), staging_tag);
    if (!me.in.empty()) {
        reach.leader_incoming = map_ring(receive_table(map.leader_rank(), incoming_tag, comm));
        ex.answer(reach.leader_incoming.has_value(), map.leader_rank(), incoming_answer_tag);
    }
    if (!me.out.empty())
        reach.staged_by_leader = receive_answer(map.leader_rank(), staging_answer_tag, comm) != 0;
    return reach;
}

} // namespace

StagingReach reach_staging(const NodeMap& map, MPI_Comm comm, std::span<std::byte> staging,
                           std::span<std::byte> incoming) {
    return map.leader() ? leader_side(map, comm, incoming) : member_side(map, comm, staging);
}

} // namespace dri::detail

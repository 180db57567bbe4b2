#include "mpi/strategies/leader_memory.hpp"

#include "mpi/runtime/handles.hpp"

#include <memory>

namespace dri::detail {

namespace {

// Tags of the exchange at commit, apart from those of the relay's calls.
constexpr int outgoing_tag = 7, incoming_tag = 8, outgoing_answer_tag = 9, incoming_answer_tag = 10;

bool receive_answer(int from, int tag, MPI_Comm comm) {
    int yes = 0;
    check_mpi(MPI_Recv(&yes, 1, MPI_INT, from, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    return yes != 0;
}

// Sends in flight, completed when the exchange ends.
class Sends {
  public:
    explicit Sends(MPI_Comm comm) : comm_(comm) {}
    ~Sends() {
        if (!reqs_.empty())
            MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
    }
    Sends(const Sends&) = delete;
    Sends& operator=(const Sends&) = delete;

    // `table` must outlive this object.
    void table(const std::vector<std::byte>& table, int to, int tag) {
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

LeaderMemory leader_side(const NodeMap& map, MPI_Comm comm, std::span<std::byte> outgoing,
                         std::span<std::byte> incoming) {
    LeaderMemory mem;
    const std::vector<std::byte> out_table = ring_table({outgoing}),
                                 in_table = ring_table({incoming});
    Sends sends(comm);
    for (const NodeMember& m : map.members) {
        if (m.rank == map.me) continue;
        if (!m.out.empty()) sends.table(out_table, m.rank, outgoing_tag);
        if (!m.in.empty()) sends.table(in_table, m.rank, incoming_tag);
    }
    for (const NodeMember& m : map.members) {
        if (m.rank == map.me) continue;
        if (!m.out.empty() && receive_answer(m.rank, outgoing_answer_tag, comm))
            mem.packers.push_back(m.rank);
        if (!m.in.empty() && receive_answer(m.rank, incoming_answer_tag, comm))
            mem.sharers.push_back(m.rank);
    }
    return mem;
}

// Maps the leader's table and answers whether it did; a failure to read
// the table is kept for the caller and answered "no".
std::optional<Ring> map_and_answer(LeaderMemory& mem, Sends& sends, const NodeMap& map,
                                   MPI_Comm comm, int tag, int answer_tag, Access access) {
    const std::vector<std::byte> table = receive_table(map.leader_rank(), tag, comm);
    std::optional<Ring> ring;
    const Status st = capture([&] { ring = map_ring(table, access); });
    if (st.failed()) {
        ring.reset();
        if (!mem.status.failed()) mem.status = st;
    }
    sends.answer(ring.has_value(), map.leader_rank(), answer_tag);
    return ring;
}

LeaderMemory member_side(const NodeMap& map, MPI_Comm comm) {
    LeaderMemory mem;
    const NodeMember& me = map.mine();
    Sends sends(comm);
    if (!me.out.empty())
        mem.outgoing =
            map_and_answer(mem, sends, map, comm, outgoing_tag, outgoing_answer_tag, Access::write);
    if (!me.in.empty())
        mem.incoming =
            map_and_answer(mem, sends, map, comm, incoming_tag, incoming_answer_tag, Access::read);
    return mem;
}

} // namespace

std::byte* LeaderMemory::outgoing_base() const {
    if (!outgoing) return nullptr;
    const RemoteSegment& seg = *outgoing->segments.front();
    return seg.writable_base() + (outgoing->bufs.front() - seg.base());
}

const std::byte* LeaderMemory::incoming_base() const {
    return incoming ? incoming->bufs.front() : nullptr;
}

LeaderMemory share_leader_memory(const NodeMap& map, MPI_Comm comm, std::span<std::byte> outgoing,
                                 std::span<std::byte> incoming) {
    return map.leader() ? leader_side(map, comm, outgoing, incoming) : member_side(map, comm);
}

} // namespace dri::detail

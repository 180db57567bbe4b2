// The relay of NODES: every piece between processes on different nodes
// travels through the two nodes' leaders (the lowest rank on each node),
// one message per ordered pair of nodes. Aggregates are laid out the same
// way by both leaders, and by the processes of their nodes: by receiver
// rank, then sender rank.
//
// Within a node, through node shared memory (leader_memory.hpp): a process
// packs its pieces bound for other nodes straight into its leader's
// outgoing aggregates and tells the leader (a message without data); once
// every process has, the leader sends each aggregate. Once every aggregate
// has left and every one from other nodes has arrived, the leader tells
// each process to go: the outgoing aggregates are free again, and the
// process unpacks its pieces from other nodes straight from the leader's
// incoming aggregates, then tells the leader it is done (the leader
// receives into them again only in its next reorganization, after every
// done). The messages order the accesses, as for the single copy
// (shared.cpp); like the single copy's readers, a process copies only
// inside calls of dri (the progress rule, docs/concepts.md).
//
// A process that cannot map its leader's outgoing aggregates sends its
// pieces to the leader in one message, received by a datatype straight into
// them; one that cannot map the incoming aggregates receives its pieces in
// one message (a datatype gathers them). Only a call of dri on the leader's
// process relays: a listed executor.
#include "mpi/shared_memory.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/leader_memory.hpp"
#include "mpi/strategies/listed_executor.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/node_layout.hpp"
#include "mpi/strategies/node_map.hpp"
#include "mpi/strategies/parts.hpp"
#include "mpi/strategies/scratch.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

namespace dri::detail {

namespace {

constexpr int gather_tag = 1, aggregate_tag = 2, forward_tag = 3, packed_tag = 4, go_tag = 5,
              done_tag = 6;

// A piece of this process's own, packed into or unpacked from a stream.
struct OwnPiece {
    core::Index offset = 0; // in the stream
    std::vector<core::Region> regions;
};

// Request slots, receives first (is_recv): where each group starts.
struct Slots {
    std::size_t gathers = 0, packed = 0, from = 0, sharers = 0, up_in = 0, go_in = 0, recvs = 0;
    std::size_t to = 0, forwards = 0, go_out = 0, up_out = 0, done_out = 0, end = 0;
};

// `bytes` of node shared memory, touched now (never in DRI_Do).
SharedBuffer shared_zeroed(core::Index bytes) {
    if (bytes <= 0) return {};
    SharedBuffer b = shared_owned(bytes);
    std::memset(b.get(), 0, static_cast<std::size_t>(bytes));
    return b;
}

// Reads one byte per page of a mapped ring, so that the first DRI_Do does
// not take this process's page faults on it.
void touch(const std::optional<Ring>& ring) {
    if (!ring) return;
    for (const std::shared_ptr<const RemoteSegment>& seg : ring->segments)
        for (core::Index at = 0; at < seg->bytes(); at += 4096)
            (void)*static_cast<const volatile std::byte*>(seg->base() + at);
}

class RelayExecutor final : public ListedExecutor {
  public:
    RelayExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx, const NodeMap& map)
        : ListedExecutor(ctx) {
        construct(local_part(plan, false), [&] { build(plan, ctx, map); });
    }
    ~RelayExecutor() override { release(); }

  private:
    bool is_recv(std::size_t i) const override { return i < at_.recvs; }

    void post(const std::byte* send, std::byte* recv) override {
        recv_target_ = recv;
        pending_ = 0;
        for (std::size_t j = 0; j < gathers_.size(); ++j)
            receive(outgoing_.get(), gathers_[j], gather_tag, at_.gathers + j);
        for (std::size_t j = 0; j < packers_.size(); ++j)
            expect(packers_[j], packed_tag, at_.packed + j);
        for (std::size_t j = 0; j < from_.size(); ++j)
            receive(incoming_.get(), from_[j], aggregate_tag, at_.from + j);
        for (std::size_t j = 0; j < sharers_.size(); ++j)
            expect(sharers_[j], done_tag, at_.sharers + j);
        if (up_in_) receive(inbox_.get(), *up_in_, forward_tag, at_.up_in);
        if (waits_go_) expect(leader_rank_, go_tag, at_.go_in);
        for (const OwnPiece& p : own_out_)
            pack_all(send, p.regions, elem_size(), pack_target_ + p.offset);
        if (up_out_) transmit(outbox_.get(), *up_out_, gather_tag, at_.up_out);
        if (packs_for_leader_) signal(leader_rank_, packed_tag, at_.up_out);
        gathers_left_ = gathers_.size() + packers_.size();
        aggregates_left_ = from_.size();
        sends_left_ = to_.size();
        went_ = false;
        if (gathers_left_ == 0) send_aggregates();
        if (aggregates_left_ == 0) aggregates_in();
    }

    // One message of `w` from or to `base`: its bytes at w.offset, or one
    // element of its datatype at base.
    void receive(std::byte* base, const Wire& w, int tag, std::size_t slot) {
        check_mpi(w.type.get() != MPI_DATATYPE_NULL
                      ? MPI_Irecv(base, 1, w.type.get(), w.rank, tag, comm_, &reqs_[slot])
                      : MPI_Irecv(base + w.offset, static_cast<int>(w.bytes), MPI_BYTE, w.rank, tag,
                                  comm_, &reqs_[slot]),
                  "MPI_Irecv");
        ++pending_;
    }
    void transmit(std::byte* base, const Wire& w, int tag, std::size_t slot) {
        check_mpi(w.type.get() != MPI_DATATYPE_NULL
                      ? MPI_Isend(base, 1, w.type.get(), w.rank, tag, comm_, &reqs_[slot])
                      : MPI_Isend(base + w.offset, static_cast<int>(w.bytes), MPI_BYTE, w.rank, tag,
                                  comm_, &reqs_[slot]),
                  "MPI_Isend");
        ++pending_;
    }
    // A message without data: the protocol's packed, go and done.
    void signal(int rank, int tag, std::size_t slot) {
        check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, rank, tag, comm_, &reqs_[slot]), "MPI_Isend");
        ++pending_;
    }
    void expect(int rank, int tag, std::size_t slot) {
        check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, rank, tag, comm_, &reqs_[slot]), "MPI_Irecv");
        ++pending_;
    }

    void send_aggregates() {
        for (std::size_t j = 0; j < to_.size(); ++j)
            transmit(outgoing_.get(), to_[j], aggregate_tag, at_.to + j);
        go_when_ready();
    }

    void aggregates_in() {
        for (std::size_t j = 0; j < forwards_.size(); ++j)
            transmit(incoming_.get(), forwards_[j], forward_tag, at_.forwards + j);
        go_when_ready();
    }

    // Once every aggregate has left (the outgoing ones are free) and every
    // one from other nodes has arrived (the processes may read them).
    void go_when_ready() {
        if (went_ || sends_left_ > 0 || aggregates_left_ > 0) return;
        went_ = true;
        for (std::size_t j = 0; j < go_.size(); ++j)
            signal(go_[j], go_tag, at_.go_out + j);
    }

    void arrived(int index) override {
        --pending_;
        const auto i = static_cast<std::size_t>(index);
        if (i < at_.from) { // a process's part, by message or packed in place
            if (--gathers_left_ == 0) send_aggregates();
        } else if (i < at_.sharers) {
            for (const OwnPiece& p : own_in_[i - at_.from])
                arrival_.unpack(incoming_.get() + p.offset, p.regions, recv_target_);
            if (--aggregates_left_ == 0) aggregates_in();
        } else if (up_in_ && i == at_.up_in) {
            unpack_own(inbox_.get());
        } else if (waits_go_ && i == at_.go_in) {
            if (leader_in_) {
                unpack_own(leader_in_);
                signal(leader_rank_, done_tag, at_.done_out);
            }
        } else if (i >= at_.to && i < at_.forwards) {
            if (--sends_left_ == 0) go_when_ready();
        }
    }

    void unpack_own(const std::byte* from) {
        for (const OwnPiece& p : own_in_.front())
            arrival_.unpack(from + p.offset, p.regions, recv_target_);
    }

    bool leader() const { return leader_rank_ == me_; }
    void build(const core::LocalPlan& plan, const ExecutorContext& ctx, const NodeMap& map);
    void allocate_aggregates(const NodeMap& map);
    void build_leader(const NodeMap& map, const std::map<int, const core::PeerRegions*>& sends,
                      const std::map<int, const core::PeerRegions*>& recvs,
                      const LeaderMemory& mem);
    void build_member(const NodeMap& map, const std::map<int, const core::PeerRegions*>& sends,
                      const std::map<int, const core::PeerRegions*>& recvs, LeaderMemory mem);
    void number_slots();

    void release_more() noexcept override {
        unlist();
        if (mpi_alive())
            for (MPI_Request& r : reqs_)
                if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (auto* list : {&gathers_, &to_, &from_, &forwards_})
            for (Wire& w : *list)
                w.type.reset();
        if (up_out_) up_out_->type.reset();
        if (up_in_) up_in_->type.reset();
    }

    int me_ = 0, leader_rank_ = 0;
    Slots at_;
    // Leader: the aggregates' layouts; messages of parts from its
    // processes, aggregates to and from other nodes' leaders, messages to
    // its processes; the processes that pack into its outgoing aggregates
    // (they send packed), those that unpack from its incoming ones (they
    // answer go with done), and all that wait for go.
    Layout out_at_, in_at_;
    std::vector<Wire> gathers_, to_, from_, forwards_;
    std::vector<int> packers_, sharers_, go_;
    // Other processes: the message to and from the leader, or the leader's
    // aggregates mapped here (kept mapped by the rings).
    std::optional<Wire> up_out_, up_in_;
    bool packs_for_leader_ = false, waits_go_ = false;
    std::optional<Ring> leader_rings_[2];
    const std::byte* leader_in_ = nullptr;
    // The own pieces: packed at pack_target_ (the outgoing aggregates, the
    // leader's or mapped, or the message to the leader); unpacked per
    // aggregate received (a leader), or from the one message or the
    // leader's incoming aggregates (another process).
    std::vector<OwnPiece> own_out_;
    std::vector<std::vector<OwnPiece>> own_in_;
    std::byte* pack_target_ = nullptr;
    SharedBuffer outgoing_, incoming_;
    Scratch outbox_, inbox_;
    std::size_t gathers_left_ = 0, aggregates_left_ = 0, sends_left_ = 0;
    bool went_ = false;
    std::byte* recv_target_ = nullptr;
};

void RelayExecutor::build(const core::LocalPlan& plan, const ExecutorContext& ctx,
                          const NodeMap& map) {
    std::map<int, const core::PeerRegions*> sends, recvs; // by rank
    for (const core::PeerRegions& p : plan.sends)
        sends[ctx.recv_rank.at(static_cast<std::size_t>(p.peer))] = &p;
    for (const core::PeerRegions& p : plan.recvs)
        recvs[ctx.send_rank.at(static_cast<std::size_t>(p.peer))] = &p;
    me_ = map.me;
    leader_rank_ = map.leader_rank();
    // Every process lays the aggregates out; a leader allocates them. A
    // failure here still takes part in the exchange (nothing to map), and
    // then every process of the transfer fails alike.
    const Status allocated = capture([&] { allocate_aggregates(map); });
    LeaderMemory mem =
        share_leader_memory(map, comm_, {outgoing_.get(), static_cast<std::size_t>(end_of(to_))},
                            {incoming_.get(), static_cast<std::size_t>(end_of(from_))});
    agree(comm_, allocated.failed() ? allocated : mem.status);
    if (leader())
        build_leader(map, sends, recvs, mem);
    else
        build_member(map, sends, recvs, std::move(mem));
    number_slots();
}

void RelayExecutor::allocate_aggregates(const NodeMap& map) {
    out_at_ = lay_out(node_pieces(map, true), to_);
    in_at_ = lay_out(node_pieces(map, false), from_);
    if (!leader()) {
        to_.clear();
        from_.clear();
        return;
    }
    outgoing_ = shared_zeroed(end_of(to_));
    incoming_ = shared_zeroed(end_of(from_));
}

void RelayExecutor::number_slots() {
    std::size_t k = 0;
    const auto next = [&](std::size_t n) {
        const std::size_t start = k;
        k += n;
        return start;
    };
    at_.gathers = next(gathers_.size());
    at_.packed = next(packers_.size());
    at_.from = next(from_.size());
    at_.sharers = next(sharers_.size());
    at_.up_in = next(up_in_ ? 1 : 0);
    at_.go_in = next(waits_go_ ? 1 : 0);
    at_.recvs = k;
    at_.to = next(to_.size());
    at_.forwards = next(forwards_.size());
    at_.go_out = next(go_.size());
    at_.up_out = next(up_out_ || packs_for_leader_ ? 1 : 0);
    at_.done_out = next(leader_in_ ? 1 : 0);
    at_.end = k;
    reqs_.assign(at_.end, MPI_REQUEST_NULL);
    done_.assign(reqs_.size(), 0);
}

void RelayExecutor::build_member(const NodeMap& map,
                                 const std::map<int, const core::PeerRegions*>& sends,
                                 const std::map<int, const core::PeerRegions*>& recvs,
                                 LeaderMemory mem) {
    const NodeMember& me = map.mine();
    packs_for_leader_ = mem.outgoing.has_value();
    core::Index offset = 0;
    for (const NodeLink& l : me.out) {
        const core::Index at = packs_for_leader_ ? out_at_.at({l.peer, me.rank}) : offset;
        own_out_.push_back({at, sends.at(l.peer)->regions});
        offset = core::checked_add(offset, l.bytes, "bytes between nodes");
    }
    if (packs_for_leader_) {
        pack_target_ = mem.outgoing_base();
    } else if (offset > 0) {
        outbox_ = Scratch(offset);
        pack_target_ = outbox_.get();
        up_out_ = contiguous(leader_rank_, 0, offset);
    }
    leader_in_ = mem.incoming_base();
    own_in_.emplace_back();
    offset = 0;
    for (const NodeLink& l : me.in) {
        const core::Index at = leader_in_ ? in_at_.at({me.rank, l.peer}) : offset;
        own_in_.back().push_back({at, recvs.at(l.peer)->regions});
        offset = core::checked_add(offset, l.bytes, "bytes between nodes");
    }
    if (!leader_in_ && offset > 0) {
        inbox_ = Scratch(offset);
        up_in_ = contiguous(leader_rank_, 0, offset);
    }
    touch(mem.outgoing);
    touch(mem.incoming);
    leader_rings_[0] = std::move(mem.outgoing);
    leader_rings_[1] = std::move(mem.incoming);
    waits_go_ = packs_for_leader_ || leader_in_;
}

void RelayExecutor::build_leader(const NodeMap& map,
                                 const std::map<int, const core::PeerRegions*>& sends,
                                 const std::map<int, const core::PeerRegions*>& recvs,
                                 const LeaderMemory& mem) {
    packers_ = mem.packers;
    sharers_ = mem.sharers;
    pack_target_ = outgoing_.get();
    const auto has = [](const std::vector<int>& v, int r) {
        return std::find(v.begin(), v.end(), r) != v.end();
    };
    for (const NodeMember& m : map.members) {
        if (m.rank == map.me) {
            for (const NodeLink& l : m.out)
                own_out_.push_back({out_at_.at({l.peer, m.rank}), sends.at(l.peer)->regions});
            continue;
        }
        const bool packs = has(packers_, m.rank), shares = has(sharers_, m.rank);
        if (packs || shares) go_.push_back(m.rank);
        std::vector<std::pair<core::Index, core::Index>> up, down;
        for (const NodeLink& l : m.out)
            up.emplace_back(out_at_.at({l.peer, m.rank}), l.bytes);
        for (const NodeLink& l : m.in)
            down.emplace_back(in_at_.at({m.rank, l.peer}), l.bytes);
        if (!up.empty() && !packs) gathers_.push_back(gathering(m.rank, up));
        if (!down.empty() && !shares) forwards_.push_back(gathering(m.rank, down));
    }
    // The leader's own pieces from each aggregate it receives.
    own_in_.resize(from_.size());
    for (const NodeLink& l : map.mine().in) {
        const int node = map.node_of[static_cast<std::size_t>(l.peer)];
        const auto a =
            static_cast<std::size_t>(std::find_if(from_.begin(), from_.end(),
                                                  [&](const Wire& w) { return w.rank == node; }) -
                                     from_.begin());
        own_in_.at(a).push_back({in_at_.at({map.me, l.peer}), recvs.at(l.peer)->regions});
    }
}

} // namespace

std::unique_ptr<Executor> make_node_relay(const core::LocalPlan& plan, const ExecutorContext& ctx,
                                          const NodeMap& map) {
    return std::make_unique<RelayExecutor>(plan, ctx, map);
}

} // namespace dri::detail

// The relay of NODES: every piece between processes on different nodes
// travels through the two nodes' leaders (the lowest rank on each node),
// one message per ordered pair of nodes. Aggregates are laid out the same
// way by both leaders: by receiver rank, then sender rank.
//
// Within a node, through node shared memory (node_staging.hpp): a process
// packs its pieces bound for other nodes into its staging and tells its
// leader (a message without data); the leader sends each aggregate straight
// from its processes' stagings (a datatype of absolute addresses) and its
// own packed pieces. Once every aggregate has left and every aggregate from
// other nodes has arrived, the leader tells each process to go: its staging
// is free again, and it unpacks its pieces from other nodes straight from
// the leader's incoming aggregates, then tells the leader it is done (the
// leader's next reorganization receives into them again only after that).
// The messages order the accesses, as for the single copy (shared.cpp).
//
// A process whose staging the leader cannot map sends its pieces to the
// leader in one message, received by a datatype straight into the
// aggregates; a process that cannot map the leader's incoming aggregates
// receives its pieces in one message (a datatype gathers them). Only a call
// of dri on the leader's process relays: a listed executor.
#include "mpi/datatype.hpp"
#include "mpi/shared_memory.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/listed_executor.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/node_map.hpp"
#include "mpi/strategies/node_staging.hpp"
#include "mpi/strategies/parts.hpp"
#include "mpi/strategies/scratch.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

namespace dri::detail {

namespace {

constexpr int gather_tag = 1, aggregate_tag = 2, forward_tag = 3, packed_tag = 4, go_tag = 5,
              done_tag = 6;

// A piece of this process's own, packed into or unpacked from a stream.
struct OwnPiece {
    core::Index offset = 0; // in the stream
    std::vector<core::Region> regions;
};

// A message of contiguous bytes, or of a datatype over a buffer (or over
// absolute addresses, sent from MPI_BOTTOM).
struct Wire {
    int rank = 0;
    core::Index offset = 0, bytes = 0;
    Datatype type; // a gathering type, or a byte range above INT_MAX
    bool absolute = false;
};

// The pieces between nodes of a node's processes: (node, receiver, sender)
// -> bytes, the node being the other one (its leader's rank).
using Pieces = std::map<std::tuple<int, int, int>, core::Index>;
// Where each piece of an aggregate sits: (receiver, sender) -> offset.
using Layout = std::map<std::pair<int, int>, core::Index>;

// Request slots, receives first (is_recv): where each group starts.
struct Slots {
    std::size_t gathers = 0, staged = 0, from = 0, sharers = 0, up_in = 0, go_in = 0, recvs = 0;
    std::size_t to = 0, forwards = 0, go_out = 0, up_out = 0, done = 0, end = 0;
};

// `bytes` of node shared memory, touched now (never in DRI_Do).
SharedBuffer shared_zeroed(core::Index bytes) {
    if (bytes <= 0) return {};
    SharedBuffer b(static_cast<std::byte*>(shared_alloc(bytes)));
    std::memset(b.get(), 0, static_cast<std::size_t>(bytes));
    return b;
}

// Reads one byte per page of a mapped ring, so that the first DRI_Do does
// not take this process's page faults on it.
void touch(const Ring& ring) {
    for (const std::shared_ptr<const RemoteSegment>& seg : ring.segments)
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
        for (std::size_t j = 0; j < staged_.size(); ++j)
            expect(staged_[j], packed_tag, at_.staged + j);
        for (std::size_t j = 0; j < from_.size(); ++j)
            receive(incoming_.get(), from_[j], aggregate_tag, at_.from + j);
        for (std::size_t j = 0; j < sharers_.size(); ++j)
            expect(sharers_[j], done_tag, at_.sharers + j);
        if (up_in_) receive(inbox_.get(), *up_in_, forward_tag, at_.up_in);
        if (waits_go_) expect(leader_rank_, go_tag, at_.go_in);
        std::byte* out = leader() ? outgoing_.get() : staging_.get();
        for (const OwnPiece& p : own_out_)
            pack_all(send, p.regions, elem_size(), out + p.offset);
        if (up_out_) transmit(staging_.get(), *up_out_, gather_tag, at_.up_out);
        if (packs_staged_) signal(leader_rank_, packed_tag, at_.up_out);
        gathers_left_ = gathers_.size() + staged_.size();
        aggregates_left_ = from_.size();
        sends_left_ = to_.size();
        went_ = false;
        if (gathers_left_ == 0) send_aggregates();
        if (aggregates_left_ == 0) aggregates_in();
    }

    // One message of `w` from or to `base`: its bytes at w.offset, or one
    // element of its datatype at base (or at MPI_BOTTOM when absolute).
    void receive(std::byte* base, const Wire& w, int tag, std::size_t slot) {
        check_mpi(w.type.get() != MPI_DATATYPE_NULL
                      ? MPI_Irecv(base, 1, w.type.get(), w.rank, tag, comm_, &reqs_[slot])
                      : MPI_Irecv(base + w.offset, static_cast<int>(w.bytes), MPI_BYTE, w.rank, tag,
                                  comm_, &reqs_[slot]),
                  "MPI_Irecv");
        ++pending_;
    }
    void transmit(std::byte* base, const Wire& w, int tag, std::size_t slot) {
        void* at = w.absolute ? MPI_BOTTOM : base;
        check_mpi(w.type.get() != MPI_DATATYPE_NULL
                      ? MPI_Isend(at, 1, w.type.get(), w.rank, tag, comm_, &reqs_[slot])
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

    // Once every aggregate has left (the stagings are free) and every one
    // from other nodes has arrived (the processes may read them).
    void go_when_ready() {
        if (went_ || sends_left_ > 0 || aggregates_left_ > 0) return;
        went_ = true;
        for (std::size_t j = 0; j < go_.size(); ++j)
            signal(go_[j], go_tag, at_.go_out + j);
    }

    void arrived(int index) override {
        --pending_;
        const auto i = static_cast<std::size_t>(index);
        if (i < at_.from) { // a process's part, by message or in its staging
            if (--gathers_left_ == 0) send_aggregates();
        } else if (i < at_.sharers) {
            for (const OwnPiece& p : own_in_[i - at_.from])
                arrival_.unpack(incoming_.get() + p.offset, p.regions, recv_target_);
            if (--aggregates_left_ == 0) aggregates_in();
        } else if (up_in_ && i == at_.up_in) {
            unpack_own(inbox_.get());
        } else if (waits_go_ && i == at_.go_in) {
            if (leader_incoming_) {
                unpack_own(leader_incoming_->bufs.front());
                signal(leader_rank_, done_tag, at_.done);
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
    void build_leader(const NodeMap& map, const std::map<int, const core::PeerRegions*>& sends,
                      const std::map<int, const core::PeerRegions*>& recvs);
    void build_member(const NodeMap& map, const std::map<int, const core::PeerRegions*>& sends,
                      const std::map<int, const core::PeerRegions*>& recvs);
    void send_from_stagings(const NodeMap& map, const Pieces& out, const Layout& out_at);
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
    // Leader: messages of parts from its processes, aggregates to and from
    // other nodes' leaders, messages to its processes; the processes whose
    // stagings it maps (they send a packed signal instead), those that map
    // its incoming aggregates (they answer go with done), and all that wait
    // for go.
    std::vector<Wire> gathers_, to_, from_, forwards_;
    std::vector<int> staged_, sharers_, go_;
    std::map<int, Ring> stagings_; // mapped, by rank
    // Other processes: the message to and from the leader, or the signals.
    std::optional<Wire> up_out_, up_in_;
    bool packs_staged_ = false, waits_go_ = false;
    std::optional<Ring> leader_incoming_;
    // The own pieces: packed into the outgoing aggregates (a leader) or the
    // staging; unpacked per aggregate received (a leader), or from the one
    // message or the leader's incoming aggregates (another process).
    std::vector<OwnPiece> own_out_;
    std::vector<std::vector<OwnPiece>> own_in_;
    Scratch outgoing_, inbox_;
    SharedBuffer incoming_, staging_;
    std::size_t gathers_left_ = 0, aggregates_left_ = 0, sends_left_ = 0;
    bool went_ = false;
    std::byte* recv_target_ = nullptr;
};

// A contiguous message of `bytes` at `offset` of a buffer; above INT_MAX
// bytes, a byte-range datatype (offset included), as an int count cannot
// say it.
Wire contiguous(int rank, core::Index offset, core::Index bytes) {
    Wire w{rank, offset, bytes, {}};
    if (bytes > INT_MAX) w.type = byte_range_datatype(offset, bytes);
    return w;
}

// One message whose pieces sit at `blocks` (offset in a buffer, or an
// absolute address; bytes), in stream order: a datatype of byte blocks
// (adjacent blocks merged).
Wire gathering(int rank, const std::vector<std::pair<core::Index, core::Index>>& blocks) {
    std::vector<core::Region> regs;
    core::Index bytes = 0;
    for (const auto& [offset, n] : blocks) {
        bytes += n;
        if (!regs.empty() && regs.back().s_off + regs.back().axes[0].n == offset) {
            regs.back().axes[0].n += n;
            continue;
        }
        regs.push_back(core::Region{offset, offset, {{n, 1, 1}}});
    }
    return Wire{rank, 0, bytes, regions_datatype(regs, SideOf::sender, 1)};
}

core::Index address_of(const std::byte* p) {
    MPI_Aint a = 0;
    check_mpi(MPI_Get_address(p, &a), "MPI_Get_address");
    return static_cast<core::Index>(a);
}

// The pieces of this node's processes to other nodes (`outgoing`) or from
// them: each keyed by the other node first.
Pieces node_pieces(const NodeMap& map, bool outgoing) {
    Pieces pieces;
    for (const NodeMember& m : map.members)
        for (const NodeLink& l : outgoing ? m.out : m.in) {
            const int node = map.node_of[static_cast<std::size_t>(l.peer)];
            if (outgoing)
                pieces[{node, l.peer, m.rank}] = l.bytes;
            else
                pieces[{node, m.rank, l.peer}] = l.bytes;
        }
    return pieces;
}

// Lays out the aggregates of `pieces`: one per node, contiguous, pieces by
// receiver then sender. Returns each piece's offset; `wires` gets one
// message per node (to or from its leader).
Layout lay_out(const Pieces& pieces, std::vector<Wire>& wires) {
    Layout at;
    core::Index offset = 0;
    auto close = [&] {
        if (!wires.empty())
            wires.back() =
                contiguous(wires.back().rank, wires.back().offset, offset - wires.back().offset);
    };
    for (const auto& [key, bytes] : pieces) {
        const auto [node, to, from] = key;
        if (wires.empty() || wires.back().rank != node) {
            close();
            wires.push_back(Wire{node, offset, 0, {}});
        }
        at[{to, from}] = offset;
        offset = core::checked_add(offset, bytes, "bytes between nodes");
    }
    close();
    return at;
}

core::Index end_of(const std::vector<Wire>& wires) {
    return wires.empty() ? 0 : wires.back().offset + wires.back().bytes;
}

void RelayExecutor::build(const core::LocalPlan& plan, const ExecutorContext& ctx,
                          const NodeMap& map) {
    std::map<int, const core::PeerRegions*> sends, recvs; // by rank
    for (const core::PeerRegions& p : plan.sends)
        sends[ctx.recv_rank.at(static_cast<std::size_t>(p.peer))] = &p;
    for (const core::PeerRegions& p : plan.recvs)
        recvs[ctx.send_rank.at(static_cast<std::size_t>(p.peer))] = &p;
    me_ = map.me;
    leader_rank_ = map.leader_rank();
    if (leader())
        build_leader(map, sends, recvs);
    else
        build_member(map, sends, recvs);
    number_slots();
}

void RelayExecutor::number_slots() {
    std::size_t k = 0;
    const auto next = [&](std::size_t n) {
        const std::size_t start = k;
        k += n;
        return start;
    };
    at_.gathers = next(gathers_.size());
    at_.staged = next(staged_.size());
    at_.from = next(from_.size());
    at_.sharers = next(sharers_.size());
    at_.up_in = next(up_in_ ? 1 : 0);
    at_.go_in = next(waits_go_ ? 1 : 0);
    at_.recvs = k;
    at_.to = next(to_.size());
    at_.forwards = next(forwards_.size());
    at_.go_out = next(go_.size());
    at_.up_out = next(up_out_ || packs_staged_ ? 1 : 0);
    at_.done = next(leader_incoming_ ? 1 : 0);
    at_.end = k;
    reqs_.assign(at_.end, MPI_REQUEST_NULL);
    done_.assign(reqs_.size(), 0);
}

void RelayExecutor::build_member(const NodeMap& map,
                                 const std::map<int, const core::PeerRegions*>& sends,
                                 const std::map<int, const core::PeerRegions*>& recvs) {
    const NodeMember& me = map.mine();
    core::Index offset = 0;
    for (const NodeLink& l : me.out) {
        own_out_.push_back({offset, sends.at(l.peer)->regions});
        offset += l.bytes;
    }
    staging_ = shared_zeroed(offset);
    StagingReach reach =
        reach_staging(map, comm_, {staging_.get(), static_cast<std::size_t>(offset)}, {});
    packs_staged_ = reach.staged_by_leader;
    if (offset > 0 && !packs_staged_) up_out_ = contiguous(leader_rank_, 0, offset);
    own_in_.emplace_back();
    if (reach.leader_incoming) { // unpacked from the leader's aggregates
        leader_incoming_ = std::move(reach.leader_incoming);
        touch(*leader_incoming_);
        std::vector<Wire> wires;
        const Layout in_at = lay_out(node_pieces(map, false), wires);
        for (const NodeLink& l : me.in)
            own_in_.back().push_back({in_at.at({me.rank, l.peer}), recvs.at(l.peer)->regions});
    } else {
        offset = 0;
        for (const NodeLink& l : me.in) {
            own_in_.back().push_back({offset, recvs.at(l.peer)->regions});
            offset += l.bytes;
        }
        if (offset > 0) up_in_ = contiguous(leader_rank_, 0, offset);
        inbox_ = Scratch(offset);
    }
    waits_go_ = packs_staged_ || leader_incoming_;
}

void RelayExecutor::build_leader(const NodeMap& map,
                                 const std::map<int, const core::PeerRegions*>& sends,
                                 const std::map<int, const core::PeerRegions*>& recvs) {
    const Pieces out = node_pieces(map, true);
    const Layout out_at = lay_out(out, to_), in_at = lay_out(node_pieces(map, false), from_);
    outgoing_ = Scratch(end_of(to_));
    incoming_ = shared_zeroed(end_of(from_));
    StagingReach reach =
        reach_staging(map, comm_, {}, {incoming_.get(), static_cast<std::size_t>(end_of(from_))});
    stagings_ = std::move(reach.staged);
    sharers_ = reach.sharers;
    for (const NodeMember& m : map.members) {
        std::vector<std::pair<core::Index, core::Index>> up, down;
        for (const NodeLink& l : m.out)
            up.emplace_back(out_at.at({l.peer, m.rank}), l.bytes);
        for (const NodeLink& l : m.in)
            down.emplace_back(in_at.at({m.rank, l.peer}), l.bytes);
        const bool staged = stagings_.count(m.rank) > 0;
        const bool shares = std::count(sharers_.begin(), sharers_.end(), m.rank) > 0;
        if (m.rank != map.me) {
            if (staged) staged_.push_back(m.rank);
            if (staged || shares) go_.push_back(m.rank);
            if (!up.empty() && !staged) gathers_.push_back(gathering(m.rank, up));
            if (!down.empty() && !shares) forwards_.push_back(gathering(m.rank, down));
            continue;
        }
        for (const NodeLink& l : m.out)
            own_out_.push_back({out_at.at({l.peer, m.rank}), sends.at(l.peer)->regions});
    }
    for (const auto& [rank, ring] : stagings_)
        touch(ring);
    if (!stagings_.empty()) send_from_stagings(map, out, out_at);
    // The leader's own pieces from each aggregate it receives.
    own_in_.resize(from_.size());
    for (const NodeLink& l : map.mine().in) {
        const int node = map.node_of[static_cast<std::size_t>(l.peer)];
        const auto a =
            static_cast<std::size_t>(std::find_if(from_.begin(), from_.end(),
                                                  [&](const Wire& w) { return w.rank == node; }) -
                                     from_.begin());
        own_in_.at(a).push_back({in_at.at({map.me, l.peer}), recvs.at(l.peer)->regions});
    }
}

// Each aggregate to another node as a datatype of absolute addresses: the
// pieces of processes whose stagings the leader maps are read from there,
// the others from the outgoing aggregates.
void RelayExecutor::send_from_stagings(const NodeMap& map, const Pieces& out,
                                       const Layout& out_at) {
    std::map<std::pair<int, int>, const std::byte*> staged_at; // (receiver, sender)
    for (const NodeMember& m : map.members) {
        auto ring = stagings_.find(m.rank);
        if (ring == stagings_.end()) continue;
        core::Index offset = 0;
        for (const NodeLink& l : m.out) {
            staged_at[{l.peer, m.rank}] = ring->second.bufs.front() + offset;
            offset += l.bytes;
        }
    }
    std::map<int, std::vector<std::pair<core::Index, core::Index>>> blocks; // by node
    for (const auto& [key, bytes] : out) {
        const auto [node, to, from] = key;
        auto staged = staged_at.find({to, from});
        const std::byte* p =
            staged != staged_at.end() ? staged->second : outgoing_.get() + out_at.at({to, from});
        blocks[node].emplace_back(address_of(p), bytes);
    }
    for (Wire& w : to_) {
        Wire from_addresses = gathering(w.rank, blocks.at(w.rank));
        from_addresses.absolute = true;
        w = std::move(from_addresses);
    }
}

} // namespace

std::unique_ptr<Executor> make_node_relay(const core::LocalPlan& plan, const ExecutorContext& ctx,
                                          const NodeMap& map) {
    return std::make_unique<RelayExecutor>(plan, ctx, map);
}

} // namespace dri::detail

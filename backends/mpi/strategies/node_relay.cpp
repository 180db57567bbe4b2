// The relay of NODES: every piece between processes on different nodes
// travels through the two nodes' leaders (the lowest rank on each node).
// A process sends its leader one message holding all its pieces bound for
// other nodes; the leader receives it, by a datatype, straight into the
// aggregates it holds for those nodes, and once every process of its node
// has given its part sends each aggregate to the other node's leader: one
// message per ordered pair of nodes. A receiving leader sends each process
// of its node one message holding all its pieces from other nodes (a
// datatype gathers them from the aggregates), which the process unpacks.
// The leader packs and unpacks its own pieces in place. Aggregates are laid
// out the same way by both leaders: by receiver rank, then sender rank.
// Only a call of dri on the leader's process relays: a listed executor.
#include "mpi/datatype.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/listed_executor.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/node_map.hpp"
#include "mpi/strategies/parts.hpp"
#include "mpi/strategies/scratch.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <tuple>

namespace dri::detail {

namespace {

constexpr int gather_tag = 1, aggregate_tag = 2, forward_tag = 3;

// A piece of this process's own, packed into or unpacked from a stream.
struct OwnPiece {
    core::Index offset = 0; // in the stream
    std::vector<core::Region> regions;
};

// A message of contiguous bytes, or of a datatype over a scratch buffer.
struct Wire {
    int rank = 0;
    core::Index offset = 0, bytes = 0;
    Datatype type; // the relay's gathering type, or a byte range above INT_MAX
};

// Where each piece of an aggregate sits: (receiver, sender) -> offset.
using Layout = std::map<std::pair<int, int>, core::Index>;

class RelayExecutor final : public ListedExecutor {
  public:
    RelayExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx, const NodeMap& map)
        : ListedExecutor(ctx) {
        construct(local_part(plan, false), [&] { build(plan, ctx, map); });
    }
    ~RelayExecutor() override { release(); }

  private:
    // Request slots, in this order: receives of the processes' parts
    // (leader), receives of aggregates (leader), the process's receive from
    // its leader (others); then sends of aggregates (leader), sends to the
    // processes (leader), the process's send to its leader (others).
    std::size_t n_recv() const { return gathers_.size() + from_.size() + (up_in_ ? 1 : 0); }
    bool is_recv(std::size_t i) const override { return i < n_recv(); }

    void post(const std::byte* send, std::byte* recv) override {
        recv_target_ = recv;
        pending_ = 0;
        std::size_t k = 0;
        for (const Wire& g : gathers_)
            receive(out_.get(), g, gather_tag, k++);
        for (const Wire& a : from_)
            receive(in_.get(), a, aggregate_tag, k++);
        if (up_in_) receive(in_.get(), *up_in_, forward_tag, k++);
        for (const OwnPiece& p : own_out_)
            pack_all(send, p.regions, elem_size(), out_.get() + p.offset);
        if (up_out_) transmit(out_.get(), *up_out_, gather_tag, send_slot_);
        gathers_left_ = gathers_.size();
        aggregates_left_ = from_.size();
        if (gathers_left_ == 0) send_aggregates();
        if (aggregates_left_ == 0) send_forwards();
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

    void send_aggregates() {
        std::size_t k = n_recv();
        for (const Wire& a : to_)
            transmit(out_.get(), a, aggregate_tag, k++);
    }

    void send_forwards() {
        std::size_t k = n_recv() + to_.size();
        for (const Wire& f : forwards_)
            transmit(in_.get(), f, forward_tag, k++);
    }

    void arrived(int index) override {
        --pending_;
        const auto i = static_cast<std::size_t>(index);
        if (i < gathers_.size()) {
            if (--gathers_left_ == 0) send_aggregates();
        } else if (i < gathers_.size() + from_.size()) {
            for (const OwnPiece& p : own_in_[i - gathers_.size()])
                arrival_.unpack(in_.get() + p.offset, p.regions, recv_target_);
            if (--aggregates_left_ == 0) send_forwards();
        } else if (up_in_ && i == n_recv() - 1) {
            for (const OwnPiece& p : own_in_.front())
                arrival_.unpack(in_.get() + p.offset, p.regions, recv_target_);
        }
    }

    void build(const core::LocalPlan& plan, const ExecutorContext& ctx, const NodeMap& map);
    void build_leader(const NodeMap& map, const std::map<int, const core::PeerRegions*>& sends,
                      const std::map<int, const core::PeerRegions*>& recvs);
    void build_member(const NodeMap& map, const std::map<int, const core::PeerRegions*>& sends,
                      const std::map<int, const core::PeerRegions*>& recvs);

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

    // Leader: parts received from its processes, aggregates to and from
    // other nodes' leaders, messages to its processes.
    std::vector<Wire> gathers_, to_, from_, forwards_;
    // Other processes: the message to and from the leader.
    std::optional<Wire> up_out_, up_in_;
    std::size_t send_slot_ = 0;
    // The own pieces: packed into out_; unpacked from in_, per aggregate
    // received (a leader) or from the one message (another process).
    std::vector<OwnPiece> own_out_;
    std::vector<std::vector<OwnPiece>> own_in_;
    Scratch out_, in_;
    std::size_t gathers_left_ = 0, aggregates_left_ = 0;
    std::byte* recv_target_ = nullptr;
};

// A contiguous message of `bytes` at `offset` of a scratch buffer; above
// INT_MAX bytes, a byte-range datatype (offset included), as an int count
// cannot say it.
Wire contiguous(int rank, core::Index offset, core::Index bytes) {
    Wire w{rank, offset, bytes, {}};
    if (bytes > INT_MAX) w.type = byte_range_datatype(offset, bytes);
    return w;
}

// One message whose pieces sit at `offsets` of a scratch buffer, in stream
// order: a datatype of byte blocks (adjacent blocks merged).
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

// Lays out the aggregates of `pieces` ((node, receiver, sender) -> bytes):
// one per node, contiguous, pieces by receiver then sender. Returns each
// piece's offset; `wires` gets one message per node (to or from its leader).
Layout lay_out(const std::map<std::tuple<int, int, int>, core::Index>& pieces,
               std::vector<Wire>& wires) {
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
    if (map.leader())
        build_leader(map, sends, recvs);
    else
        build_member(map, sends, recvs);
    reqs_.assign(n_recv() + to_.size() + forwards_.size() + (up_out_ ? 1 : 0), MPI_REQUEST_NULL);
    send_slot_ = reqs_.size() - 1;
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
    if (offset > 0) up_out_ = contiguous(map.leader_rank(), 0, offset);
    out_ = Scratch(offset);
    own_in_.emplace_back();
    offset = 0;
    for (const NodeLink& l : me.in) {
        own_in_.back().push_back({offset, recvs.at(l.peer)->regions});
        offset += l.bytes;
    }
    if (offset > 0) up_in_ = contiguous(map.leader_rank(), 0, offset);
    in_ = Scratch(offset);
}

void RelayExecutor::build_leader(const NodeMap& map,
                                 const std::map<int, const core::PeerRegions*>& sends,
                                 const std::map<int, const core::PeerRegions*>& recvs) {
    std::map<std::tuple<int, int, int>, core::Index> out, in; // (node, receiver, sender)
    for (const NodeMember& m : map.members) {
        for (const NodeLink& l : m.out)
            out[{map.node_of[static_cast<std::size_t>(l.peer)], l.peer, m.rank}] = l.bytes;
        for (const NodeLink& l : m.in)
            in[{map.node_of[static_cast<std::size_t>(l.peer)], m.rank, l.peer}] = l.bytes;
    }
    const Layout out_at = lay_out(out, to_), in_at = lay_out(in, from_);
    out_ = Scratch(end_of(to_));
    in_ = Scratch(end_of(from_));
    for (const NodeMember& m : map.members) {
        std::vector<std::pair<core::Index, core::Index>> up, down;
        for (const NodeLink& l : m.out)
            up.emplace_back(out_at.at({l.peer, m.rank}), l.bytes);
        for (const NodeLink& l : m.in)
            down.emplace_back(in_at.at({m.rank, l.peer}), l.bytes);
        if (m.rank != map.me) {
            if (!up.empty()) gathers_.push_back(gathering(m.rank, up));
            if (!down.empty()) forwards_.push_back(gathering(m.rank, down));
            continue;
        }
        for (const NodeLink& l : m.out)
            own_out_.push_back({out_at.at({l.peer, m.rank}), sends.at(l.peer)->regions});
    }
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

} // namespace

std::unique_ptr<Executor> make_node_relay(const core::LocalPlan& plan, const ExecutorContext& ctx,
                                          const NodeMap& map) {
    return std::make_unique<RelayExecutor>(plan, ctx, map);
}

} // namespace dri::detail

#include "mpi/strategies/node_map.hpp"

#include "core/wire.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/runtime/handles.hpp"
#include "mpi/strategies/messages.hpp"

#include <algorithm>
#include <set>

namespace dri::detail {

namespace {

// Collective over comm: this process's node, split with key 0 so that node
// ranks keep comm's order (node rank 0 is the lowest comm rank).
MPI_Comm split_node(MPI_Comm comm) {
    MPI_Comm node = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    count_handle(+1);
    return node;
}

// Collective over comm: per rank, the lowest rank on its node.
std::vector<int> leaders(MPI_Comm comm, int me, MPI_Comm node) {
    int leader = me;
    check_mpi(MPI_Bcast(&leader, 1, MPI_INT, 0, node), "MPI_Bcast");
    int size = 0;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    std::vector<int> all(static_cast<std::size_t>(size));
    check_mpi(MPI_Allgather(&leader, 1, MPI_INT, all.data(), 1, MPI_INT, comm), "MPI_Allgather");
    return all;
}

// This process's pieces to or from processes on other nodes.
std::vector<NodeLink> links(const std::vector<core::PeerRegions>& peers,
                            const std::vector<int>& rank_of, const NodeMap& map, core::Index elem) {
    std::vector<NodeLink> out;
    for (const core::PeerRegions& p : peers) {
        const int rank = rank_of.at(static_cast<std::size_t>(p.peer));
        const core::Index bytes = total_bytes(p.regions, elem);
        if (bytes > 0 && !map.same_node(rank, map.me)) out.push_back({rank, bytes});
    }
    return out;
}

void write_links(core::Writer& w, const std::vector<NodeLink>& v) {
    w.i64(static_cast<core::Index>(v.size()));
    for (const NodeLink& l : v) {
        w.i64(l.peer);
        w.i64(l.bytes);
    }
}

std::vector<NodeLink> read_links(core::Reader& rd) {
    std::vector<NodeLink> v(static_cast<std::size_t>(rd.i64()));
    for (NodeLink& l : v) {
        l.peer = static_cast<int>(rd.i64());
        l.bytes = rd.i64();
    }
    return v;
}

} // namespace

const NodeMember& NodeMap::mine() const {
    for (const NodeMember& m : members)
        if (m.rank == me) return m;
    core::fail(core::Errc::internal, "this process is missing from its node's map");
}

NodeMap map_nodes(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    NodeMap map;
    check_mpi(MPI_Comm_rank(ctx.comm, &map.me), "MPI_Comm_rank");
    const ScopedComm node(split_node(ctx.comm));
    map.node_of = leaders(ctx.comm, map.me, node.get());
    NodeMember self{map.me, links(plan.sends, ctx.recv_rank, map, plan.elem_size),
                    links(plan.recvs, ctx.send_rank, map, plan.elem_size)};
    std::sort(self.out.begin(), self.out.end(),
              [](const NodeLink& a, const NodeLink& b) { return a.peer < b.peer; });
    std::sort(self.in.begin(), self.in.end(), [&](const NodeLink& a, const NodeLink& b) {
        const int na = map.node_of[static_cast<std::size_t>(a.peer)];
        const int nb = map.node_of[static_cast<std::size_t>(b.peer)];
        return na != nb ? na < nb : a.peer < b.peer;
    });
    core::Writer w;
    w.i64(self.rank);
    write_links(w, self.out);
    write_links(w, self.in);
    std::vector<core::Index> sizes;
    const std::vector<std::byte> all = allgather_bytes(node.get(), w.bytes(), sizes);
    core::Index at = 0;
    for (core::Index n : sizes) { // node ranks follow comm ranks: the leader first
        core::Reader rd(all.data() + at, static_cast<std::size_t>(n));
        NodeMember m;
        m.rank = static_cast<int>(rd.i64());
        m.out = read_links(rd);
        m.in = read_links(rd);
        map.members.push_back(std::move(m));
        at += n;
    }
    return map;
}

core::NodeTraffic traffic_between_nodes(const NodeMap& map, MPI_Comm comm) {
    // Each process counts its own pieces; each leader its node's node pairs.
    long long sums[3] = {0, 0, 0};
    for (const NodeLink& l : map.mine().out) {
        sums[0] += 1;
        sums[2] += l.bytes;
    }
    if (map.leader()) {
        std::set<int> to;
        for (const NodeMember& m : map.members)
            for (const NodeLink& l : m.out)
                to.insert(map.node_of[static_cast<std::size_t>(l.peer)]);
        sums[1] = static_cast<long long>(to.size());
    }
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Allreduce");
    core::NodeTraffic t;
    t.nodes = static_cast<int>(std::set<int>(map.node_of.begin(), map.node_of.end()).size());
    t.pair_messages = sums[0];
    t.node_pair_messages = sums[1];
    t.bytes = sums[2];
    return t;
}

} // namespace dri::detail

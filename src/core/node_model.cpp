#include "core/node_model.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace dri::core {

namespace {

// What crosses one node's boundary, and its messages within.
struct NodeLoad {
    long long p2p_out = 0, p2p_in = 0;   // P2P messages to / from other nodes
    long long node_out = 0, node_in = 0; // other nodes it sends to / receives from
    long long gather = 0, scatter = 0;   // NODES: non-leaders' messages to / from the leader
    Index out_bytes = 0, in_bytes = 0;
};

// The plan as the model sees it: processes renumbered onto dense nodes.
struct Placement {
    std::vector<int> node;   // process -> dense node
    std::vector<int> leader; // dense node -> its lowest-numbered process
};

Placement place(const std::vector<int>& node_of) {
    std::vector<int> ids(node_of);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    Placement pl;
    pl.leader.assign(ids.size(), -1);
    for (std::size_t p = 0; p < node_of.size(); ++p) {
        const auto n = static_cast<std::size_t>(
            std::lower_bound(ids.begin(), ids.end(), node_of[p]) - ids.begin());
        pl.node.push_back(static_cast<int>(n));
        if (pl.leader[n] < 0) pl.leader[n] = static_cast<int>(p);
    }
    return pl;
}

std::uint64_t pair_key(int a, int b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
           static_cast<std::uint32_t>(b);
}

// NODES sends one message per ordered pair of nodes that exchange data;
// P2P's busiest node pair carries as many messages as it has pieces.
// `keys` holds one pair_key per piece between nodes.
long long count_node_pairs(std::vector<std::uint64_t>& keys, std::vector<NodeLoad>& load) {
    std::sort(keys.begin(), keys.end());
    long long busiest = 0;
    for (std::size_t i = 0, j = 0; i < keys.size(); i = j) {
        while (j < keys.size() && keys[j] == keys[i])
            ++j;
        ++load[static_cast<std::size_t>(keys[i] >> 32)].node_out;
        ++load[static_cast<std::size_t>(keys[i] & 0xffffffffu)].node_in;
        busiest = std::max(busiest, static_cast<long long>(j - i));
    }
    return busiest;
}

// Each non-leader sends its leader one message with everything it sends to
// other nodes, and receives one with everything it receives from them.
void count_leader_messages(const Placement& pl, const std::vector<char>& sends_out,
                           const std::vector<char>& recvs_in, std::vector<NodeLoad>& load) {
    for (std::size_t p = 0; p < pl.node.size(); ++p) {
        const auto n = static_cast<std::size_t>(pl.node[p]);
        if (pl.leader[n] == static_cast<int>(p)) continue;
        load[n].gather += sends_out[p];
        load[n].scatter += recvs_in[p];
    }
}

double network_seconds(long long out_msgs, long long in_msgs, const NodeLoad& l,
                       const NetworkModel& net) {
    const double out =
        static_cast<double>(out_msgs) * net.alpha + static_cast<double>(l.out_bytes) / net.beta;
    const double in =
        static_cast<double>(in_msgs) * net.alpha + static_cast<double>(l.in_bytes) / net.beta;
    return std::max(out, in);
}

void add_times(const std::vector<NodeLoad>& load, const NetworkModel& net, NodeModel& m) {
    for (const NodeLoad& l : load) {
        m.p2p.seconds = std::max(m.p2p.seconds, network_seconds(l.p2p_out, l.p2p_in, l, net));
        const double through_leader =
            static_cast<double>(l.gather + l.scatter) * net.intra_alpha +
            (static_cast<double>(l.out_bytes) + static_cast<double>(l.in_bytes)) / net.copy;
        m.nodes.seconds = std::max(m.nodes.seconds,
                                   network_seconds(l.node_out, l.node_in, l, net) + through_leader);
        m.nodes.intra_messages += l.gather + l.scatter;
    }
}

// The model's running totals over the chunks.
struct Totals {
    Placement pl;
    std::vector<NodeLoad> load;
    std::vector<char> sends_out, recvs_in; // per process: any piece to / from another node
    std::vector<int> chunk_of;             // per node: the chunk of its pieces to other nodes
    NodeModel m;
};

// Adds `pieces` to the totals; keys are the pieces' node pairs, which no
// other chunk has, so that counting them chunk by chunk adds up.
void add_chunk(Totals& t, const std::vector<NodePiece>& pieces, const std::vector<int>& node_of,
               int chunk) {
    const NodeTraffic nt = node_traffic(pieces, node_of);
    t.m.traffic.pair_messages += nt.pair_messages;
    t.m.traffic.node_pair_messages += nt.node_pair_messages;
    t.m.traffic.bytes = checked_add(t.m.traffic.bytes, nt.bytes, "bytes between nodes");
    std::vector<std::uint64_t> keys;
    for (const NodePiece& p : pieces) {
        if (p.bytes <= 0 || p.from == p.to) continue;
        const int a = t.pl.node.at(static_cast<std::size_t>(p.from));
        const int b = t.pl.node.at(static_cast<std::size_t>(p.to));
        if (a == b) {
            ++t.m.p2p.intra_messages;
            continue;
        }
        int& owner = t.chunk_of[static_cast<std::size_t>(a)];
        if (owner >= 0 && owner != chunk)
            fail(Errc::internal, "node model: a node's pieces to other nodes are in two chunks");
        owner = chunk;
        NodeLoad &la = t.load[static_cast<std::size_t>(a)],
                 &lb = t.load[static_cast<std::size_t>(b)];
        ++la.p2p_out;
        ++lb.p2p_in;
        la.out_bytes = checked_add(la.out_bytes, p.bytes, "bytes between nodes");
        lb.in_bytes = checked_add(lb.in_bytes, p.bytes, "bytes between nodes");
        t.sends_out[static_cast<std::size_t>(p.from)] = 1;
        t.recvs_in[static_cast<std::size_t>(p.to)] = 1;
        keys.push_back(pair_key(a, b));
    }
    t.m.p2p.messages += static_cast<long long>(keys.size());
    t.m.p2p.per_node_pair = std::max(t.m.p2p.per_node_pair, count_node_pairs(keys, t.load));
}

Totals start(const std::vector<int>& node_of) {
    Totals t;
    t.pl = place(node_of);
    t.load.resize(t.pl.leader.size());
    t.sends_out.assign(node_of.size(), 0);
    t.recvs_in.assign(node_of.size(), 0);
    t.chunk_of.assign(t.pl.leader.size(), -1);
    t.m.traffic.nodes = static_cast<int>(t.pl.leader.size());
    return t;
}

NodeModel finish(Totals& t, const NetworkModel& net) {
    NodeModel& m = t.m;
    m.auto_nodes = aggregate_between_nodes(m.traffic);
    m.p2p.bytes = m.nodes.bytes = m.traffic.bytes;
    m.nodes.intra_messages = m.p2p.intra_messages;
    m.nodes.messages = m.traffic.node_pair_messages;
    m.nodes.per_node_pair = m.nodes.messages > 0 ? 1 : 0;
    count_leader_messages(t.pl, t.sends_out, t.recvs_in, t.load);
    add_times(t.load, net, m);
    return m;
}

} // namespace

NodeModel model_nodes(int chunks, const std::function<std::vector<NodePiece>(int)>& chunk,
                      const std::vector<int>& node_of, const NetworkModel& net) {
    Totals t = start(node_of);
    for (int k = 0; k < chunks; ++k)
        add_chunk(t, chunk(k), node_of, k);
    return finish(t, net);
}

NodeModel model_nodes(const std::vector<NodePiece>& pieces, const std::vector<int>& node_of,
                      const NetworkModel& net) {
    Totals t = start(node_of);
    add_chunk(t, pieces, node_of, 0);
    return finish(t, net);
}

} // namespace dri::core

#include "plan_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dri::plan_view {

using namespace dri::core;

namespace {

using Units = std::vector<std::pair<std::string, double>>;

const Units time_units{{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
const Units rate_units{{"B/s", 1},           {"KB/s", 1e3},          {"MB/s", 1e6},
                       {"GB/s", 1e9},        {"TB/s", 1e12},         {"KiB/s", 1024.0},
                       {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}};

// A number followed by one of `units`, e.g. 12.5GB/s; finite, and positive
// when `positive` (a bandwidth divides), else at least 0.
double parse_quantity(const std::string& key, const std::string& value, const Units& units,
                      bool positive) {
    const char* begin = value.c_str();
    char* end = nullptr;
    const double x = std::strtod(begin, &end);
    const std::string unit(end);
    const std::string expect = &units == &time_units ? "a time such as 2us (s, ms, us, ns)"
                                                     : "a bandwidth such as 12.5GB/s (B/s, KB/s, "
                                                       "MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s)";
    if (end == begin || !std::isfinite(x))
        throw std::invalid_argument(key + "=" + value + ": expected " + expect);
    for (const auto& [name, scale] : units)
        if (unit == name) {
            if (positive ? !(x > 0) : !(x >= 0))
                throw std::invalid_argument(key + "=" + value + ": must be " +
                                            (positive ? "positive" : "at least 0"));
            return x * scale;
        }
    throw std::invalid_argument(key + "=" + value +
                                (unit.empty() ? ": no unit" : ": unknown unit '" + unit + "'") +
                                ", expected " + expect);
}

void set_parameter(NetworkModel& net, const std::string& key, const std::string& value) {
    if (key == "alpha")
        net.alpha = parse_quantity(key, value, time_units, false);
    else if (key == "intra")
        net.intra_alpha = parse_quantity(key, value, time_units, false);
    else if (key == "beta")
        net.beta = parse_quantity(key, value, rate_units, true);
    else if (key == "copy")
        net.copy = parse_quantity(key, value, rate_units, true);
    else
        throw std::invalid_argument("unknown parameter '" + key +
                                    "': expected alpha, beta, copy or intra");
}

std::string seconds_text(double s) {
    std::ostringstream o;
    o << std::setprecision(3);
    if (s >= 1)
        o << s << " s";
    else if (s >= 1e-3)
        o << s * 1e3 << " ms";
    else
        o << s * 1e6 << " us";
    return o.str();
}

std::string rate_text(double bytes_per_second) {
    std::ostringstream o;
    o << std::setprecision(4) << bytes_per_second / 1e9 << " GB/s";
    return o.str();
}

// The pieces node k's processes send to distinct processes (the sides are
// one clique, process i on node i / per_node), from the senders' element
// counts: in time proportional to the pieces, without building their
// regions, one node at a time so that P^2 pieces are never held at once.
std::vector<NodePiece> node_pieces(const Side& send, const Side& recv, int per_node, int k) {
    const Index elem = send.dist->shape().elem_size();
    const int last = std::min(send.dist->nprocs(), (k + 1) * per_node);
    std::vector<NodePiece> out;
    for (int s = k * per_node; s < last; ++s)
        for (const PeerElements& peer : send_elements(send, recv, s))
            if (peer.peer != s)
                out.push_back({s, peer.peer, checked_mul(peer.elements, elem, "piece bytes")});
    return out;
}

void print_row(const char* name, const StrategyCost& c) {
    std::cout << std::left << std::setw(24) << name << std::right << std::setw(12)
              << c.per_node_pair << std::setw(14) << c.messages << std::setw(16) << c.bytes
              << std::setw(14) << c.intra_messages << std::setw(12) << seconds_text(c.seconds)
              << '\n';
}

// AUTO's pick and the part of its rule (core/node_traffic.hpp) that decides.
void print_auto(const NodeModel& m) {
    const NodeTraffic& t = m.traffic;
    std::cout << "AUTO (ordinary buffers) picks " << (m.auto_nodes ? "NODES" : "P2P") << ": ";
    if (t.nodes < 2)
        std::cout << "one node";
    else if (t.pair_messages <= t.node_pair_messages)
        std::cout << "aggregating saves no message (" << t.pair_messages << " between nodes)";
    else
        std::cout << t.pair_messages << " messages between nodes, " << t.node_pair_messages
                  << " aggregated; mean piece " << t.bytes / t.pair_messages << " bytes, "
                  << (m.auto_nodes ? "at most " : "more than ") << aggregation_max_mean_piece;
    std::cout << '\n';
}

} // namespace

NetworkModel parse_network_model(const std::string& text) {
    NetworkModel net;
    if (text == "defaults") return net;
    std::vector<std::string> seen;
    std::istringstream items(text);
    for (std::string item; std::getline(items, item, ',');) {
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument("'" + item + "': expected KEY=VALUE, e.g. alpha=2us");
        const std::string key = item.substr(0, eq);
        for (const std::string& k : seen)
            if (k == key) throw std::invalid_argument(key + " given twice");
        seen.push_back(key);
        set_parameter(net, key, item.substr(eq + 1));
    }
    if (seen.empty()) throw std::invalid_argument("no parameters: e.g. alpha=2us,beta=12.5GB/s");
    return net;
}

void print_node_model(const Side& send, const Side& recv, int per_node, const NetworkModel& net) {
    const int procs = send.dist->nprocs();
    std::vector<int> node_of;
    for (int p = 0; p < procs; ++p)
        node_of.push_back(p / per_node);
    const int nodes = (procs + per_node - 1) / per_node;
    const NodeModel m = model_nodes(
        nodes, [&](int k) { return node_pieces(send, recv, per_node, k); }, node_of, net);
    std::cout << "model: " << m.traffic.nodes << " node" << (m.traffic.nodes == 1 ? "" : "s")
              << " of " << per_node << " processes (process i on node i / " << per_node
              << ", the first of each node its leader)\n"
              << "network: alpha " << seconds_text(net.alpha) << " and beta " << rate_text(net.beta)
              << " between nodes, copy " << rate_text(net.copy) << " and "
              << seconds_text(net.intra_alpha) << " a message within a node\n"
              << std::left << std::setw(24) << "strategy" << std::right << std::setw(12)
              << "msgs/pair" << std::setw(14) << "msgs between" << std::setw(16) << "bytes between"
              << std::setw(14) << "msgs within" << std::setw(12) << "time" << '\n';
    print_row("P2P, PACKED, ALLTOALLW", m.p2p);
    print_row("NODES", m.nodes);
    std::cout << "(msgs/pair: the most messages an ordered pair of nodes carries; time: the "
                 "slowest node's, as modelled in docs/concepts.md)\n";
    print_auto(m);
}

} // namespace dri::plan_view

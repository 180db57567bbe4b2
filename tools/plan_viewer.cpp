// dri-plan: shows what a reorganization does, without MPI. For each process
// of each side: its grid coordinates, owned and stored global ranges, local
// extents and the bytes to allocate; then, for each sender -> receiver pair,
// the global ranges that move, and the receivers' zero-filled padding.
// With --svg FILE (1-D and 2-D data) it also draws the plan: the senders'
// blocks, the receivers' blocks (stored overlap dashed) and every piece
// that moves, coloured by sender and outlined by receiver. With
// --ranks-per-node K the processes are placed on nodes of K (process i, as
// a sender and as a receiver, on node i / K: the groups are the same
// processes in the same order, as in a clique), and every piece says how
// HYBRID moves it with send rings in DRI shared memory: a local copy, the
// single copy through node shared memory, or a message.
// --model (with --ranks-per-node) prints instead, for the same placement,
// each strategy's messages between nodes and a modelled time for the
// network parameters given, and what AUTO would pick (plan_model.hpp).
// --also-recv adds further receiving sides (a fan-out): each pair is printed,
// and drawn as one panel per receiving side. --reverse prints (and draws)
// the reverse of the first pair: which sender element each receiver cell
// goes back into, and which cells are halo copies.
#include "core/plan.hpp"
#include "core/spec.hpp"
#include "plan_model.hpp"
#include "plan_reverse.hpp"
#include "plan_svg.hpp"
#include "spec_options.hpp"

#include <CLI/CLI.hpp>
#include <dri/version.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>

using namespace dri::core;
using namespace dri::plan_view;

namespace {

// A box side: each member's boxes, in storage order.
void print_box_side(const char* name, const Distribution& d, const Layout& l) {
    std::cout << name << " side: " << d.nprocs() << " processes with boxes, layout " << to_string(l)
              << "\n  partition: " << partition_text(d) << '\n';
    for (int p = 0; p < d.nprocs(); ++p) {
        const LocalLayout ll = bind_layout(l, d.local_extents(p), d.shape().elem_size());
        std::cout << "  " << name << ' ' << p << ": owns " << products_text(owned_products(d, p))
                  << ", stored one after another: " << ll.extents[0] << " cells, allocate "
                  << ll.bytes << " bytes\n";
    }
}

void print_side(const char* name, const Distribution& d, const Layout& l) {
    if (d.boxes()) return print_box_side(name, d, l);
    std::cout << name << " side: " << d.nprocs() << " processes, grid ";
    for (std::size_t i = 0; i < d.grid().size(); ++i)
        std::cout << (i ? "x" : "") << d.grid()[i];
    if (d.grid_order() == GridOrder::column_major) std::cout << " column-major";
    std::cout << ", layout " << to_string(l) << "\n  partition:";
    for (const auto& dp : d.partition())
        std::cout << " [" << to_string(dp) << "]";
    std::cout << '\n';
    for (int p = 0; p < d.nprocs(); ++p) {
        const auto own = block_ranges(d, p, false), stored = block_ranges(d, p, true);
        const LocalLayout ll = bind_layout(l, d.local_extents(p), d.shape().elem_size());
        std::cout << "  " << name << ' ' << p << ": owns " << box_text(own);
        if (own != stored) std::cout << " stores " << box_text(stored);
        std::cout << " local ";
        for (std::size_t k = 0; k < ll.extents.size(); ++k)
            std::cout << (k ? "x" : "") << ll.extents[k];
        std::cout << ", allocate " << ll.bytes << " bytes\n";
    }
}

void print_region(const Region& r) {
    std::cout << "      send +" << r.s_off << ", recv +" << r.r_off << ", axes";
    for (const Axis& a : r.axes)
        std::cout << " {n " << a.n << ", send stride " << a.s << ", recv stride " << a.r << "}";
    std::cout << '\n';
}

// How HYBRID moves the piece sender s -> receiver r when process i is on
// node i / per_node (0: no node layout given).
enum class Move { local, shared_memory, message };

Move move_of(int s, int r, int per_node) {
    if (s == r) return Move::local;
    return s / per_node == r / per_node ? Move::shared_memory : Move::message;
}

const char* move_name(Move m) {
    return m == Move::local ? "local copy" : m == Move::shared_memory ? "shared memory" : "message";
}

const char* move_colour(Move m) {
    return m == Move::local ? "#8d99ae" : m == Move::shared_memory ? "#2a9d8f" : "#e76f51";
}

void write_svg(const std::string& file, const Side& send, const Side& recv, int per_node) {
    const Distribution& sd = *send.dist;
    const Distribution& rd = *recv.dist;
    const Shape& shape = sd.shape();
    const auto [rows, cols] = picture_extents(shape);
    Svg svg(rows, cols);
    draw_senders(svg, sd, "senders: owned blocks");
    svg.panel_at(1, "receivers: owned (stored dashed)");
    for (int r = 0; r < rd.nprocs(); ++r) {
        for (const Box2& b : boxes_of_all(owned_products(rd, r)))
            svg.box(b, colour(r), "#fff", "owned", "r" + std::to_string(r));
        if (rd.boxes()) continue; // no overlap
        const auto stored = block_ranges(rd, r, true);
        if (stored != block_ranges(rd, r, false))
            for (const Box2& b : boxes(stored))
                svg.box(b, "none", colour(r), "stored", "");
    }
    svg.panel_at(2, "moves: sender colour, receiver outline");
    const int pieces = draw_pieces(svg, send, recv);
    svg.note(0, to_string(shape) + ", " + std::to_string(sd.nprocs()) + " senders (layout " +
                    to_string(send.layout) + ") -> " + std::to_string(rd.nprocs()) +
                    " receivers (layout " + to_string(recv.layout) + ")");
    svg.note(1, std::to_string(pieces) + " pieces move; a piece is a box of global indices "
                                         "that one sender sends to one receiver");
    if (per_node > 0) {
        svg.panel_at(3, "HYBRID, " + std::to_string(per_node) + " processes per node");
        int count[3] = {0, 0, 0};
        for (int s = 0; s < sd.nprocs(); ++s)
            for (int r = 0; r < rd.nprocs(); ++r)
                for (const Box2& b : boxes_of_all(pair_products(send, recv, s, r))) {
                    const Move m = move_of(s, r, per_node);
                    svg.box(b, move_colour(m), "#fff", "piece",
                            std::to_string(s) + "\u2192" + std::to_string(r));
                    ++count[static_cast<int>(m)];
                }
        svg.note(2, "HYBRID: grey " + std::to_string(count[0]) + " local copies, green " +
                        std::to_string(count[1]) +
                        " single copies through node shared memory, "
                        "orange " +
                        std::to_string(count[2]) + " messages between nodes");
    }
    save(file, svg.finish(per_node > 0 ? 4 : 3, per_node > 0 ? 3 : 2));
}

// A fan-out: the senders' blocks once, then one panel per receiving side
// with its pieces coloured by sender (stored overlap dashed).
void write_fanout_svg(const std::string& file, const Side& send, const std::vector<Side>& recvs) {
    const auto [rows, cols] = picture_extents(send.dist->shape());
    Svg svg(rows, cols);
    draw_senders(svg, *send.dist, "sending side: owned blocks");
    for (std::size_t i = 0; i < recvs.size(); ++i) {
        const Distribution& rd = *recvs[i].dist;
        svg.panel_at(static_cast<int>(i) + 1,
                     "receiving side " + std::to_string(i + 1) + ": pieces by sender");
        const int pieces = draw_pieces(svg, send, recvs[i]);
        for (int r = 0; r < rd.nprocs() && !rd.boxes(); ++r) {
            const auto stored = block_ranges(rd, r, true);
            if (stored != block_ranges(rd, r, false))
                for (const Box2& b : boxes(stored))
                    svg.box(b, "none", colour(r), "stored", "");
        }
        svg.note(static_cast<int>(i) + 1,
                 "receiving side " + std::to_string(i + 1) + ": " + partition_text(rd) + ", " +
                     std::to_string(rd.nprocs()) + " receivers (layout " +
                     to_string(recvs[i].layout) + "), " + std::to_string(pieces) + " pieces");
    }
    svg.note(0, to_string(send.dist->shape()) + ", sending side " + partition_text(*send.dist) +
                    ", " + std::to_string(send.dist->nprocs()) +
                    " senders; a piece (sender colour, receiver outline) is planned per pair");
    const int n = static_cast<int>(recvs.size());
    save(file, svg.finish(n + 1, n + 1));
}

// A further receiving side: --also-recv PARTITION[@PROCS][:order=LIST]. The
// process count defaults to the product of the partition's /nprocs, else to
// the senders'.
struct RecvSpec {
    Partition part;
    int procs = 0;
    std::string order;
};

RecvSpec parse_recv_spec(std::string t, int senders) {
    RecvSpec out;
    if (const auto k = t.find(":order="); k != std::string::npos) {
        out.order = t.substr(k + 7);
        t.erase(k);
    }
    if (const auto k = t.find('@'); k != std::string::npos) {
        const std::vector<Index> n = parse_list(t.substr(k + 1));
        if (n.size() != 1 || n[0] < 1 || n[0] > 1000000000)
            fail(Errc::arg, "--also-recv: bad process count in '" + t + "'");
        out.procs = static_cast<int>(n[0]);
        t.erase(k);
    }
    out.part = parse_partition(t);
    if (out.procs == 0) {
        out.procs = 1;
        for (const DimPartition& dp : out.part) {
            const int n = dp.kind == PartKind::ranges  ? static_cast<int>(dp.ranges.size())
                          : dp.kind == PartKind::whole ? 1
                                                       : dp.nprocs;
            if (n <= 0) {
                out.procs = senders;
                break;
            }
            out.procs *= n;
        }
    }
    return out;
}

// The moves and fills of one pair, and its totals.
void print_pair(const Side& send, const Side& recv, bool show_regions, int per_node) {
    const Index elem = send.dist->shape().elem_size();
    std::cout << "moves (sender -> receiver: global ranges per dimension):\n";
    Index total_msgs = 0, total_bytes = 0;
    for (int s = 0; s < send.dist->nprocs(); ++s) {
        const LocalPlan plan = plan_local(send, recv, s, -1);
        for (const PeerRegions& peer : plan.sends) {
            const Index bytes = peer.elements * elem;
            std::cout << "  " << s << " -> " << peer.peer << ": "
                      << products_text(pair_products(send, recv, s, peer.peer)) << "  "
                      << peer.elements << " elements, " << bytes << " bytes, "
                      << peer.regions.size() << " region" << (peer.regions.size() == 1 ? "" : "s");
            if (per_node > 0)
                std::cout << ", HYBRID: " << move_name(move_of(s, peer.peer, per_node));
            std::cout << '\n';
            if (show_regions)
                for (const Region& r : peer.regions)
                    print_region(r);
            ++total_msgs;
            total_bytes += bytes;
        }
    }
    for (int r = 0; r < recv.dist->nprocs(); ++r) {
        const LocalPlan plan = plan_local(send, recv, -1, r);
        if (plan.fills.empty()) continue;
        Index cells = 0;
        for (const Region& f : plan.fills)
            cells += f.elements();
        std::cout << "  receiver " << r << " zero-fills " << cells << " padding cells in "
                  << plan.fills.size() << " region" << (plan.fills.size() == 1 ? "" : "s") << '\n';
    }
    std::cout << "total: " << total_msgs << " sender -> receiver pieces, " << total_bytes
              << " bytes\n";
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app("dri-plan: shows what a reorganization does, without MPI", "dri-plan");
    app.set_version_flag("--version", "dri-plan (dri) " DRI_VERSION_STRING,
                         "print the version of dri it was built with and exit");
    dri::tools::SpecOptions o;
    dri::tools::add_spec_options(app, o, "2", "as many as senders");
    app.get_option("--shape")->required();
    app.get_option("--send")->required();
    app.get_option("--recv")->required();
    bool show_regions = false, reverse = false;
    std::string svg_file;
    std::vector<std::string> also;
    app.add_flag("--regions", show_regions,
                 "also print each region (byte offsets, extents, strides)");
    app.add_option("--svg", svg_file, "draw the plan as SVG (1-D and 2-D data)");
    int per_node = 0;
    CLI::Option* rpn =
        app.add_option("--ranks-per-node", per_node,
                       "place process i on node i / K and say how HYBRID moves each piece "
                       "(the sides must be the same processes)")
            ->check(CLI::PositiveNumber);
    std::string model_text;
    CLI::Option* model =
        app.add_option("--model", model_text,
                       "instead of the pieces, print each strategy's messages between nodes and "
                       "modelled time on the nodes of --ranks-per-node, and AUTO's pick: "
                       "alpha=2us,beta=12.5GB/s,copy=5GB/s,intra=0.5us (latency and bandwidth "
                       "between nodes, copy bandwidth and latency within a node; keys left out "
                       "take these values, 'defaults' all of them)")
            ->needs(rpn)
            ->check(CLI::Validator(
                [](std::string& text) {
                    try {
                        parse_network_model(text);
                        return std::string();
                    } catch (const std::invalid_argument& e) {
                        return std::string(e.what());
                    }
                },
                "PARAMETERS"));
    app.add_option("--also-recv", also,
                   "a further receiving side of the same data (fan-out), repeatable: "
                   "PARTITION[@PROCS][:order=LIST], e.g. block/3~1:1:wrap,whole or "
                   "whole,block@2:order=1,0 (default PROCS: the product of the /nprocs, "
                   "else as many as senders)")
        ->take_all()
        ->allow_extra_args(false);
    GridOrder send_grid = GridOrder::row_major, recv_grid = GridOrder::row_major;
    const std::map<std::string, GridOrder> grid_orders{{"row", GridOrder::row_major},
                                                       {"column", GridOrder::column_major}};
    app.add_option("--send-grid", send_grid,
                   "how sender indices number the process grid: row (the last grid "
                   "dimension varies fastest, default) or column (the first, BLACS 'C')")
        ->transform(CLI::CheckedTransformer(grid_orders));
    app.add_option("--recv-grid", recv_grid, "the same for the receivers")
        ->transform(CLI::CheckedTransformer(grid_orders));
    app.add_flag("--reverse", reverse,
                 "print (and with --svg draw) the reverse of the first pair: which sender "
                 "element each receiver cell goes back into, halo copies marked");
    for (const char* other : {"--svg", "--regions", "--also-recv", "--reverse"})
        model->excludes(other); // it models one forward pair, in text
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "dri-plan: " << e.what() << "\nRun with --help for the options.\n";
        return 2;
    }
    try {
        const Shape shape(parse_shape(o.shape), parse_type(o.type));
        using dri::tools::implied_procs;
        using dri::tools::make_distribution;
        const int ps = o.send_procs > 0            ? o.send_procs
                       : implied_procs(o.send) > 0 ? implied_procs(o.send)
                                                   : 2;
        const int pr = o.recv_procs > 0            ? o.recv_procs
                       : implied_procs(o.recv) > 0 ? implied_procs(o.recv)
                                                   : ps;
        const Distribution sd = make_distribution(shape, o.send, ps, send_grid);
        using dri::tools::make_layout;
        const Side send{&sd, make_layout(shape.ndims(), o.send_order, o.send_pad, o.send_strides)};
        std::vector<Distribution> rds{make_distribution(shape, o.recv, pr, recv_grid)};
        std::vector<Layout> layouts{
            make_layout(shape.ndims(), o.recv_order, o.recv_pad, o.recv_strides)};
        for (const std::string& text : also) {
            const RecvSpec spec = parse_recv_spec(text, ps);
            rds.emplace_back(shape, spec.part, spec.procs);
            layouts.push_back(make_layout(shape.ndims(), spec.order, "", ""));
        }
        std::vector<Side> recvs;
        for (std::size_t i = 0; i < rds.size(); ++i) {
            recvs.push_back(Side{&rds[i], layouts[i]});
            check_sides(send, recvs.back());
            if (per_node > 0 && ps != rds[i].nprocs())
                fail(Errc::arg, "--ranks-per-node needs as many senders as receivers (one clique)");
        }
        if (reverse && (sd.boxes() || rds[0].boxes()))
            fail(Errc::arg, "--reverse shows ordinary partitions only: with a box side, the "
                            "reverse moves the forward pieces back (drop --reverse to see them)");
        if (per_node > 0 && !svg_file.empty() && (recvs.size() > 1 || reverse))
            fail(Errc::arg, "--ranks-per-node --svg draws one forward pair");
        const bool fanout = recvs.size() > 1;
        if (!model_text.empty()) {
            std::cout << "dri-plan: " << to_string(shape) << " (" << shape.bytes() << " bytes), "
                      << ps << " senders -> " << pr << " receivers\n";
            print_node_model(send, recvs[0], per_node, parse_network_model(model_text));
            return 0;
        }

        std::cout << "dri-plan: " << to_string(shape) << " (" << shape.bytes() << " bytes), " << ps
                  << " senders -> " << pr << " receivers";
        for (std::size_t i = 1; i < rds.size(); ++i)
            std::cout << " + " << rds[i].nprocs() << " receivers";
        std::cout << '\n';
        print_side("sender", sd, send.layout);
        for (std::size_t i = 0; i < recvs.size(); ++i) {
            if (fanout)
                std::cout << "receiving side " << i + 1 << ": " << partition_text(rds[i])
                          << ", planned as a pair with the sending side\n";
            print_side("receiver", rds[i], recvs[i].layout);
            print_pair(send, recvs[i], show_regions, per_node);
        }
        if (reverse) print_reverse(send, recvs[0]);
        if (!svg_file.empty()) {
            if (reverse)
                write_reverse_svg(svg_file, send, recvs[0]);
            else if (fanout)
                write_fanout_svg(svg_file, send, recvs);
            else
                write_svg(svg_file, send, recvs[0], per_node);
            std::cout << "wrote " << svg_file << '\n';
        }
    } catch (const Error& e) {
        std::cerr << "dri-plan: " << errc_name(e.code()) << ": " << e.what() << '\n';
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "dri-plan: " << e.what() << '\n';
        return 2;
    }
    return 0;
}

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
#include "core/plan.hpp"
#include "core/spec.hpp"
#include "spec_options.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

using namespace dri::core;

namespace {

std::string ranges_text(const std::vector<Range>& rs, std::size_t limit = 6) {
    std::string s;
    for (std::size_t i = 0; i < rs.size(); ++i) {
        if (i == limit) return s + " ... (" + std::to_string(rs.size()) + " ranges)";
        if (i) s += " ";
        s += std::to_string(rs[i].first) + ":" + std::to_string(rs[i].last);
    }
    return s.empty() ? "-" : s;
}

std::string box_text(const std::vector<std::vector<Range>>& box) {
    std::string s;
    for (const auto& d : box)
        s += "[" + ranges_text(d) + "]";
    return s;
}

// Owned (stored = false) or stored ranges of process p, per dimension.
std::vector<std::vector<Range>> block_ranges(const Distribution& d, int p, bool stored) {
    const std::vector<int> c = d.coords(p);
    std::vector<std::vector<Range>> out(c.size());
    for (std::size_t k = 0; k < c.size(); ++k)
        for (Index s = 0; s < d.segment_count(static_cast<int>(k), c[k]); ++s) {
            const Segment seg = d.segment(static_cast<int>(k), c[k], s);
            out[k].push_back(stored ? Range{seg.lo, seg.hi - 1}
                                    : Range{seg.own_lo, seg.own_hi - 1});
        }
    return out;
}

void print_side(const char* name, const Distribution& d, const Layout& l) {
    std::cout << name << " side: " << d.nprocs() << " processes, grid ";
    for (std::size_t i = 0; i < d.grid().size(); ++i)
        std::cout << (i ? "x" : "") << d.grid()[i];
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

// --- SVG -------------------------------------------------------------------

const char* const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                               "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"};
const char* colour(int p) {
    return palette[p % 10];
}

// Cells of the global array as one or more boxes of [first, last] ranges per
// dimension; 1-D data is drawn as one row.
using Box2 = std::pair<Range, Range>; // rows, columns

std::vector<Box2> boxes(const std::vector<std::vector<Range>>& per_dim) {
    std::vector<Box2> out;
    if (per_dim.empty()) return out; // nothing (a pair that exchanges nothing)
    if (per_dim.size() == 1) {
        for (const Range& c : per_dim[0])
            out.push_back({{0, 0}, c});
        return out;
    }
    for (const Range& r : per_dim[0])
        for (const Range& c : per_dim[1])
            out.push_back({r, c});
    return out;
}

class Svg {
  public:
    Svg(Index rows, Index cols) : rows_(rows), cols_(cols) {
        cell_ = std::min(panel / static_cast<double>(cols), panel / static_cast<double>(rows));
    }
    // One panel: its title and origin.
    void panel_at(int i, const std::string& title) {
        x0_ = margin + i * (panel + gap);
        out_ << "<text x='" << x0_ << "' y='" << margin - 12 << "' class='title'>" << title
             << "</text>\n";
        out_ << "<rect x='" << x0_ << "' y='" << margin << "' width='" << cols_ * cell_
             << "' height='" << rows_ * cell_ << "' class='frame'/>\n";
    }
    void box(const Box2& b, const std::string& fill, const std::string& stroke,
             const std::string& cls, const std::string& label) {
        // Stored cells may lie outside the array (edge padding): clip to it.
        const Index c0 = std::max<Index>(b.second.first, 0),
                    c1 = std::min(b.second.last, cols_ - 1);
        const Index r0 = std::max<Index>(b.first.first, 0), r1 = std::min(b.first.last, rows_ - 1);
        if (c0 > c1 || r0 > r1) return;
        const double x = x0_ + static_cast<double>(c0) * cell_;
        const double y = margin + static_cast<double>(r0) * cell_;
        const double w = static_cast<double>(c1 - c0 + 1) * cell_;
        const double h = static_cast<double>(r1 - r0 + 1) * cell_;
        out_ << "<rect x='" << x << "' y='" << y << "' width='" << w << "' height='" << h
             << "' fill='" << fill << "' stroke='" << stroke << "' class='" << cls << "'/>\n";
        if (!label.empty() && w >= 22 && h >= 14)
            out_ << "<text x='" << x + w / 2 << "' y='" << y + h / 2 + 4 << "' class='label'>"
                 << label << "</text>\n";
    }
    void note(int line, const std::string& text) {
        out_ << "<text x='" << margin << "' y='" << margin + rows_ * cell_ + 24 + 16 * line
             << "' class='note'>" << text << "</text>\n";
    }
    std::string finish(int panels, int notes) const {
        std::ostringstream svg;
        const double w = 2 * margin + panels * panel + (panels - 1) * gap;
        const double h = margin + rows_ * cell_ + 24 + 16 * notes + 8;
        svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
            << "' viewBox='0 0 " << w << ' ' << h << "'>\n"
            << "<style>text{font-family:sans-serif;font-size:12px}"
               ".title{font-size:14px;font-weight:bold}.label{text-anchor:middle;fill:#fff}"
               ".note{fill:#333}.frame{fill:none;stroke:#000;stroke-width:1.5}"
               ".owned{stroke-width:1;fill-opacity:0.85}.stored{fill:none;stroke-width:2;"
               "stroke-dasharray:5 3}.piece{stroke-width:2.5;fill-opacity:0.85}</style>\n"
            << "<rect width='100%' height='100%' fill='#fff'/>\n"
            << out_.str() << "</svg>\n";
        return svg.str();
    }

  private:
    static constexpr double panel = 300, gap = 40, margin = 30;
    Index rows_, cols_;
    double cell_ = 1, x0_ = 0;
    std::ostringstream out_;
};

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
    if (shape.ndims() > 2) fail(Errc::arg, "--svg draws 1-D and 2-D data only");
    const Index rows = shape.ndims() == 2 ? shape.extent(0) : 1;
    const Index cols = shape.extent(shape.ndims() - 1);
    Svg svg(rows, cols);
    svg.panel_at(0, "senders: owned blocks");
    for (int s = 0; s < sd.nprocs(); ++s)
        for (const Box2& b : boxes(block_ranges(sd, s, false)))
            svg.box(b, colour(s), "#fff", "owned", "s" + std::to_string(s));
    svg.panel_at(1, "receivers: owned (stored dashed)");
    for (int r = 0; r < rd.nprocs(); ++r) {
        for (const Box2& b : boxes(block_ranges(rd, r, false)))
            svg.box(b, colour(r), "#fff", "owned", "r" + std::to_string(r));
        const auto stored = block_ranges(rd, r, true);
        if (stored != block_ranges(rd, r, false))
            for (const Box2& b : boxes(stored))
                svg.box(b, "none", colour(r), "stored", "");
    }
    svg.panel_at(2, "moves: sender colour, receiver outline");
    int pieces = 0;
    for (int s = 0; s < sd.nprocs(); ++s)
        for (int r = 0; r < rd.nprocs(); ++r)
            for (const Box2& b : boxes(pair_global_ranges(send, recv, s, r))) {
                svg.box(b, colour(s), colour(r), "piece",
                        std::to_string(s) + "\u2192" + std::to_string(r));
                ++pieces;
            }
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
                for (const Box2& b : boxes(pair_global_ranges(send, recv, s, r))) {
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
    std::ofstream f(file);
    f << svg.finish(per_node > 0 ? 4 : 3, per_node > 0 ? 3 : 2);
    if (!f) fail(Errc::arg, "cannot write " + file);
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app("dri-plan: shows what a reorganization does, without MPI", "dri-plan");
    dri::tools::SpecOptions o;
    dri::tools::add_spec_options(app, o, "2", "as many as senders");
    app.get_option("--shape")->required();
    app.get_option("--send")->required();
    app.get_option("--recv")->required();
    bool show_regions = false;
    std::string svg_file;
    app.add_flag("--regions", show_regions,
                 "also print each region (byte offsets, extents, strides)");
    app.add_option("--svg", svg_file, "draw the plan as SVG (1-D and 2-D data)");
    int per_node = 0;
    app.add_option("--ranks-per-node", per_node,
                   "place process i on node i / K and say how HYBRID moves each piece "
                   "(the sides must be the same processes)")
        ->check(CLI::PositiveNumber);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "dri-plan: " << e.what() << "\nRun with --help for the options.\n";
        return 2;
    }
    try {
        const Shape shape(parse_shape(o.shape), parse_type(o.type));
        const int ps = o.send_procs > 0 ? o.send_procs : 2;
        const int pr = o.recv_procs > 0 ? o.recv_procs : ps;
        const Distribution sd(shape, parse_partition(o.send), ps);
        const Distribution rd(shape, parse_partition(o.recv), pr);
        using dri::tools::make_layout;
        const Side send{&sd, make_layout(shape.ndims(), o.send_order, o.send_pad, o.send_strides)};
        const Side recv{&rd, make_layout(shape.ndims(), o.recv_order, o.recv_pad, o.recv_strides)};
        check_sides(send, recv);
        if (per_node > 0 && ps != pr)
            fail(Errc::arg, "--ranks-per-node needs as many senders as receivers (one clique)");

        std::cout << "dri-plan: " << to_string(shape) << " (" << shape.bytes() << " bytes), " << ps
                  << " senders -> " << pr << " receivers\n";
        print_side("sender", sd, send.layout);
        print_side("receiver", rd, recv.layout);
        std::cout << "moves (sender -> receiver: global ranges per dimension):\n";
        Index total_msgs = 0, total_bytes = 0;
        for (int s = 0; s < ps; ++s) {
            const LocalPlan plan = plan_local(send, recv, s, -1);
            for (const PeerRegions& peer : plan.sends) {
                const Index bytes = peer.elements * shape.elem_size();
                std::cout << "  " << s << " -> " << peer.peer << ": "
                          << box_text(pair_global_ranges(send, recv, s, peer.peer)) << "  "
                          << peer.elements << " elements, " << bytes << " bytes, "
                          << peer.regions.size() << " region"
                          << (peer.regions.size() == 1 ? "" : "s");
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
        for (int r = 0; r < pr; ++r) {
            const LocalPlan plan = plan_local(send, recv, -1, r);
            if (plan.fills.empty()) continue;
            Index cells = 0;
            for (const Region& f : plan.fills)
                cells += f.elements();
            std::cout << "  receiver " << r << " zero-fills " << cells << " padding cells in "
                      << plan.fills.size() << " region" << (plan.fills.size() == 1 ? "" : "s")
                      << '\n';
        }
        std::cout << "total: " << total_msgs << " sender -> receiver pieces, " << total_bytes
                  << " bytes\n";
        if (!svg_file.empty()) {
            write_svg(svg_file, send, recv, per_node);
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

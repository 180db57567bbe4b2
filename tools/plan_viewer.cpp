// dri-plan: shows what a reorganization does, without MPI. For each process
// of each side: its grid coordinates, owned and stored global ranges, local
// extents and the bytes to allocate; then, for each sender -> receiver pair,
// the global ranges that move, and the receivers' zero-filled padding.
#include "plan.hpp"
#include "spec.hpp"

#include <cstring>
#include <iostream>
#include <map>
#include <string>

using namespace dri::core;

namespace {

const char* usage =
    "usage: dri-plan --shape AxB[xC...] --send PART --recv PART [options]\n"
    "  --type T            float double cfloat cdouble int8..uint64 byte recordN (default float)\n"
    "  --send PART         sending partition, one item per dimension, e.g. block,whole\n"
    "  --recv PART         receiving partition, e.g. whole,block~2:2:wrap\n"
    "                      item := whole | block | block[min:max] | cyclic(b) | "
    "ranges(f:l|f:l...)\n"
    "                              followed by /nprocs and "
    "~left:right[:truncate|zero|replicate|wrap]\n"
    "  --send-procs N      processes on the sending side (default 2)\n"
    "  --recv-procs N      processes on the receiving side (default: same)\n"
    "  --send-order LIST   layout order, slowest dimension first (default 0,1,...)\n"
    "  --recv-order LIST   e.g. 1,0 stores dimension 0 contiguously\n"
    "  --send-pad LIST     extra elements per dimension (padding)\n"
    "  --recv-pad LIST\n"
    "  --send-strides LIST explicit element strides instead of order and padding\n"
    "  --recv-strides LIST\n"
    "  --regions           also print each region (byte offsets, extents, strides)\n";

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

Layout make_layout(int nd, const std::string& order, const std::string& pad,
                   const std::string& strides) {
    if (!strides.empty()) return Layout::strided(parse_list(strides));
    std::vector<int> o;
    for (Index v : parse_list(order))
        o.push_back(static_cast<int>(v));
    if (o.empty())
        return pad.empty() ? Layout::packed(nd)
                           : Layout::ordered(
                                 [&] {
                                     std::vector<int> id(static_cast<std::size_t>(nd));
                                     for (int i = 0; i < nd; ++i)
                                         id[static_cast<std::size_t>(i)] = i;
                                     return id;
                                 }(),
                                 parse_list(pad));
    return Layout::ordered(o, parse_list(pad));
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
        const std::vector<int> c = d.coords(p);
        std::vector<std::vector<Range>> own(c.size()), stored(c.size());
        for (std::size_t k = 0; k < c.size(); ++k) {
            const int dim = static_cast<int>(k);
            for (Index s = 0; s < d.segment_count(dim, c[k]); ++s) {
                const Segment seg = d.segment(dim, c[k], s);
                own[k].push_back({seg.own_lo, seg.own_hi - 1});
                stored[k].push_back({seg.lo, seg.hi - 1});
            }
        }
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

} // namespace

int main(int argc, char** argv) {
    std::map<std::string, std::string> opt{{"--type", "float"}, {"--send-procs", "2"}};
    bool show_regions = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::cout << usage;
            return 0;
        }
        if (a == "--regions") {
            show_regions = true;
            continue;
        }
        if (a.rfind("--", 0) != 0 || i + 1 >= argc) {
            std::cerr << "dri-plan: unexpected argument '" << a << "'\n" << usage;
            return 2;
        }
        opt[a] = argv[++i];
    }
    for (const char* need : {"--shape", "--send", "--recv"})
        if (!opt.count(need)) {
            std::cerr << "dri-plan: " << need << " is required\n" << usage;
            return 2;
        }
    try {
        const Shape shape(parse_shape(opt["--shape"]), parse_type(opt["--type"]));
        const int ps = static_cast<int>(parse_list(opt["--send-procs"]).at(0));
        const int pr = opt.count("--recv-procs")
                           ? static_cast<int>(parse_list(opt["--recv-procs"]).at(0))
                           : ps;
        const Distribution sd(shape, parse_partition(opt["--send"]), ps);
        const Distribution rd(shape, parse_partition(opt["--recv"]), pr);
        const Side send{&sd, make_layout(shape.ndims(), opt["--send-order"], opt["--send-pad"],
                                         opt["--send-strides"])};
        const Side recv{&rd, make_layout(shape.ndims(), opt["--recv-order"], opt["--recv-pad"],
                                         opt["--recv-strides"])};
        check_sides(send, recv);

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
                          << (peer.regions.size() == 1 ? "" : "s") << '\n';
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
    } catch (const Error& e) {
        std::cerr << "dri-plan: " << errc_name(e.code()) << ": " << e.what() << '\n';
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "dri-plan: " << e.what() << '\n';
        return 2;
    }
    return 0;
}

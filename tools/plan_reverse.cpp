#include "plan_reverse.hpp"

#include "core/reverse_plan.hpp"
#include "plan_svg.hpp"

#include <iostream>
#include <map>
#include <numeric>

namespace dri::plan_view {

namespace {

// What one receiver cell gives back in the reverse: the sender whose element
// it copies (-1: a zero-padded cell, which gives nothing) and how.
enum class Copy { owner, halo, wrapped, replicated };
struct Back {
    int sender = -1;
    Copy copy = Copy::owner;
};

const char* copy_name(Copy c) {
    return c == Copy::owner     ? "owner's copies"
           : c == Copy::halo    ? "halo copies (another receiver owns the cell)"
           : c == Copy::wrapped ? "wrap-around copies (other end)"
                                : "replicated edge copies";
}

// Receiver r's stored cells, row-major over its local extents, from the
// reverse of its real plan: every region's receiver-buffer element is mapped
// back to its local index, then through the segments to its global index.
std::vector<Back> reverse_cells(const Side& send, const Side& recv, int r,
                                std::vector<Index>& extents) {
    const Distribution& rd = *recv.dist;
    const LocalPlan rev = reverse_plan(plan_local(send, recv, -1, r));
    const LocalLayout& ll = rev.send_layout; // the receiver's buffer, now sent
    extents = ll.extents;
    const std::size_t nd = extents.size();
    std::vector<std::size_t> by_stride(nd); // to turn an offset into an index
    std::iota(by_stride.begin(), by_stride.end(), std::size_t{0});
    std::sort(by_stride.begin(), by_stride.end(),
              [&](std::size_t a, std::size_t b) { return ll.strides[a] > ll.strides[b]; });
    const std::vector<int> c = rd.coords(r);
    std::vector<Back> out(static_cast<std::size_t>(ll.cells()));
    const auto mark = [&](int s, Index element) {
        std::vector<Index> idx(nd, 0);
        for (std::size_t d : by_stride) {
            if (ll.strides[d] == 0) continue;
            idx[d] = element / ll.strides[d];
            element %= ll.strides[d];
        }
        Back b{s, Copy::owner};
        Index linear = 0;
        for (std::size_t d = 0; d < nd; ++d) {
            const int dim = static_cast<int>(d);
            for (Index k = 0; k < rd.segment_count(dim, c[d]); ++k) {
                const Segment seg = rd.segment(dim, c[d], k);
                if (idx[d] < seg.local || idx[d] >= seg.local + seg.hi - seg.lo) continue;
                const Index g = seg.lo + idx[d] - seg.local;
                if (g < 0 || g >= rd.shape().extent(dim))
                    b.copy = rd.partition()[d].edge == EdgePolicy::wrap ? Copy::wrapped
                                                                        : Copy::replicated;
                else if ((g < seg.own_lo || g >= seg.own_hi) && b.copy == Copy::owner)
                    b.copy = Copy::halo;
            }
            linear = linear * extents[d] + idx[d];
        }
        out[static_cast<std::size_t>(linear)] = b;
    };
    const auto walk = [&](int s, const Region& g) {
        std::vector<Index> i(g.axes.size(), 0);
        for (;;) {
            Index off = g.s_off;
            for (std::size_t k = 0; k < i.size(); ++k)
                off += i[k] * g.axes[k].s;
            mark(s, off / ll.elem_size);
            std::size_t k = i.size();
            while (k > 0 && ++i[k - 1] == g.axes[k - 1].n)
                i[--k] = 0;
            if (k == 0) return;
        }
    };
    for (const PeerRegions& p : rev.sends)
        for (const Region& g : p.regions)
            walk(p.peer, g);
    for (const Region& g : rev.self)
        walk(r, g);
    return out;
}

} // namespace

void print_reverse(const Side& send, const Side& recv) {
    std::cout << "reverse (receiver -> sender: the sender elements its cells go back into; "
                 "SUM, MAX, MIN combine every copy, REPLACE takes the owner's):\n";
    for (int r = 0; r < recv.dist->nprocs(); ++r) {
        std::vector<Index> extents;
        std::map<int, std::map<Copy, Index>> count; // sender -> kind of copy -> cells
        for (const Back& b : reverse_cells(send, recv, r, extents))
            ++count[b.sender][b.copy];
        for (const auto& [s, kinds] : count) {
            if (s < 0) continue;
            Index cells = 0;
            std::string how;
            for (const auto& [copy, n] : kinds) {
                cells += n;
                how += (how.empty() ? "" : ", ") + std::to_string(n) + " " + copy_name(copy);
            }
            std::cout << "  receiver " << r << " -> sender " << s << ": "
                      << box_text(pair_global_ranges(send, recv, s, r)) << "  " << cells
                      << " cells: " << how << '\n';
        }
        Index owned = 0; // what REPLACE takes back (Cells::owned)
        for (const PeerRegions& p : plan_local(send, recv, -1, r, Cells::owned).recvs)
            owned += p.elements;
        std::cout << "  receiver " << r << ": REPLACE takes back its " << owned << " owned cells";
        if (count.contains(-1))
            std::cout << "; " << count[-1][Copy::owner] << " zero-padded cells give nothing";
        std::cout << '\n';
    }
}

// One panel per receiver, in its local cells: each coloured by the sender
// it goes back into, halo copies outlined dashed black and labelled +sN.
void write_reverse_svg(const std::string& file, const Side& send, const Side& recv) {
    const Distribution& rd = *recv.dist;
    auto [rows, cols] = picture_extents(rd.shape());
    std::vector<std::vector<Back>> cells(static_cast<std::size_t>(rd.nprocs()));
    std::vector<std::pair<Index, Index>> local(cells.size());
    for (int r = 0; r < rd.nprocs(); ++r) {
        std::vector<Index> e;
        cells[static_cast<std::size_t>(r)] = reverse_cells(send, recv, r, e);
        local[static_cast<std::size_t>(r)] = {e.size() == 2 ? e[0] : 1, e.back()};
        rows = std::max(rows, local[static_cast<std::size_t>(r)].first);
        cols = std::max(cols, local[static_cast<std::size_t>(r)].second);
    }
    Svg svg(rows, cols);
    draw_senders(svg, *send.dist, "senders: where the copies add in");
    for (int r = 0; r < rd.nprocs(); ++r) {
        const auto [lr, lc] = local[static_cast<std::size_t>(r)];
        const std::vector<Back>& cs = cells[static_cast<std::size_t>(r)];
        svg.panel_at(r + 1, "receiver " + std::to_string(r) + ": cells go back to", lr, lc);
        for (Index i = 0; i < lr; ++i)
            for (Index j = 0, j1; j < lc; j = j1) { // runs of cells that go the same way
                const Back b = cs[static_cast<std::size_t>(i * lc + j)];
                for (j1 = j + 1; j1 < lc; ++j1) {
                    const Back n = cs[static_cast<std::size_t>(i * lc + j1)];
                    if (n.sender != b.sender || n.copy != b.copy) break;
                }
                const Box2 box{{i, i}, {j, j1 - 1}};
                const std::string s = std::to_string(b.sender);
                if (b.sender < 0)
                    svg.box(box, "#bbb", "#fff", "zero", "0");
                else if (b.copy == Copy::owner)
                    svg.box(box, colour(b.sender), "#fff", "owned", "s" + s);
                else
                    svg.box(box, colour(b.sender), "#000", "halo", "+s" + s);
            }
    }
    svg.note(0, "reverse of " + to_string(rd.shape()) + ": " + std::to_string(rd.nprocs()) +
                    " receivers (" + to_string(rd.partition()) + ") -> " +
                    std::to_string(send.dist->nprocs()) + " senders (" +
                    to_string(send.dist->partition()) + "), drawn in each receiver's local cells");
    svg.note(1, "a cell has the colour of the sender element it goes back into; dashed black "
                "(+sN): a halo copy that combines into that element; grey: zero padding, "
                "gives nothing");
    save(file, svg.finish(rd.nprocs() + 1, 2));
}

} // namespace dri::plan_view

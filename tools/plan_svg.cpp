#include "plan_svg.hpp"

#include <fstream>

namespace dri::plan_view {

namespace {
const char* const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                               "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"};
} // namespace

std::string ranges_text(const std::vector<Range>& rs, std::size_t limit) {
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

const char* colour(int p) {
    return palette[p % 10];
}

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

std::vector<RangeProduct> owned_products(const Distribution& d, int p) {
    if (!d.boxes()) return {block_ranges(d, p, false)};
    std::vector<RangeProduct> out;
    for (const Box& b : d.boxes()->boxes(p)) {
        if (b.empty()) continue;
        RangeProduct prod;
        for (std::size_t k = 0; k < b.first.size(); ++k)
            prod.push_back({Range{b.first[k], b.last[k]}});
        out.push_back(std::move(prod));
    }
    return out;
}

std::vector<RangeProduct> pair_products(const Side& send, const Side& recv, int s, int r) {
    if (send.dist->boxes() || recv.dist->boxes()) return pair_global_boxes(send, recv, s, r);
    RangeProduct p = pair_global_ranges(send, recv, s, r);
    if (p.empty()) return {};
    return {p};
}

std::string products_text(const std::vector<RangeProduct>& ps) {
    std::string out;
    for (std::size_t k = 0; k < ps.size(); ++k)
        out += (k ? " " : "") + box_text(ps[k]);
    return ps.empty() ? "nothing" : out;
}

std::string partition_text(const Distribution& d) {
    return d.boxes() ? to_string(*d.boxes()) : to_string(d.partition());
}

std::vector<Box2> boxes_of_all(const std::vector<RangeProduct>& products) {
    std::vector<Box2> out;
    for (const RangeProduct& p : products)
        for (const Box2& b : boxes(p))
            out.push_back(b);
    return out;
}

std::pair<Index, Index> picture_extents(const Shape& shape) {
    if (shape.ndims() > 2) fail(Errc::arg, "--svg draws 1-D and 2-D data only");
    return {shape.ndims() == 2 ? shape.extent(0) : 1, shape.extent(shape.ndims() - 1)};
}

void draw_senders(Svg& svg, const Distribution& sd, const std::string& title) {
    svg.panel_at(0, title);
    for (int s = 0; s < sd.nprocs(); ++s)
        for (const Box2& b : boxes_of_all(owned_products(sd, s)))
            svg.box(b, colour(s), "#fff", "owned", "s" + std::to_string(s));
}

int draw_pieces(Svg& svg, const Side& send, const Side& recv) {
    int pieces = 0;
    for (int s = 0; s < send.dist->nprocs(); ++s)
        for (int r = 0; r < recv.dist->nprocs(); ++r)
            for (const Box2& b : boxes_of_all(pair_products(send, recv, s, r))) {
                svg.box(b, colour(s), colour(r), "piece",
                        std::to_string(s) + "\u2192" + std::to_string(r));
                ++pieces;
            }
    return pieces;
}

void save(const std::string& file, const std::string& text) {
    std::ofstream f(file);
    f << text;
    if (!f) fail(Errc::arg, "cannot write " + file);
}

} // namespace dri::plan_view

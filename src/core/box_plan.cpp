#include "core/box_plan.hpp"

#include "core/box_partition.hpp"
#include "core/checked.hpp"
#include "core/plan_pieces.hpp"

#include <algorithm>

namespace dri::core {

namespace {

// A product of per-dimension pieces stored at `base` (elements) with one
// element stride per dimension.
struct Tile {
    std::vector<std::vector<Piece>> dims;
    Index base = 0;
    std::vector<Index> strides;
};

// The tiles of process `index` of a side: its owned cells when sending,
// its stored cells (`cells`) when receiving.
std::vector<Tile> tiles_of(const Side& side, int index, bool sending, Cells cells) {
    const Distribution& dist = *side.dist;
    const auto nd = static_cast<std::size_t>(dist.ndims());
    std::vector<Tile> out;
    if (const BoxPartition* bp = dist.boxes()) {
        const std::vector<Box>& boxes = bp->boxes(index);
        Index base = 0;
        for (const Box& b : boxes) {
            if (b.empty()) continue;
            Tile t;
            std::vector<Index> ext(nd);
            for (std::size_t d = 0; d < nd; ++d) {
                ext[d] = b.last[d] - b.first[d] + 1;
                t.dims.push_back({Piece{0, ext[d], b.first[d], PieceKind::run}});
            }
            t.base = base;
            t.strides = box_strides(side.layout, ext);
            base += b.cells();
            out.push_back(std::move(t));
        }
        return out;
    }
    const std::vector<int> c = dist.coords(index);
    Tile t;
    for (std::size_t d = 0; d < nd; ++d) {
        t.dims.push_back(
            recv_pieces(dist, static_cast<int>(d), c[d], sending ? Cells::owned : cells));
        if (t.dims.back().empty()) return out;
    }
    t.strides = bind_side(side, index).strides;
    out.push_back(std::move(t));
    return out;
}

// Calls f(receiver piece, sender piece, x, y) for every stretch [x, y) of
// global elements a receiver piece (not zero padding) takes from a sender
// piece (owned cells, sorted by global index), in the receiver's order.
template <class F>
void for_each_overlap(const std::vector<Piece>& sp, const std::vector<Piece>& rp, F&& f) {
    for (const Piece& p : rp) {
        if (p.kind == PieceKind::zero) continue;
        const Index end = p.kind == PieceKind::run ? p.src + p.n : p.src + 1;
        auto q = std::upper_bound(sp.begin(), sp.end(), p.src,
                                  [](Index g, const Piece& s) { return g < s.src + s.n; });
        for (; q != sp.end() && q->src < end; ++q) {
            const Index x = std::max(p.src, q->src), y = std::min(end, q->src + q->n);
            if (x < y) f(p, *q, x, y);
        }
    }
}

std::vector<Run> match(const std::vector<Piece>& sp, const std::vector<Piece>& rp) {
    std::vector<Run> runs;
    for_each_overlap(sp, rp, [&](const Piece& p, const Piece& q, Index x, Index y) {
        if (p.kind == PieceKind::run)
            add_match(runs, y - x, q.local + (x - q.src), p.local + (x - p.src), 1);
        else
            add_match(runs, p.n, q.local + (p.src - q.src), p.local, 0);
    });
    return runs;
}

// Appends the regions sender tiles `st` move to receiver tiles `rt`.
void tile_regions(const std::vector<Tile>& st, const std::vector<Tile>& rt, Index elem,
                  std::vector<Region>& out) {
    for (const Tile& r : rt)
        for (const Tile& s : st) {
            const std::size_t nd = r.dims.size();
            std::vector<std::vector<Run>> per_dim(nd);
            std::vector<const std::vector<Run>*> runs(nd);
            bool empty = false;
            Strides bytes;
            for (std::size_t d = 0; d < nd && !empty; ++d) {
                per_dim[d] = match(s.dims[d], r.dims[d]);
                empty = per_dim[d].empty();
                runs[d] = &per_dim[d];
                bytes.s.push_back(checked_mul(s.strides[d], elem, "stride"));
                bytes.r.push_back(checked_mul(r.strides[d], elem, "stride"));
            }
            if (empty) continue;
            const std::size_t from = out.size();
            emit_regions(runs, bytes, out);
            const Index sb = checked_mul(s.base, elem, "offset");
            const Index rb = checked_mul(r.base, elem, "offset");
            for (std::size_t k = from; k < out.size(); ++k) {
                out[k].s_off = checked_add(out[k].s_off, sb, "offset");
                out[k].r_off = checked_add(out[k].r_off, rb, "offset");
            }
        }
}

// The tiles of every process of a side, computed once per plan.
std::vector<std::vector<Tile>> all_tiles(const Side& side, bool sending, Cells cells) {
    std::vector<std::vector<Tile>> out;
    for (int p = 0; p < side.dist->nprocs(); ++p)
        out.push_back(tiles_of(side, p, sending, cells));
    return out;
}

} // namespace

void check_box_sides(const Side& send, const Side& recv) {
    for (const Side* s : {&send, &recv}) {
        if (!s->dist->boxes()) continue;
        check_box_layout(s->layout);
        // The box planner and its oracle store every member's boxes in the
        // side's one dimension order: a member with another order is
        // refused rather than planned with the wrong strides.
        for (const Layout& own : s->layouts)
            if (!(own == s->layout))
                fail(Errc::layout, "the processes of a box side must declare one layout (" +
                                       to_string(s->layout) + " and " + to_string(own) +
                                       " differ)");
    }
}

LocalPlan plan_local_boxes(const Side& send, const Side& recv, int send_index, int recv_index,
                           Cells cells) {
    const Index elem = send.dist->shape().elem_size();
    LocalPlan plan;
    plan.elem_size = elem;
    if (send_index >= 0) {
        plan.send_layout = bind_side(send, send_index);
        const std::vector<Tile> mine = tiles_of(send, send_index, true, cells);
        const auto theirs = all_tiles(recv, false, cells);
        for (int r = 0; r < recv.dist->nprocs(); ++r) {
            std::vector<Region> regs;
            tile_regions(mine, theirs[static_cast<std::size_t>(r)], elem, regs);
            if (regs.empty()) continue;
            if (r == recv_index) {
                // One piece (box sides are never split), landing in piece 0.
                plan.self_pieces.push_back({0, 0, regs.size(), {0}});
                plan.self = std::move(regs);
            } else {
                plan.sends.push_back({r, count_elements(regs), std::move(regs), 0, {}});
            }
        }
    }
    if (recv_index >= 0) {
        plan.recv_layout = bind_side(recv, recv_index);
        const std::vector<Tile> mine = tiles_of(recv, recv_index, false, cells);
        const auto theirs = all_tiles(send, true, cells);
        for (int s = 0; s < send.dist->nprocs(); ++s) {
            if (s == send_index) continue; // the self part, planned above
            std::vector<Region> regs;
            tile_regions(theirs[static_cast<std::size_t>(s)], mine, elem, regs);
            if (!regs.empty())
                plan.recvs.push_back({s, count_elements(regs), std::move(regs), 0, {0}});
        }
        if (cells == Cells::all && !recv.dist->boxes())
            plan.fills = fill_regions(*recv.dist, plan.recv_layout, recv_index);
    }
    return plan;
}

std::vector<Region> pair_box_regions(const Side& send, const Side& recv, int s, int r) {
    std::vector<Region> out;
    tile_regions(tiles_of(send, s, true, Cells::all), tiles_of(recv, r, false, Cells::all),
                 send.dist->shape().elem_size(), out);
    return out;
}

std::vector<RangeProduct> pair_global_boxes(const Side& send, const Side& recv, int s, int r) {
    std::vector<RangeProduct> out;
    const auto st = tiles_of(send, s, true, Cells::all);
    const auto rt = tiles_of(recv, r, false, Cells::all);
    for (const Tile& rtile : rt)
        for (const Tile& stile : st) {
            RangeProduct prod;
            for (std::size_t d = 0; d < rtile.dims.size(); ++d) {
                std::vector<Range> got;
                for_each_overlap(stile.dims[d], rtile.dims[d],
                                 [&](const Piece&, const Piece&, Index x, Index y) {
                                     got.push_back({x, y - 1});
                                 });
                if (got.empty()) break;
                std::sort(got.begin(), got.end(),
                          [](const Range& a, const Range& b) { return a.first < b.first; });
                std::vector<Range> merged;
                for (const Range& g : got)
                    if (!merged.empty() && g.first <= merged.back().last + 1)
                        merged.back().last = std::max(merged.back().last, g.last);
                    else
                        merged.push_back(g);
                prod.push_back(std::move(merged));
            }
            if (prod.size() == rtile.dims.size()) out.push_back(std::move(prod));
        }
    return out;
}

} // namespace dri::core

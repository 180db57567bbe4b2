#include "core/plan.hpp"

#include "core/box_plan.hpp"
#include "core/plan_pieces.hpp"

#include "core/multi_index.hpp"
#include "core/pair_strides.hpp"

#include <algorithm>
#include <iterator>

namespace dri::core {

Index Region::elements() const {
    Index e = 1;
    for (const Axis& a : axes)
        e = checked_mul(e, a.n, "region size");
    return e;
}

namespace {

// The receiver's owned cells along one dimension (no overlap, no edges).
std::vector<Piece> owned_pieces(const Distribution& dist, int d, int c) {
    std::vector<Piece> out;
    const Index cnt = dist.segment_count(d, c);
    for (Index k = 0; k < cnt; ++k) {
        const Segment s = dist.segment(d, c, k);
        const Index n = s.own_hi - s.own_lo;
        if (n > 0) out.push_back({s.local + (s.own_lo - s.lo), n, s.own_lo, PieceKind::run});
    }
    return out;
}

} // namespace

std::vector<Piece> recv_pieces(const Distribution& dist, int d, int c, Cells cells) {
    const Index n = dist.shape().extent(d);
    if (cells == Cells::owned) return owned_pieces(dist, d, c);
    const EdgePolicy edge = dist.partition()[static_cast<std::size_t>(d)].edge;
    std::vector<Piece> out;
    auto outside = [&](Index local, Index count, Index g) {
        // Cells [g, g + count) lie wholly before 0 or wholly at/after n.
        switch (edge) {
        case EdgePolicy::zero:
        case EdgePolicy::truncate: // cannot happen: truncated segments stay inside
            out.push_back({local, count, 0, PieceKind::zero});
            break;
        case EdgePolicy::replicate:
            out.push_back({local, count, g < 0 ? 0 : n - 1, PieceKind::repeat});
            break;
        case EdgePolicy::wrap:
            out.push_back({local, count, floor_mod(g, n), PieceKind::run});
            break;
        }
    };
    const Index cnt = dist.segment_count(d, c);
    for (Index k = 0; k < cnt; ++k) {
        const Segment s = dist.segment(d, c, k);
        if (s.lo < 0) outside(s.local, std::min<Index>(s.hi, 0) - s.lo, s.lo);
        const Index a = std::max<Index>(s.lo, 0), b = std::min(s.hi, n);
        if (a < b) out.push_back({s.local + (a - s.lo), b - a, a, PieceKind::run});
        if (s.hi > n) {
            const Index a2 = std::max(s.lo, n);
            outside(s.local + (a2 - s.lo), s.hi - a2, a2);
        }
    }
    return out;
}

void add_match(std::vector<Run>& runs, Index n, Index s, Index r, Index step) {
    if (!runs.empty()) {
        Run& last = runs.back();
        // Extend a single stretch that continues on both sides.
        if (last.reps == 1 && last.step == step && last.r + last.n == r &&
            (step == 0 ? last.s == s : last.s + last.n == s)) {
            last.n += n;
            return;
        }
        // Extend or start a regular repetition of equal stretches.
        if (last.n == n && last.step == step) {
            const Index ds = s - (last.s + (last.reps - 1) * last.ds);
            const Index dr = r - (last.r + (last.reps - 1) * last.dr);
            if (last.reps == 1 && dr > 0) {
                last.reps = 2;
                last.ds = ds;
                last.dr = dr;
                return;
            }
            if (last.reps > 1 && ds == last.ds && dr == last.dr) {
                ++last.reps;
                return;
            }
        }
    }
    runs.push_back({n, s, r, step, 1, 0, 0});
}

namespace {

// Matches along dimension d between sender coordinate cs and the receiver
// pieces of one receiver coordinate, in the receiver's local order.
// Calls f(piece, segment, x, y) for every stretch [x, y) of global source
// elements that a receiver piece (not zero padding) takes from a segment
// owned by sender coordinate cs along dimension d.
template <class F>
void for_each_overlap(const Distribution& sd, int d, int cs, const std::vector<Piece>& pieces,
                      F&& f) {
    const Index cnt = sd.segment_count(d, cs);
    for (const Piece& p : pieces) {
        if (p.kind == PieceKind::zero) continue;
        const Index end = p.kind == PieceKind::run ? p.src + p.n : p.src + 1;
        for (Index k = sd.first_segment_ending_after(d, cs, p.src); k < cnt; ++k) {
            const Segment seg = sd.segment(d, cs, k);
            if (seg.own_lo >= end) break;
            const Index x = std::max(p.src, seg.own_lo), y = std::min(end, seg.own_hi);
            if (x < y) f(p, seg, x, y);
        }
    }
}

std::vector<Run> match_dim(const Distribution& sd, int d, int cs,
                           const std::vector<Piece>& pieces) {
    std::vector<Run> runs;
    for_each_overlap(sd, d, cs, pieces, [&](const Piece& p, const Segment& seg, Index x, Index y) {
        if (p.kind == PieceKind::run)
            add_match(runs, y - x, seg.local + (x - seg.lo), p.local + (x - p.src), 1);
        else
            add_match(runs, p.n, seg.local + (p.src - seg.lo), p.local, 0);
    });
    return runs;
}

} // namespace

// Removes unit axes, orders axes by receiver stride (outermost first) and
// merges axes that continue each other on both sides.
void normalize(Region& reg) {
    auto& ax = reg.axes;
    ax.erase(std::remove_if(ax.begin(), ax.end(), [](const Axis& a) { return a.n == 1; }),
             ax.end());
    // Insertion sort, stable and allocation-free: a region has at most
    // 2 * ndims axes and one rank plans up to one region per peer.
    for (std::size_t i = 1; i < ax.size(); ++i)
        for (std::size_t j = i; j > 0 && ax[j - 1].r < ax[j].r; --j)
            std::swap(ax[j - 1], ax[j]);
    for (std::size_t i = ax.size(); i-- > 1;) {
        Axis& outer = ax[i - 1];
        Axis& inner = ax[i];
        if (outer.s == inner.s * inner.n && outer.r == inner.r * inner.n) {
            inner.n *= outer.n;
            ax.erase(ax.begin() + static_cast<std::ptrdiff_t>(i - 1));
        }
    }
}

// The product over dimensions of the per-dimension runs: one region per
// combination of runs.
void emit_regions(const std::vector<const std::vector<Run>*>& runs, const Strides& st,
                  std::vector<Region>& out) {
    const std::size_t nd = runs.size();
    // The offsets are not carried by the odometer: they are computed with
    // checked arithmetic from the runs, so an overflow is reported.
    for_each_index(
        static_cast<int>(nd), [&](int d) { return runs[static_cast<std::size_t>(d)]->size(); },
        [&](const std::size_t* it) {
            Region reg;
            for (std::size_t d = 0; d < nd; ++d) {
                const Run& run = (*runs[d])[it[d]];
                reg.s_off = checked_add(reg.s_off, checked_mul(run.s, st.s[d], "offset"), "offset");
                reg.r_off = checked_add(reg.r_off, checked_mul(run.r, st.r[d], "offset"), "offset");
                if (run.reps > 1)
                    reg.axes.push_back({run.reps, checked_mul(run.ds, st.s[d], "stride"),
                                        checked_mul(run.dr, st.r[d], "stride")});
                reg.axes.push_back({run.n, run.step * st.s[d], st.r[d]});
            }
            normalize(reg);
            out.push_back(std::move(reg));
        });
}

Index count_elements(const std::vector<Region>& regs) {
    Index e = 0;
    for (const Region& r : regs)
        e = checked_add(e, r.elements(), "message size");
    return e;
}

namespace {

// Per dimension, for a fixed coordinate on one side, the runs with every
// coordinate of the other side.
using DimRuns = std::vector<std::vector<std::vector<Run>>>; // [d][other coord] -> runs

DimRuns runs_from_sender(const Distribution& sd, const Distribution& rd, const std::vector<int>& cs,
                         Cells cells) {
    DimRuns out(static_cast<std::size_t>(sd.ndims()));
    for (int d = 0; d < sd.ndims(); ++d) {
        const int pr = rd.grid()[static_cast<std::size_t>(d)];
        auto& od = out[static_cast<std::size_t>(d)];
        od.resize(static_cast<std::size_t>(pr));
        for (int cr = 0; cr < pr; ++cr)
            od[static_cast<std::size_t>(cr)] =
                match_dim(sd, d, cs[static_cast<std::size_t>(d)], recv_pieces(rd, d, cr, cells));
    }
    return out;
}

DimRuns runs_to_receiver(const Distribution& sd, const Distribution& rd, const std::vector<int>& cr,
                         Cells cells) {
    DimRuns out(static_cast<std::size_t>(sd.ndims()));
    for (int d = 0; d < sd.ndims(); ++d) {
        const auto pieces = recv_pieces(rd, d, cr[static_cast<std::size_t>(d)], cells);
        const int ps = sd.grid()[static_cast<std::size_t>(d)];
        auto& od = out[static_cast<std::size_t>(d)];
        od.resize(static_cast<std::size_t>(ps));
        for (int cs = 0; cs < ps; ++cs)
            od[static_cast<std::size_t>(cs)] = match_dim(sd, d, cs, pieces);
    }
    return out;
}

// Calls f(other_coords, runs per dimension) for every coordinate of the other
// side that has a non-empty match in every dimension.
template <class F>
void for_each_peer(const DimRuns& dr, F&& f) {
    const std::size_t nd = dr.size();
    std::vector<std::vector<int>> nonempty(nd);
    for (std::size_t d = 0; d < nd; ++d) {
        for (std::size_t c = 0; c < dr[d].size(); ++c)
            if (!dr[d][c].empty()) nonempty[d].push_back(static_cast<int>(c));
        if (nonempty[d].empty()) return;
    }
    std::vector<int> coords(nd);
    std::vector<const std::vector<Run>*> runs(nd);
    for_each_index(
        static_cast<int>(nd), [&](int d) { return nonempty[static_cast<std::size_t>(d)].size(); },
        [&](const std::size_t* it) {
            for (std::size_t d = 0; d < nd; ++d) {
                coords[d] = nonempty[d][it[d]];
                runs[d] = &dr[d][static_cast<std::size_t>(coords[d])];
            }
            f(coords, runs);
        });
}

} // namespace

void check_sides(const Side& send, const Side& recv) {
    if (!send.dist || !recv.dist) fail(Errc::null_pointer, "a side has no distribution");
    const Shape& a = send.dist->shape();
    const Shape& b = recv.dist->shape();
    if (a.extents() != b.extents())
        fail(Errc::mismatch,
             "sender and receiver global shapes differ: " + to_string(a) + " vs " + to_string(b));
    if (a.type() != b.type())
        fail(Errc::mismatch, "sender and receiver element types differ: " + to_string(a.type()) +
                                 " vs " + to_string(b.type()));
    send.dist->check_disjoint_covering();
    for (const Side* s : {&send, &recv}) {
        if (!s->layouts.empty() && s->layouts.size() != static_cast<std::size_t>(s->dist->nprocs()))
            fail(Errc::internal, "a side has a layout list of another length than its processes");
        for (int i = 0; i < (s->layouts.empty() ? 1 : s->dist->nprocs()); ++i)
            if (s->layout_of(i).ndims() != a.ndims())
                fail(Errc::layout, "layout has " + std::to_string(s->layout_of(i).ndims()) +
                                       " dimensions but the data has " + std::to_string(a.ndims()));
    }
    check_box_sides(send, recv);
}

std::vector<Region> pair_regions(const Side& send, const Side& recv, int s, int r) {
    if (send.dist->boxes() || recv.dist->boxes()) return pair_box_regions(send, recv, s, r);
    const Distribution& sd = *send.dist;
    const Distribution& rd = *recv.dist;
    const std::vector<int> cs = sd.coords(s), cr = rd.coords(r);
    std::vector<std::vector<Run>> per_dim(static_cast<std::size_t>(sd.ndims()));
    std::vector<const std::vector<Run>*> runs;
    for (int d = 0; d < sd.ndims(); ++d) {
        auto& pd = per_dim[static_cast<std::size_t>(d)];
        pd = match_dim(sd, d, cs[static_cast<std::size_t>(d)],
                       recv_pieces(rd, d, cr[static_cast<std::size_t>(d)]));
        if (pd.empty()) return {};
        runs.push_back(&pd);
    }
    std::vector<Region> out;
    emit_regions(runs, byte_strides(bind_side(send, s), bind_side(recv, r)), out);
    return out;
}

std::vector<PeerElements> send_elements(const Side& send, const Side& recv, int s) {
    std::vector<PeerElements> out;
    if (send.dist->boxes() || recv.dist->boxes()) {
        for (const PeerRegions& p : plan_local_boxes(send, recv, s, -1, Cells::all).sends)
            out.push_back({p.peer, p.elements});
        return out;
    }
    const Distribution& sd = *send.dist;
    const Distribution& rd = *recv.dist;
    // A pair's regions are every combination of one run per dimension, so
    // its elements are the product over dimensions of the runs' elements.
    for_each_peer(
        runs_from_sender(sd, rd, sd.coords(s), Cells::all),
        [&](const std::vector<int>& cr, const std::vector<const std::vector<Run>*>& runs) {
            Index e = 1;
            for (const std::vector<Run>* dim : runs) {
                Index n = 0;
                for (const Run& run : *dim)
                    n = checked_add(n, checked_mul(run.n, run.reps), "message size");
                e = checked_mul(e, n, "message size");
            }
            out.push_back({rd.index_of(cr), e});
        });
    std::sort(out.begin(), out.end(),
              [](const PeerElements& a, const PeerElements& b) { return a.peer < b.peer; });
    return out;
}

std::vector<std::vector<Range>> pair_global_ranges(const Side& send, const Side& recv, int s,
                                                   int r) {
    if (send.dist->boxes() || recv.dist->boxes())
        fail(Errc::partition, "a box side sends sets that are not one product of ranges: "
                              "see pair_global_boxes (core/box_plan.hpp)");
    const Distribution& sd = *send.dist;
    const Distribution& rd = *recv.dist;
    const std::vector<int> cs = sd.coords(s), cr = rd.coords(r);
    std::vector<std::vector<Range>> out(static_cast<std::size_t>(sd.ndims()));
    for (int d = 0; d < sd.ndims(); ++d) {
        std::vector<Range> got;
        for_each_overlap(sd, d, cs[static_cast<std::size_t>(d)],
                         recv_pieces(rd, d, cr[static_cast<std::size_t>(d)]),
                         [&](const Piece&, const Segment&, Index x, Index y) {
                             got.push_back({x, y - 1});
                         });
        if (got.empty()) return {};
        std::sort(got.begin(), got.end(),
                  [](const Range& a, const Range& b) { return a.first < b.first; });
        auto& od = out[static_cast<std::size_t>(d)];
        for (const Range& g : got) {
            if (!od.empty() && g.first <= od.back().last + 1)
                od.back().last = std::max(od.back().last, g.last);
            else
                od.push_back(g);
        }
    }
    return out;
}

LocalPlan plan_local(const Side& send, const Side& recv, int send_index, int recv_index,
                     Cells cells) {
    check_sides(send, recv);
    if (send.dist->boxes() || recv.dist->boxes()) {
        if (send.split.split() || recv.split.split())
            fail(Errc::strategy, "pieces are not available on box distributions");
        return plan_local_boxes(send, recv, send_index, recv_index, cells);
    }
    const Distribution& sd = *send.dist;
    const Distribution& rd = *recv.dist;
    LocalPlan plan;
    plan.elem_size = sd.shape().elem_size();
    if (send_index >= 0) {
        plan.send_layout = bind_side(send, send_index);
        const DimRuns dr = runs_from_sender(sd, rd, sd.coords(send_index), cells);
        PeerStrides strides(plan.send_layout, recv, true);
        for_each_peer(dr, [&](const std::vector<int>& cr,
                              const std::vector<const std::vector<Run>*>& runs) {
            const int r = rd.index_of(cr);
            const bool self = r == recv_index;
            for (PieceGroup& g :
                 split_pair(runs, strides.get(r), send, send_index, recv, r, self)) {
                if (self) {
                    plan.self_pieces.push_back({g.piece, plan.self.size(),
                                                plan.self.size() + g.regions.size(),
                                                std::move(g.lands)});
                    std::move(g.regions.begin(), g.regions.end(), std::back_inserter(plan.self));
                    continue;
                }
                const Index e = count_elements(g.regions);
                plan.sends.push_back({r, e, std::move(g.regions), g.piece, {}});
            }
        });
    }
    if (recv_index >= 0) {
        plan.recv_layout = bind_side(recv, recv_index);
        const DimRuns dr = runs_to_receiver(sd, rd, rd.coords(recv_index), cells);
        PeerStrides strides(plan.recv_layout, send, false);
        for_each_peer(
            dr, [&](const std::vector<int>& cs, const std::vector<const std::vector<Run>*>& runs) {
                const int s = sd.index_of(cs);
                if (s == send_index) return; // the self part, planned above
                for (PieceGroup& g :
                     split_pair(runs, strides.get(s), send, s, recv, recv_index, true)) {
                    const Index e = count_elements(g.regions);
                    plan.recvs.push_back({s, e, std::move(g.regions), g.piece, std::move(g.lands)});
                }
            });
        if (cells == Cells::all) plan.fills = fill_regions(rd, plan.recv_layout, recv_index);
    }
    plan.send_split = send_index >= 0 && send.split.split();
    plan.recv_split = recv_index >= 0 && recv.split.split();
    if (plan.send_split) plan.send_pieces = send.split.count;
    if (plan.recv_split) plan.recv_pieces = recv.split.count;
    // Peers were met in grid-coordinate order, which is index order only in
    // a row-major grid: sort by index, as the strategies expect (stable: a
    // pair's pieces stay in piece order).
    const auto by_peer = [](const PeerRegions& a, const PeerRegions& b) { return a.peer < b.peer; };
    std::stable_sort(plan.sends.begin(), plan.sends.end(), by_peer);
    std::stable_sort(plan.recvs.begin(), plan.recvs.end(), by_peer);
    return plan;
}
} // namespace dri::core

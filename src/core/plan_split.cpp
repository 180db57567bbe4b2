// Splitting a pair's regions by the sender's pieces (core/pieces.hpp): the
// runs of the split dimension are clipped to each piece's local range before
// their product is taken, so a piece's regions are exactly the pair's cells
// that lie in it, in the same order on both processes of the pair.
#include "core/plan_pieces.hpp"

#include <algorithm>

namespace dri::core {

namespace {

enum class By { sender, receiver };

// Local indices one repetition of a run covers on one side: [first, first + n).
struct Span {
    Index first, n;
};

Span span_of(const Run& run, Index rep, By by) {
    if (by == By::receiver) return {run.r + rep * run.dr, run.n};
    // A repeated source element covers one sender index.
    return {run.s + rep * run.ds, run.step == 0 ? 1 : run.n};
}

// Whether every repetition of the run lies inside [lo, hi) on that side.
bool inside(const Run& run, Index lo, Index hi, By by) {
    const Span a = span_of(run, 0, by), b = span_of(run, run.reps - 1, by);
    return std::min(a.first, b.first) >= lo && std::max(a.first + a.n, b.first + b.n) <= hi;
}

// The runs restricted to local indices [lo, hi) of one side.
std::vector<Run> clip(const std::vector<Run>& runs, Index lo, Index hi, By by) {
    std::vector<Run> out;
    for (const Run& run : runs) {
        if (inside(run, lo, hi, by)) {
            out.push_back(run);
            continue;
        }
        for (Index i = 0; i < run.reps; ++i) {
            const Index s = run.s + i * run.ds, r = run.r + i * run.dr;
            const Span sp = span_of(run, i, by);
            const Index a = std::max(sp.first, lo), b = std::min(sp.first + sp.n, hi);
            if (a >= b) continue;
            if (by == By::receiver)
                add_match(out, b - a, s + (a - r) * run.step, a, run.step);
            else if (run.step == 0)
                add_match(out, run.n, s, r, 0);
            else
                add_match(out, b - a, a, r + (a - s), 1);
        }
    }
    return out;
}

bool touches(const std::vector<Run>& runs, Index lo, Index hi, By by) {
    if (lo >= hi) return false;
    for (const Run& run : runs)
        for (Index i = 0; i < run.reps; ++i) {
            const Span sp = span_of(run, i, by);
            if (sp.first < hi && sp.first + sp.n > lo) return true;
        }
    return false;
}

// The pieces of receiver r the cells of `runs` land in.
std::vector<int> landing(const std::vector<const std::vector<Run>*>& runs, const Side& recv,
                         int r) {
    const PieceSplit& sp = recv.split;
    if (!sp.split()) return {0};
    std::vector<int> out;
    for (int j = 0; j < sp.count; ++j) {
        const auto [lo, hi] = sp.range(*recv.dist, r, j);
        if (touches(*runs[static_cast<std::size_t>(sp.dim)], lo, hi, By::receiver))
            out.push_back(j);
    }
    return out;
}

} // namespace

std::vector<PieceGroup> split_pair(const std::vector<const std::vector<Run>*>& runs,
                                   const Strides& st, const Side& send, int s, const Side& recv,
                                   int r, bool lands) {
    std::vector<PieceGroup> out;
    const PieceSplit& sp = send.split;
    if (!sp.split()) {
        out.emplace_back();
        emit_regions(runs, st, out.back().regions);
        if (lands) out.back().lands = landing(runs, recv, r);
        return out;
    }
    const auto d = static_cast<std::size_t>(sp.dim);
    std::vector<const std::vector<Run>*> piece_runs = runs;
    for (int k = 0; k < sp.count; ++k) {
        const auto [lo, hi] = sp.range(*send.dist, s, k);
        if (lo >= hi) continue;
        const std::vector<Run> clipped = clip(*runs[d], lo, hi, By::sender);
        if (clipped.empty()) continue;
        piece_runs[d] = &clipped;
        PieceGroup g;
        g.piece = k;
        emit_regions(piece_runs, st, g.regions);
        if (lands) g.lands = landing(piece_runs, recv, r);
        out.push_back(std::move(g));
    }
    return out;
}

} // namespace dri::core

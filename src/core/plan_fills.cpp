// The receive cells a plan zero-fills: edge padding of the zero policy.
#include "core/plan_pieces.hpp"

#include "core/multi_index.hpp"

namespace dri::core {

// Zero-filled receive cells: every combination of per-dimension spans in
// which at least one dimension is zero padding.
std::vector<Region> fill_regions(const Distribution& rd, const LocalLayout& rl, int r) {
    const int nd = rd.ndims();
    const std::vector<int> c = rd.coords(r);
    struct Span {
        Index local, n;
        bool zero;
    };
    std::vector<std::vector<Span>> spans(static_cast<std::size_t>(nd));
    bool any_zero = false;
    for (int d = 0; d < nd; ++d) {
        auto& sp = spans[static_cast<std::size_t>(d)];
        for (const Piece& p : recv_pieces(rd, d, c[static_cast<std::size_t>(d)])) {
            const bool z = p.kind == PieceKind::zero;
            any_zero |= z;
            if (!sp.empty() && sp.back().zero == z && sp.back().local + sp.back().n == p.local)
                sp.back().n += p.n;
            else
                sp.push_back({p.local, p.n, z});
        }
        if (sp.empty()) return {}; // no stored cells at all
    }
    std::vector<Region> out;
    if (!any_zero) return out;
    for_each_index(
        nd, [&](int d) { return spans[static_cast<std::size_t>(d)].size(); },
        [&](const std::size_t* it) {
            bool zero = false;
            for (std::size_t d = 0; d < static_cast<std::size_t>(nd); ++d)
                zero |= spans[d][it[d]].zero;
            if (!zero) return;
            Region reg;
            for (std::size_t d = 0; d < static_cast<std::size_t>(nd); ++d) {
                const Span& s = spans[d][it[d]];
                const Index stride = rl.strides[d] * rl.elem_size;
                reg.r_off += s.local * stride;
                reg.axes.push_back({s.n, 0, stride});
            }
            normalize(reg);
            out.push_back(std::move(reg));
        });
    return out;
}

} // namespace dri::core

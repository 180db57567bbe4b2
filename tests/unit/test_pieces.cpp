// Splitting plans into pieces (core/pieces.hpp, core/plan_split.cpp): random
// cases whose sides split their blocks into pieces, even or at random
// boundaries of each process's own. The split plans still move every cell
// right (the in-memory oracle); every region of a sender piece lies inside
// that piece; each group says exactly which receiver pieces it lands in;
// and both processes of a pair group their regions alike.
#include "random_case.hpp"
#include "simulate.hpp"

#include "core/pieces.hpp"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

namespace {

using dri::core::Index;
namespace core = dri::core;

// Calls f(offset) for every element of one side of a region.
template <class F>
void for_each_offset(const core::Region& r, bool sender, F&& f) {
    std::vector<Index> i(r.axes.size(), 0);
    const auto stride = [&](std::size_t a) { return sender ? r.axes[a].s : r.axes[a].r; };
    for (;;) {
        Index off = sender ? r.s_off : r.r_off;
        for (std::size_t a = 0; a < i.size(); ++a)
            off += i[a] * stride(a);
        f(off);
        std::size_t a = i.size();
        while (a-- > 0) {
            if (++i[a] < r.axes[a].n) break;
            i[a] = 0;
        }
        if (a == static_cast<std::size_t>(-1)) return;
    }
}

// The local index along `dim` of every cell of a process's block, by byte offset.
std::map<Index, Index> index_along(const core::Side& side, int p, int dim) {
    const core::Distribution& d = *side.dist;
    const core::LocalLayout ll =
        core::bind_layout(side.layout_of(p), d.local_extents(p), d.shape().elem_size());
    std::map<Index, Index> out;
    dri::test::for_each_cell(ll.extents, [&](const std::vector<Index>& li) {
        out[ll.offset(li)] = li[static_cast<std::size_t>(dim)];
    });
    return out;
}

core::PieceSplit draw_split(std::mt19937_64& rng, const core::Distribution& d) {
    core::PieceSplit s;
    s.dim = static_cast<int>(rng() % static_cast<std::uint64_t>(d.ndims()));
    s.count = 1 + static_cast<int>(rng() % 5);
    if (rng() % 2) return s;
    s.bounds.resize(static_cast<std::size_t>(d.nprocs()));
    for (int p = 0; p < d.nprocs(); ++p) {
        if (rng() % 2) continue; // this process keeps even pieces
        const Index e = d.local_extents(p)[static_cast<std::size_t>(s.dim)];
        std::vector<Index>& b = s.bounds[static_cast<std::size_t>(p)];
        b.push_back(0);
        for (int k = 1; k < s.count; ++k)
            b.push_back(static_cast<Index>(rng() % static_cast<std::uint64_t>(e + 1)));
        b.push_back(e);
        std::sort(b.begin(), b.end());
        core::check_split(d.ndims(), s.dim, s.count, b, e);
    }
    return s;
}

// The receiver pieces the receiver side of `regs` touches.
std::vector<int> touched(const std::vector<core::Region>& regs, const core::Side& recv, int r,
                         const std::map<Index, Index>& along) {
    std::set<int> out;
    for (const core::Region& reg : regs)
        for_each_offset(reg, false, [&](Index off) {
            const Index x = along.at(off);
            for (int j = 0; j < recv.split.count; ++j) {
                const auto [lo, hi] = recv.split.range(*recv.dist, r, j);
                if (x >= lo && x < hi) out.insert(j);
            }
        });
    return {out.begin(), out.end()};
}

// "" or what is wrong with the split plan of sender s / receiver r.
std::string check_groups(const core::Side& send, const core::Side& recv, int s, int r) {
    const core::LocalPlan sp = core::plan_local(send, recv, s, -1);
    const core::LocalPlan rp = core::plan_local(send, recv, -1, r);
    const auto s_along = index_along(send, s, send.split.dim);
    const auto r_along = index_along(recv, r, recv.split.dim);
    std::vector<core::PeerRegions> to_r, from_s;
    for (const core::PeerRegions& p : sp.sends)
        if (p.peer == r) to_r.push_back(p);
    for (const core::PeerRegions& p : rp.recvs)
        if (p.peer == s) from_s.push_back(p);
    if (to_r.size() != from_s.size()) return "the pair's two processes group it differently";
    for (std::size_t g = 0; g < to_r.size(); ++g) {
        if (to_r[g].piece != from_s[g].piece || !(to_r[g].regions == from_s[g].regions))
            return "group " + std::to_string(g) + " differs between the pair's processes";
        const auto [lo, hi] = send.split.range(*send.dist, s, to_r[g].piece);
        std::string err;
        for (const core::Region& reg : to_r[g].regions)
            for_each_offset(reg, true, [&](Index off) {
                const Index x = s_along.at(off);
                if (x < lo || x >= hi)
                    err = "a region of piece " + std::to_string(to_r[g].piece) + " holds index " +
                          std::to_string(x);
            });
        if (!err.empty()) return err;
        if (from_s[g].lands != touched(from_s[g].regions, recv, r, r_along))
            return "group " + std::to_string(g) + " lands in other pieces than it says";
    }
    return {};
}

} // namespace

TEST_CASE("split plans: every cell right, each piece's regions inside it, landings exact") {
    std::mt19937_64 seeds(20261127);
    int checked = 0;
    for (int i = 0; i < 300; ++i) {
        const std::uint64_t seed = seeds();
        dri::test::CaseGenerator gen(seed, 4, 600);
        dri::test::RandomCase c = gen.draw();
        std::mt19937_64 rng(seed);
        core::Side send = c.send(), recv = c.recv();
        send.split = draw_split(rng, *c.send_dist);
        recv.split = draw_split(rng, *c.recv_dist);
        INFO("case " << i << ": " << c.describe() << "\n  send split " << send.split.dim << "/"
                     << send.split.count << ", receive split " << recv.split.dim << "/"
                     << recv.split.count);
        const auto roles = dri::test::make_roles(c.send_procs, c.recv_procs, c.shared);
        const dri::test::SimResult res = dri::test::simulate(send, recv, roles);
        REQUIRE_MESSAGE(res.ok, res.error);
        for (int s = 0; s < c.send_procs; ++s)
            for (int r = 0; r < c.recv_procs; ++r) {
                const std::string err = check_groups(send, recv, s, r);
                REQUIRE_MESSAGE(err.empty(), "sender " << s << ", receiver " << r << ": " << err);
                ++checked;
            }
    }
    CHECK(checked > 300);
}

TEST_CASE("even pieces cover the extent without overflow; explicit boundaries are checked") {
    CHECK(core::even_piece(10, 3, 0) == std::pair<Index, Index>{0, 3});
    CHECK(core::even_piece(10, 3, 2) == std::pair<Index, Index>{6, 10});
    CHECK(core::even_piece(2, 4, 0) == std::pair<Index, Index>{0, 0});
    const Index big = Index{1} << 62;
    CHECK(core::even_piece(big, core::max_pieces, core::max_pieces - 1).second == big);
    CHECK_THROWS(core::check_split(2, 2, 1, {}, 5));
    CHECK_THROWS(core::check_split(2, 0, 0, {}, 5));
    CHECK_THROWS(core::check_split(2, 0, 2, {0, 6, 5}, 5));
    CHECK_THROWS(core::check_split(2, 0, 2, {0, 3}, 5));
    CHECK_NOTHROW(core::check_split(2, 0, 2, {0, 5, 5}, 5));
}

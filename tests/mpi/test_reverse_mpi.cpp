// Reverse transfers over MPI. For SUM, the adjoint's dot-product test
// <T x, y> = <x, T^T y> over the random-case generator (every partition
// kind, edge policy and layout; exact for integers, within rounding for
// floating point). For every operation, every sender element against an
// oracle that combines, with the operation, every copy that every receiver
// holds of it (REPLACE: the owner's copy). Also the reverse of a fan-out,
// and the errors of undefined operations. DRI_SEED replays a run,
// DRI_MPI_CASES sets the number of random cases.
#include "api_errors.hpp"
#include "case_replay.hpp"
#include "random_case.hpp"
#include "sides.hpp"
#include "simulate.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <map>
#include <numeric>

using namespace dri::test;
namespace core = dri::core;
using core::Index;

namespace {

struct ReverseCase {
    core::Shape shape{{1}, core::ElementType::predefined(core::ElemKind::int64)};
    SideSpec send;
    std::vector<SideSpec> recv; // disjoint groups
    // Each process's own layout, by group index, when not empty.
    std::vector<core::Layout> send_layouts, recv_layouts;
    dri::Strategy forward = dri::Strategy::p2p;
    dri::Combine op = dri::Combine::sum;
};

// The value a receiver cell holds before the reverse: a function of the
// side, the receiver and the cell alone, so every process knows all of them.
template <class T>
T copy_value(std::size_t side, int r, Index cell) {
    const auto v = static_cast<long long>((side * 131 + static_cast<std::size_t>(r) * 7919 +
                                           static_cast<std::size_t>(cell) * 31) %
                                          201) -
                   100;
    if constexpr (std::is_same_v<T, std::complex<double>>)
        return {static_cast<double>(v) / 8, static_cast<double>(v % 13)};
    else if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(v) / 8 + T(0.1);
    else
        return static_cast<T>(v);
}

// x: the value of sender element g before the forward transfer.
template <class T>
T element_value(Index g) {
    return copy_value<T>(99, 3, g);
}

template <class T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <class T>
void store(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof v);
}

// Calls f(byte offset, global linear index or -1 for a zero-padded cell,
// owned, local linear index) for every element cell of block `index`.
template <class F>
void for_each_element(const core::Distribution& dist, const core::Layout& layout, int index,
                      F&& f) {
    const core::LocalLayout ll =
        core::bind_layout(layout, dist.local_extents(index), dist.shape().elem_size());
    const std::vector<int> c = dist.coords(index);
    const auto nd = static_cast<std::size_t>(dist.ndims());
    Index local = 0;
    for_each_cell(ll.extents, [&](const std::vector<Index>& li) {
        std::vector<Index> g(nd);
        bool zero = false, own = true;
        for (std::size_t d = 0; d < nd; ++d) {
            const auto s = source_index(dist, static_cast<int>(d), c[d], li[d]);
            own = own && owned(dist, static_cast<int>(d), c[d], li[d]);
            if (!s)
                zero = true;
            else
                g[d] = *s;
        }
        f(ll.offset(li), zero ? Index{-1} : linear_index(dist.shape().extents(), g), own, local++);
    });
}

template <class T>
T combine(dri::Combine op, T a, T b) {
    if constexpr (std::is_same_v<T, std::complex<double>>) {
        return op == dri::Combine::sum ? a + b : b;
    } else {
        switch (op) {
        case dri::Combine::sum:
            return a + b;
        case dri::Combine::max:
            return std::max(a, b);
        case dri::Combine::min:
            return std::min(a, b);
        case dri::Combine::replace:
            return b;
        }
        return b;
    }
}

// The oracle: for every global element, the combination of every copy of
// it that the receivers hold (REPLACE: the owned copy), in any order.
template <class T>
std::map<Index, T> expected(const ReverseCase& rc, const std::vector<SideRun>& sides) {
    std::map<Index, T> out;
    for (std::size_t k = 1; k < sides.size(); ++k)
        for (int r = 0; r < sides[k].dist.nprocs(); ++r)
            for_each_element(sides[k].dist, sides[k].layout_of(r), r,
                             [&](Index, Index g, bool own, Index cell) {
                                 if (g < 0 || (rc.op == dri::Combine::replace && !own)) return;
                                 const T v = copy_value<T>(k, r, cell);
                                 const auto it = out.find(g);
                                 if (it == out.end())
                                     out.emplace(g, v);
                                 else
                                     it->second = combine(rc.op, it->second, v);
                             });
    return out;
}

bool close(double a, double b, double scale) {
    return std::abs(a - b) <= 1e-12 * std::max(1.0, scale);
}

template <class T>
double magnitude(T v) {
    return std::abs(v);
}

struct Outcome {
    bool took_part = true;
    std::string error;
    std::complex<double> dots[2]; // this process's share of <T x, y> and <x, T^T y>
    double terms[2] = {0, 0};     // and of the sums of their terms' magnitudes
    dri::Errc reverse_code = dri::Errc::success;
};

// Collective over world(): commits the forward transfer, runs it once on x,
// then its reverse on y; checks the oracle and (SUM) the dot products.
template <class T>
Outcome run_reverse(const ReverseCase& rc) {
    std::vector<SideRun> sides;
    sides.emplace_back(rc.shape, rc.send);
    for (const SideSpec& s : rc.recv)
        sides.emplace_back(rc.shape, s);
    if (!rc.send_layouts.empty()) sides[0].own_layouts(rc.send_layouts);
    if (!rc.recv_layouts.empty()) sides[1].own_layouts(rc.recv_layouts);
    dri::Transfer t("forward");
    t.strategy(rc.forward);
    SideRun& snd = sides[0];
    snd.make_ring(1, false);
    if (snd.api) t.send(*snd.api, to_api(snd.layout), snd.ring);
    SideRun* mine = nullptr;
    std::size_t my_side = 0;
    for (std::size_t k = 1; k < sides.size(); ++k)
        if (sides[k].api) {
            mine = &sides[k];
            my_side = k;
            mine->make_ring(2, false);
            t.recv(*mine->api, to_api(mine->layout), mine->ring);
        }
    if (!snd.api && !mine) { // takes no part, but the commit is collective over world()
        dri::commit(world(), {});
        return {false, {}, {}};
    }
    dri::commit(world(), {&t});
    Outcome out;
    std::optional<dri::Transfer> rev;
    try {
        rev.emplace(t.reverse(rc.op));
    } catch (const dri::Error& e) {
        out.reverse_code = e.code();
        return out;
    }
    // x into the forward send buffer: owned elements, poison elsewhere.
    std::byte* sbuf = snd.api ? snd.ring[0].data() : nullptr;
    if (sbuf) {
        std::fill(snd.ring[0].begin(), snd.ring[0].end(), std::byte{send_poison});
        for_each_element(snd.dist, snd.layout, snd.group.index(),
                         [&](Index off, Index g, bool own, Index) {
                             if (own) store(sbuf + off, element_value<T>(g));
                         });
    }
    t.execute();
    // <T x, y> on this receiver, then y into the same buffer (the reverse's
    // first source: its cursor starts at buffer 0, as the forward's did).
    T dot_forward{};
    double terms_forward = 0;
    if (mine) {
        std::byte* rbuf = mine->ring[0].data();
        for_each_element(mine->dist, mine->layout, mine->group.index(),
                         [&](Index off, Index, bool, Index cell) {
                             const T y = copy_value<T>(my_side, mine->group.index(), cell);
                             const T term = load<T>(rbuf + off) * y;
                             dot_forward += term;
                             terms_forward += magnitude(term);
                             store(rbuf + off, y);
                         });
    }
    const T untouched = copy_value<T>(77, 1, 1); // elements no receiver holds
    if (sbuf)
        for_each_element(snd.dist, snd.layout, snd.group.index(),
                         [&](Index off, Index, bool own, Index) {
                             if (own) store(sbuf + off, untouched);
                         });
    rev->execute();
    T dot_reverse{};
    double terms_reverse = 0;
    if (sbuf) {
        const std::map<Index, T> want = expected<T>(rc, sides);
        for_each_element(
            snd.dist, snd.layout, snd.group.index(), [&](Index off, Index g, bool own, Index) {
                if (!own) {
                    for (Index b = 0; b < static_cast<Index>(sizeof(T)); ++b)
                        if (sbuf[off + b] != std::byte{send_poison} && out.error.empty())
                            out.error = "a stored cell the sender does not own was written";
                    return;
                }
                const T got = load<T>(sbuf + off);
                const auto it = want.find(g);
                const T w = it == want.end() ? untouched : it->second;
                const bool ok =
                    std::is_integral_v<T> ? got == w : close(magnitude(got - w), 0, magnitude(w));
                if (!ok && out.error.empty())
                    out.error = "element " + std::to_string(g) + " is wrong after the reverse";
                if (rc.op == dri::Combine::sum && it != want.end()) {
                    const T term = element_value<T>(g) * got;
                    dot_reverse += term;
                    terms_reverse += magnitude(term);
                }
            });
    }
    out.dots[0] = std::complex<double>(dot_forward);
    out.dots[1] = std::complex<double>(dot_reverse);
    out.terms[0] = terms_forward;
    out.terms[1] = terms_reverse;
    return out;
}

std::vector<int> every_rank() {
    std::vector<int> all(static_cast<std::size_t>(world_size()));
    std::iota(all.begin(), all.end(), 0);
    return all;
}

bool everywhere(bool mine) {
    int bad = mine ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world());
    return bad == 0;
}

Outcome run_kind(const ReverseCase& rc, core::ElemKind kind) {
    switch (kind) {
    case core::ElemKind::int64:
        return run_reverse<std::int64_t>(rc);
    case core::ElemKind::float64:
        return run_reverse<double>(rc);
    default:
        return run_reverse<std::complex<double>>(rc);
    }
}

// Collective over world(): the case with elements of `kind`, and for SUM
// the dot-product test over every process's share.
Outcome run_typed(ReverseCase rc, core::ElemKind kind) {
    rc.shape = core::Shape(rc.shape.extents(), core::ElementType::predefined(kind));
    Outcome o = run_kind(rc, kind);
    MPI_Allreduce(MPI_IN_PLACE, o.dots, 4, MPI_DOUBLE, MPI_SUM, world());
    MPI_Allreduce(MPI_IN_PLACE, o.terms, 2, MPI_DOUBLE, MPI_SUM, world());
    // Rounding grows with the terms, not with their sum: terms that cancel
    // leave a small dot product whose last digits are rounding. Measured
    // against the dot product itself, the recorded case below failed: dot
    // products of -3.14 from terms of 7.7e4 in all, 9.3e-12 apart.
    const double scale = std::max(o.terms[0], o.terms[1]);
    if (rc.op == dri::Combine::sum && o.reverse_code == dri::Errc::success &&
        !close(std::abs(o.dots[0] - o.dots[1]), 0, scale) && o.error.empty())
        o.error = "<T x, y> != <x, T^T y>";
    return o;
}

// Collective over world(): case i of the random cases of `seed` (each
// process draws the same), checked; whether it passed on every process.
bool check_random_case(unsigned long long seed, std::uint64_t i) {
    const std::uint64_t case_seed = mix_seed(seed ^ mix_seed(i));
    CaseGenerator gen(case_seed, std::min(world_size(), 7), 1500);
    const RandomCase c = gen.draw();
    std::mt19937_64 rng(case_seed);
    ReverseCase rc;
    rc.shape = c.shape;
    rc.send = {core::to_string(c.send_part), c.send_layout,
               random_ranks(rng, world_size(), c.send_procs), c.send_order};
    rc.recv = {{core::to_string(c.recv_part), c.recv_layout,
                c.shared && c.send_procs == c.recv_procs
                    ? rc.send.ranks
                    : random_ranks(rng, world_size(), c.recv_procs),
                c.recv_order}};
    const dri::Strategy fwd[] = {dri::Strategy::p2p, dri::Strategy::packed,
                                 dri::Strategy::alltoallw, dri::Strategy::nodes};
    rc.forward = fwd[rng() % 4];
    rc.op = static_cast<dri::Combine>(rng() % 4);
    const core::ElemKind kinds[] = {core::ElemKind::int64, core::ElemKind::float64,
                                    core::ElemKind::complex_double};
    core::ElemKind kind = kinds[rng() % 3];
    const bool complex = kind == core::ElemKind::complex_double;
    INFO("case " << i << " (replay: DRI_SEED=" << seed << ") op " << static_cast<int>(rc.op)
                 << " kind " << static_cast<int>(kind) << "\n  " << c.describe());
    const Outcome o = run_typed(rc, kind);
    // MAX and MIN are not defined on complex numbers; REPLACE needs one
    // owner per element.
    const bool undefined = complex && (rc.op == dri::Combine::max || rc.op == dri::Combine::min);
    if (o.took_part && undefined)
        CHECK(o.reverse_code == dri::Errc::type);
    else if (o.reverse_code != dri::Errc::success)
        CHECK(o.reverse_code == dri::Errc::not_disjoint);
    CHECK_MESSAGE(o.error.empty(), o.error);
    return everywhere(o.error.empty());
}

} // namespace

TEST_CASE("reverse: the adjoint's dot-product test and every operation against the oracle") {
    unsigned long long seed = env_u64("DRI_SEED", std::random_device{}());
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, world());
    const std::uint64_t cases = env_u64("DRI_MPI_CASES", 40);
    if (world_rank() == 0)
        std::printf("reverse MPI test: seed %llu, %llu cases, %d ranks\n", seed,
                    static_cast<unsigned long long>(cases), world_size());
    int failures = 0;
    for (std::uint64_t i = 0; i < cases && failures < 3; ++i)
        failures += check_random_case(seed, i) ? 0 : 1;
}

TEST_CASE("reverse: recorded random cases") {
    // At 2 ranks, case 34 of this seed: SUM on float64 whose dot products
    // cancel down to -3.14 (see run_typed's tolerance).
    if (world_size() == 2) check_random_case(682624321, 34);
}

TEST_CASE("reverse: every process its own padding and order, on both sides") {
    using core::Layout;
    const int p = world_size();
    std::vector<int> back = every_rank();
    std::reverse(back.begin(), back.end());
    ReverseCase rc;
    rc.shape = core::Shape({11, 9}, core::ElementType::predefined(core::ElemKind::float64));
    rc.send = {"block,block", Layout::packed(2), every_rank()};
    rc.recv = {{"cyclic(2),block", Layout::packed(2), back}};
    for (int i = 0; i < p; ++i) {
        const Index pad = i + 1;
        rc.send_layouts.push_back(i % 2 ? Layout::ordered({1, 0}, {pad, 0})
                                        : Layout::ordered({0, 1}, {0, pad}));
        rc.recv_layouts.push_back(i % 3 == 0   ? Layout::packed(2)
                                  : i % 3 == 1 ? Layout::ordered({1, 0}, {1, pad})
                                               : Layout::ordered({0, 1}, {pad, 2}));
    }
    for (dri::Strategy fwd : {dri::Strategy::p2p, dri::Strategy::packed, dri::Strategy::alltoallw,
                              dri::Strategy::nodes})
        for (dri::Combine op : {dri::Combine::sum, dri::Combine::replace}) {
            rc.forward = fwd;
            rc.op = op;
            INFO("strategy " << static_cast<int>(fwd) << " op " << static_cast<int>(op));
            const Outcome o = run_typed(rc, core::ElemKind::float64);
            CHECK(o.reverse_code == dri::Errc::success);
            CHECK_MESSAGE(o.error.empty(), o.error);
            CHECK(everywhere(o.error.empty()));
        }
}

TEST_CASE("reverse of a fan-out: every receiving side's copies come back") {
    const int w = world_size(), k = std::min(3, w);
    ReverseCase rc;
    // A row and a column for every rank, from 13 x 10 up.
    rc.shape = core::Shape({std::max(13, w), std::max(10, w)}, core::parse_type("int64"));
    rc.send = {"block,whole", core::Layout::packed(2), every_rank()};
    const char* parts[] = {"whole~1:1:wrap,block", "block~2:0:replicate,whole",
                           "cyclic(2)~0:1:zero,whole"};
    for (int i = 0; i < k; ++i) {
        std::vector<int> g;
        for (int r = i; r < world_size(); r += k)
            g.push_back(r);
        rc.recv.push_back({parts[i], core::Layout::ordered({1, 0}, {0, 2}), g});
    }
    for (dri::Combine op : {dri::Combine::sum, dri::Combine::max, dri::Combine::replace}) {
        rc.op = op;
        CAPTURE(static_cast<int>(op));
        const Outcome o = run_typed(rc, op == dri::Combine::sum ? core::ElemKind::float64
                                                                : core::ElemKind::int64);
        // Every receiving side owns every element: REPLACE has no one owner.
        const bool ambiguous = op == dri::Combine::replace && k > 1;
        CHECK(o.reverse_code == (ambiguous ? dri::Errc::not_disjoint : dri::Errc::success));
        CHECK_MESSAGE(o.error.empty(), o.error);
        CHECK(everywhere(o.error.empty()));
    }
}

// A forward transfer over rings of n heap buffers per side, committed.
struct Forward {
    std::vector<SideRun> sides;
    dri::Transfer t;
    Forward(const char* name, const core::Shape& shape, const SideSpec& send, const SideSpec& recv,
            int n)
        : t(name) {
        sides.emplace_back(shape, send);
        sides.emplace_back(shape, recv);
        for (SideRun& s : sides)
            s.make_ring(n, false);
        t.send(*sides[0].api, to_api(sides[0].layout), sides[0].ring);
        t.recv(*sides[1].api, to_api(sides[1].layout), sides[1].ring);
        t.commit();
    }
};

TEST_CASE("reverse: undefined operations and uncommitted transfers are refused") {
    // A row and a column for every rank, from 14 x 12 up.
    const int w = world_size();
    const core::Shape shape({std::max(14, w), std::max(12, w)}, core::parse_type("record5"));
    const SideSpec send{"block,whole", core::Layout::packed(2), every_rank()};
    const SideSpec recv{"whole,block", core::Layout::packed(2), every_rank()};
    dri::Transfer t("not yet");
    try {
        (void)t.reverse(dri::Combine::sum);
        FAIL("an uncommitted transfer has no reverse");
    } catch (const dri::Error& e) {
        CHECK(e.code() == dri::Errc::state);
    }
    Forward forward("records", shape, send, recv, 1);
    dri::Transfer& f = forward.t;
    for (dri::Combine op : {dri::Combine::sum, dri::Combine::max, dri::Combine::min}) {
        std::string msg;
        try {
            (void)f.reverse(op);
        } catch (const dri::Error& e) {
            CHECK(e.code() == dri::Errc::type);
            msg = e.what();
        }
        CHECK_MESSAGE(msg.find("REPLACE only") != std::string::npos, msg);
    }
    // An unknown operation on one process fails alike on all of them, the
    // others having asked for a valid one.
    const auto bad = world_rank() == 0 ? static_cast<dri::Combine>(9) : dri::Combine::replace;
    try {
        (void)f.reverse(bad);
        FAIL("an unknown operation was accepted");
    } catch (const dri::Error& e) {
        CHECK(e.code() == dri::Errc::arg);
    }
    dri::Transfer back = f.reverse(dri::Combine::replace); // records: REPLACE only
    back.execute();
}

// Issue 43: on a rank whose send and receive blocks are both empty, the
// reverse's start on a buffer the forward had in flight succeeded, and its
// cursor moved ahead of the other ranks'. Empty buffers have no bytes to
// overlap; they are still the same buffers of the same rings.
TEST_CASE("reverse: a start on a buffer in flight is refused on every rank, empty blocks too") {
    const int w = world_size(), n = std::max(1, w - 1); // the last rank holds nothing
    const core::Shape shape({n, n}, core::parse_type("int64"));
    const SideSpec send{"block[0:],whole", core::Layout::packed(2), every_rank()};
    const SideSpec recv{"whole,block[0:]", core::Layout::packed(2), every_rank()};
    Forward forward("empty blocks", shape, send, recv, 2);
    dri::Transfer& f = forward.t;
    dri::Transfer back = f.reverse(dri::Combine::sum);
    f.start(); // send buffer 0 and receive buffer 0 in flight
    const dri::Errc refused = api_code_of([&] { back.start(); });
    CHECK(refused == dri::Errc::state);
    CHECK(everywhere(refused == dri::Errc::state));
    f.wait();
    CHECK(everywhere(back.current_send_buffer() == 0 && back.current_recv_buffer() == 0));
    back.execute(); // nothing in flight any more: every rank runs it
    CHECK(everywhere(back.current_send_buffer() == 1 && back.current_recv_buffer() == 1));
    // The other way round: the reverse holds buffer 1 of both rings, which
    // is where the forward's cursors are too.
    back.start();
    CHECK(everywhere(api_code_of([&] { f.start(); }) == dri::Errc::state));
    back.wait();
}

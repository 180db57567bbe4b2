// Pieces (DRI_Transfer_set_pieces): random redistributions whose sides split
// their blocks into pieces, the producers writing each piece only after the
// reorganization started and marking it ready in forward, reverse or random
// order, the consumers copying each receive piece as soon as it has arrived.
// Every byte of every frame is checked against the oracle, and every piece's
// copy taken at its arrival against the final buffer. Then the errors.
#include "api_errors.hpp"
#include "case_replay.hpp"
#include "mpi_world.hpp"
#include "random_case.hpp"
#include "simulate.hpp"
#include "to_api.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>

namespace {

using dri::Index;
using dri::test::world;

// A side's split as one process asks for it.
struct Split {
    int dim = -1, count = 1;
    std::vector<Index> bounds; // this process's own, or empty: even pieces
};

// Every process of a side draws the same dimension and count from the
// side's seed; a process may give boundaries of its own from its own seed.
Split draw_split(std::uint64_t side_seed, std::uint64_t own_seed, int ndims, Index extent_of_me,
                 const std::vector<Index>& extents) {
    std::mt19937_64 rng(side_seed);
    Split s;
    if (rng() % 4 == 0) return s;
    s.dim = static_cast<int>(rng() % static_cast<std::uint64_t>(ndims));
    s.count = 1 + static_cast<int>(rng() % 6);
    std::mt19937_64 own(own_seed);
    if (own() % 3 != 0) return s;
    const Index e = extents.empty() ? extent_of_me : extents[static_cast<std::size_t>(s.dim)];
    s.bounds.push_back(0);
    for (int k = 1; k < s.count; ++k)
        s.bounds.push_back(static_cast<Index>(own() % static_cast<std::uint64_t>(e + 1)));
    s.bounds.push_back(e);
    std::sort(s.bounds.begin() + 1, s.bounds.end() - 1);
    return s;
}

void apply(dri::Transfer& t, dri::Role role, const Split& s) {
    if (s.dim < 0) return;
    if (s.bounds.empty())
        t.pieces(role, s.dim, s.count);
    else
        t.pieces(role, s.dim, std::span<const Index>(s.bounds));
}

// Calls f(byte offset) for every stored cell of a block whose index along
// `dim` lies in [lo, hi) (every cell when dim < 0).
template <class F>
void for_piece_cells(const dri::core::LocalLayout& ll, int dim, Index lo, Index hi, F&& f) {
    dri::test::for_each_cell(ll.extents, [&](const std::vector<Index>& li) {
        if (dim >= 0 &&
            (li[static_cast<std::size_t>(dim)] < lo || li[static_cast<std::size_t>(dim)] >= hi))
            return;
        f(ll.offset(li));
    });
}

std::vector<int> order_of(int n, int how, std::mt19937_64& rng) {
    std::vector<int> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = i;
    if (how == 1) std::reverse(v.begin(), v.end());
    if (how == 2) std::shuffle(v.begin(), v.end(), rng);
    return v;
}

// One process's view of a random case with pieces.
struct PieceRun {
    const dri::test::RandomCase& c;
    std::vector<int> sranks, rranks;
    Split send_split, recv_split;
    dri::Strategy strategy = dri::Strategy::automatic;
    bool shared_memory = false; // the send ring in node shared memory (SHARED's single copy)
    int nbuf_s = 2, nbuf_r = 2, frames = 3;
    std::uint64_t seed = 0;
};

// Collective over world(): "" or this rank's first mismatch.
std::string run_pieces(const PieceRun& p, Index& cells, int& single_copies) {
    namespace core = dri::core;
    const dri::test::RandomCase& c = p.c;
    const dri::Group sg(world(), p.sranks), rg(world(), p.rranks);
    const core::Layout my_sl = c.send().layout_of(std::max(sg.index(), 0));
    const core::Layout my_rl = c.recv().layout_of(std::max(rg.index(), 0));
    const dri::GlobalData gd = dri::test::to_api(c.shape);
    std::optional<dri::Distribution> sd, rd;
    if (sg.contains_me())
        sd.emplace(gd, dri::test::to_api(c.send_part), sg,
                   static_cast<dri::GridOrder>(c.send_order));
    if (rg.contains_me())
        rd.emplace(gd, dri::test::to_api(c.recv_part), rg,
                   static_cast<dri::GridOrder>(c.recv_order));
    const Index elem = c.shape.elem_size();
    std::optional<core::LocalLayout> sll, rll;
    if (sd) sll = core::bind_layout(my_sl, c.send_dist->local_extents(sg.index()), elem);
    if (rd) rll = core::bind_layout(my_rl, c.recv_dist->local_extents(rg.index()), elem);
    std::vector<dri::SharedMemory> shared;
    std::vector<std::vector<std::byte>> plain, rbuf;
    std::vector<std::span<std::byte>> sbuf;
    for (int i = 0; sd && i < p.nbuf_s; ++i) {
        const auto bytes = static_cast<std::size_t>(sll->bytes);
        if (p.shared_memory) {
            shared.emplace_back(bytes);
            sbuf.emplace_back(shared.back().data(), bytes);
        } else {
            plain.emplace_back(bytes);
            sbuf.emplace_back(plain.back());
        }
    }
    for (int i = 0; rd && i < p.nbuf_r; ++i)
        rbuf.emplace_back(static_cast<std::size_t>(rll->bytes));

    dri::Transfer t("pieces");
    t.strategy(p.strategy);
    if (sd) {
        t.send(*sd, dri::test::to_api(my_sl), sbuf);
        apply(t, dri::Role::send, p.send_split);
    }
    if (rd) {
        t.recv(*rd, dri::test::to_api(my_rl), rbuf);
        apply(t, dri::Role::recv, p.recv_split);
    }
    try { // every rank takes part, with its transfer or without
        if (sd || rd)
            dri::commit(world(), {&t});
        else
            dri::commit(world(), {});
    } catch (const dri::Error& e) {
        // A forced SHARED does not apply across nodes or to ordinary memory:
        // every rank, with a role or not, has the error.
        if (p.strategy == dri::Strategy::shared && e.code() == dri::Errc::strategy) return {};
        throw;
    }
    if (!sd && !rd) return {};
    const bool split = p.send_split.dim >= 0 || p.recv_split.dim >= 0;
    if (split && t.chosen_strategy() != dri::Strategy::p2p &&
        t.chosen_strategy() != dri::Strategy::shared)
        return "a split transfer runs strategy " +
               std::to_string(static_cast<int>(t.chosen_strategy()));
    single_copies += t.chosen_strategy() == dri::Strategy::shared ? 1 : 0;
    std::mt19937_64 rng(p.seed + static_cast<std::uint64_t>(dri::test::world_rank()));
    std::string err;
    for (int f = 0; f < p.frames; ++f) {
        std::vector<std::byte> shadow, snap;
        if (sd) {
            shadow.resize(static_cast<std::size_t>(sll->bytes));
            dri::test::fill_sender(*c.send_dist, my_sl, sg.index(), shadow.data(), sll->bytes, f);
            // A role never split has one piece, marked by the start itself:
            // its buffer is written before.
            const std::span<std::byte> b = sbuf[static_cast<std::size_t>(f % p.nbuf_s)];
            if (p.send_split.dim < 0)
                std::copy(shadow.begin(), shadow.end(), b.begin());
            else
                std::fill(b.begin(), b.end(), std::byte{dri::test::send_poison});
        }
        if (rd) {
            auto& b = rbuf[static_cast<std::size_t>(f % p.nbuf_r)];
            std::fill(b.begin(), b.end(), std::byte{dri::test::recv_poison});
            snap.assign(b.size(), std::byte{dri::test::recv_poison});
        }
        t.start();
        if (sd) { // each piece written after the start, just before it is marked
            const std::span<std::byte> b = sbuf[static_cast<std::size_t>(f % p.nbuf_s)];
            const auto [dim, count] = t.pieces(dri::Role::send);
            for (int k : order_of(count, static_cast<int>(rng() % 3), rng)) {
                const auto [lo, hi] = t.piece(dri::Role::send, k);
                if (dim < 0) break;
                for_piece_cells(*sll, dim, lo, hi, [&](Index off) {
                    std::copy_n(shadow.begin() + off, elem, b.begin() + off);
                });
                t.ready(k);
            }
        }
        if (rd) { // each piece copied as it arrives
            const auto& b = rbuf[static_cast<std::size_t>(f % p.nbuf_r)];
            const auto [dim, count] = t.pieces(dri::Role::recv);
            for (int k : order_of(count, static_cast<int>(rng() % 3), rng)) {
                if (rng() % 2)
                    t.wait_piece(k);
                else
                    while (!t.arrived(k)) {
                    }
                const auto [lo, hi] = t.piece(dri::Role::recv, k);
                for_piece_cells(*rll, dim, lo, hi, [&](Index off) {
                    std::copy_n(b.begin() + off, elem, snap.begin() + off);
                });
            }
        }
        t.wait();
        if (rd && err.empty()) {
            const auto& b = rbuf[static_cast<std::size_t>(f % p.nbuf_r)];
            err = dri::test::check_receiver(*c.recv_dist, my_rl, rg.index(), b.data(), rll->bytes,
                                            f, &cells);
            for_piece_cells(*rll, -1, 0, 0, [&](Index off) {
                if (err.empty() &&
                    !std::equal(b.begin() + off, b.begin() + off + elem, snap.begin() + off))
                    err = "a piece said it had arrived before its cell at byte " +
                          std::to_string(off) + " held its final value, frame " + std::to_string(f);
            });
        }
    }
    return err;
}

} // namespace

TEST_CASE("random redistributions with pieces deliver every byte, piece by piece") {
    const int world_size = dri::test::world_size();
    unsigned long long seed = dri::test::env_u64("DRI_SEED", std::random_device{}());
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, world());
    const std::uint64_t cases = dri::test::env_u64("DRI_MPI_CASES", 40);
    if (dri::test::world_rank() == 0)
        std::printf("pieces MPI test: seed %llu, %llu cases, %d ranks\n", seed,
                    (unsigned long long)cases, world_size);
    Index cells = 0;
    int failures = 0, single_copies = 0;
    for (std::uint64_t i = 0; i < cases && failures <= 3; ++i) {
        const std::uint64_t cs = dri::test::mix_seed(seed ^ dri::test::mix_seed(i));
        dri::test::CaseGenerator gen(cs, std::min(world_size, 7), 2000);
        const dri::test::RandomCase c = gen.draw();
        std::mt19937_64 rng(cs);
        PieceRun p{c, dri::test::random_ranks(rng, world_size, c.send_procs), {}, {}, {}};
        p.rranks = (c.shared && c.send_procs == c.recv_procs)
                       ? p.sranks
                       : dri::test::random_ranks(rng, world_size, c.recv_procs);
        p.nbuf_s = 1 + static_cast<int>(rng() % 2);
        p.nbuf_r = 1 + static_cast<int>(rng() % 2);
        const dri::Strategy strategies[] = {dri::Strategy::automatic, dri::Strategy::p2p,
                                            dri::Strategy::shared, dri::Strategy::measure};
        p.strategy = strategies[rng() % 4];
        p.shared_memory = p.strategy == dri::Strategy::shared || rng() % 2;
        p.seed = cs;
        const dri::Group sg(world(), p.sranks), rg(world(), p.rranks);
        const auto own = [&](const dri::core::Distribution& d, const dri::Group& g) {
            return g.contains_me() ? d.local_extents(g.index()) : std::vector<Index>{};
        };
        const int nd = c.shape.ndims();
        const std::uint64_t me = static_cast<std::uint64_t>(dri::test::world_rank());
        p.send_split = draw_split(cs ^ 1, cs ^ (me << 8), nd, 0, own(*c.send_dist, sg));
        p.recv_split = draw_split(cs ^ 2, cs ^ (me << 16), nd, 0, own(*c.recv_dist, rg));
        INFO("case " << i << " (replay: DRI_SEED=" << seed << ")\n  " << c.describe()
                     << "\n  strategy " << static_cast<int>(p.strategy) << ", shared memory "
                     << p.shared_memory << "\n  send pieces " << p.send_split.dim << "/"
                     << p.send_split.count << ", receive pieces " << p.recv_split.dim << "/"
                     << p.recv_split.count);
        const std::string err = run_pieces(p, cells, single_copies);
        CHECK_MESSAGE(err.empty(), err);
        failures += err.empty() ? 0 : 1;
    }
    long long total = static_cast<long long>(cells);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, world());
    if (dri::test::world_rank() == 0)
        std::printf("pieces MPI test: checked %lld receive cells, %d cases through SHARED\n", total,
                    single_copies);
}

namespace {

using dri::test::api_code_of;

// A corner turn of an n x n float matrix over every rank of world(): rows in
// row blocks, columns in column blocks, columns contiguous.
struct Turn {
    static constexpr Index n = 12;
    dri::GlobalData gd{{n, n}, dri::Type::float32};
    dri::Group all{world()};
    dri::Distribution rows{gd, dri::Partition::parse("block,whole"), all};
    dri::Distribution cols{gd, dri::Partition::parse("whole,block"), all};
    dri::Layout row_major = dri::Layout::packed(2), col_major = dri::Layout::ordered({1, 0});
    std::vector<std::vector<float>> sbuf, rbuf;
    dri::Transfer t{"turn"};

    explicit Turn(int nbuf = 1)
        : sbuf(static_cast<std::size_t>(nbuf),
               std::vector<float>(static_cast<std::size_t>(rows.block(row_major).bytes / 4))),
          rbuf(static_cast<std::size_t>(nbuf),
               std::vector<float>(static_cast<std::size_t>(cols.block(col_major).bytes / 4))) {
        t.send(rows, row_major, sbuf);
        t.recv(cols, col_major, rbuf);
    }
    // Row i, column j of the global matrix in frame f.
    static float value(Index i, Index j, int f) {
        return static_cast<float>(i * 1000 + j + f * 100000);
    }
    void fill(int f, int b = 0) {
        const dri::BlockInfo info = rows.block(row_major);
        for (Index i = 0; i < info.local_extent[0]; ++i)
            for (Index j = 0; j < n; ++j)
                sbuf[static_cast<std::size_t>(b)][static_cast<std::size_t>(i * n + j)] =
                    value(info.owned_first[0] + i, j, f);
    }
    bool check(int f, int b = 0) const {
        const dri::BlockInfo info = cols.block(col_major);
        for (Index j = 0; j < info.local_extent[1]; ++j)
            for (Index i = 0; i < n; ++i)
                if (rbuf[static_cast<std::size_t>(b)][static_cast<std::size_t>(j * n + i)] !=
                    value(i, info.owned_first[1] + j, f))
                    return false;
        return true;
    }
};

// The same code on every rank (collective errors).
bool everywhere(dri::Errc code) {
    int c = static_cast<int>(code), lo = c, hi = c;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, world());
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, world());
    return lo == c && hi == c;
}

} // namespace

TEST_CASE("pieces: DRI_Do, and start / ready / wait_piece / wait, deliver the corner turn") {
    Turn a(2);
    a.t.pieces(dri::Role::send, 0, 3);
    a.t.pieces(dri::Role::recv, 1, 2);
    a.t.commit();
    CHECK(a.t.chosen_strategy() == dri::Strategy::p2p);
    CHECK(a.t.pieces(dri::Role::send) == std::pair<int, int>{0, 3});
    a.fill(0, 0);
    a.t.execute(); // marks every piece itself
    CHECK(a.check(0, 0));
    a.fill(1, 1);
    a.t.start();
    for (int k = 2; k >= 0; --k)
        a.t.ready(k);
    for (int k = 0; k < 2; ++k)
        a.t.wait_piece(k);
    a.t.wait();
    CHECK(a.check(1, 1));
    // The reverse moves whole frames: the columns come back into the rows.
    dri::Transfer rev = a.t.reverse(dri::Combine::replace);
    const std::vector<float> sent = a.sbuf[0];
    std::fill(a.sbuf[0].begin(), a.sbuf[0].end(), -1.0f);
    rev.execute(); // receive buffer 0 (frame 0) back into send buffer 0
    CHECK(a.sbuf[0] == sent);
}

TEST_CASE("pieces: local errors of the piece calls") {
    Turn a;
    CHECK(api_code_of([&] { a.t.pieces(dri::Role::send, 2, 3); }) == dri::Errc::arg);
    CHECK(api_code_of([&] { a.t.pieces(dri::Role::send, -1, 3); }) == dri::Errc::arg);
    CHECK(api_code_of([&] { a.t.pieces(dri::Role::send, 0, 0); }) == dri::Errc::arg);
    CHECK(api_code_of([&] { a.t.pieces(dri::Role::send, 0, 16385); }) == dri::Errc::arg);
    const Index e = a.rows.block(a.row_major).local_extent[0];
    const std::vector<Index> bad = {0, e + 1, e}, backwards = {0, e, 0, e}, ok = {0, 0, e};
    CHECK(api_code_of([&] { a.t.pieces(dri::Role::send, 0, bad); }) == dri::Errc::arg);
    CHECK(api_code_of([&] { a.t.pieces(dri::Role::send, 0, backwards); }) == dri::Errc::arg);
    a.t.pieces(dri::Role::send, 0, ok); // an empty piece is a piece
    CHECK(a.t.piece(dri::Role::send, 1) == std::pair<Index, Index>{0, e});
    CHECK(api_code_of([&] { a.t.piece(dri::Role::send, 2); }) == dri::Errc::arg);
    CHECK(api_code_of([&] { a.t.ready(0); }) == dri::Errc::state); // not committed
    a.t.commit();
    CHECK(api_code_of([&] { a.t.pieces(dri::Role::recv, 1, 2); }) == dri::Errc::state);
    CHECK(api_code_of([&] { a.t.ready(0); }) == dri::Errc::state); // not started
    CHECK(api_code_of([&] { a.t.arrived(0); }) == dri::Errc::state);
    a.fill(0);
    a.t.start();
    CHECK(api_code_of([&] { a.t.ready(2); }) == dri::Errc::arg);
    CHECK(api_code_of([&] { a.t.ready(-1); }) == dri::Errc::arg);
    CHECK(api_code_of([&] { a.t.arrived(1); }) == dri::Errc::arg); // the receive role has one
    a.t.ready(1);
    CHECK(api_code_of([&] { a.t.ready(1); }) == dri::Errc::state); // twice
    // A wait with a piece unmarked fails and changes nothing: the frame
    // can still be completed.
    CHECK(api_code_of([&] { a.t.wait(); }) == dri::Errc::state);
    CHECK(api_code_of([&] { a.t.test(); }) == dri::Errc::state);
    a.t.ready(0);
    a.t.wait_piece(0);
    a.t.wait();
    CHECK(a.check(0));
    // Unsplit roles have one piece, marked at the start.
    Turn b;
    b.t.commit();
    b.fill(3);
    b.t.start();
    CHECK(api_code_of([&] { b.t.ready(0); }) == dri::Errc::state);
    b.t.wait_piece(0);
    b.t.wait();
    CHECK(b.check(3));
}

TEST_CASE("pieces: commit errors are the same on every rank") {
    SUBCASE("splits that differ between the ranks of one side") {
        Turn a;
        if (dri::test::world_size() > 1)
            a.t.pieces(dri::Role::send, 0, dri::test::world_rank() == 1 ? 3 : 2);
        const dri::Errc code = api_code_of([&] { a.t.commit(); });
        CHECK(code == (dri::test::world_size() > 1 ? dri::Errc::inconsistent : dri::Errc::success));
        CHECK(everywhere(code));
    }
    SUBCASE("a forced strategy that does not move pieces") {
        Turn a;
        a.t.strategy(dri::Strategy::alltoallw);
        a.t.pieces(dri::Role::recv, 1, 2);
        const dri::Errc code = api_code_of([&] { a.t.commit(); });
        CHECK(code == dri::Errc::strategy);
        CHECK(everywhere(code));
    }
    SUBCASE("a fan-out with pieces") {
        // Rank 0 receives the whole matrix, the others column blocks: two
        // receiving sides of one name.
        const int size = dri::test::world_size(), me = dri::test::world_rank();
        Turn a;
        std::vector<int> rest;
        for (int r = 1; r < size; ++r)
            rest.push_back(r);
        const dri::Group g0{world(), {0}};
        dri::Transfer fan("fan");
        fan.send(a.rows, a.row_major, a.sbuf);
        fan.pieces(dri::Role::send, 0, 2);
        std::vector<std::vector<float>> whole(1, std::vector<float>(Turn::n * Turn::n));
        std::optional<dri::Group> gr;
        std::optional<dri::Distribution> d0, dr;
        if (me == 0) {
            d0.emplace(a.gd, dri::Partition::parse("whole,whole"), g0);
            fan.recv(*d0, a.row_major, whole);
        } else {
            gr.emplace(world(), rest);
            dr.emplace(a.gd, dri::Partition::parse("whole,block"), *gr);
            std::vector<std::vector<float>> cols(
                1, std::vector<float>(static_cast<std::size_t>(dr->block(a.col_major).bytes / 4)));
            a.rbuf = std::move(cols);
            fan.recv(*dr, a.col_major, a.rbuf);
        }
        const dri::Errc code = api_code_of([&] { fan.commit(); });
        CHECK(code == (size > 1 ? dri::Errc::strategy : dri::Errc::success));
        CHECK(everywhere(code));
    }
}

TEST_CASE("pieces: destroying a transfer with unmarked send pieces marks them, nobody hangs") {
    std::vector<float> got;
    bool ok = true;
    {
        Turn a;
        a.t.pieces(dri::Role::send, 0, 3);
        a.t.commit();
        a.fill(0);
        a.t.start();
        if (dri::test::world_rank() == 0) {
            a.t.ready(1); // then destroyed with pieces 0 and 2 unmarked
        } else {
            for (int k = 0; k < 3; ++k)
                a.t.ready(k);
            a.t.wait();
            ok = a.check(0);
        }
    }
    CHECK(ok);
    // Every rank destroys with pieces unmarked.
    Turn b;
    b.t.pieces(dri::Role::send, 0, 2);
    b.t.commit();
    b.t.start();
}

// Targeted transfer scenarios over MPI: clique, bipartite and partly shared
// process sets, overlap with every edge policy, block-cyclic, odd-size
// records, several coexisting transfers, non-blocking execution, and errors
// that must be the same on every rank.
#include "api_errors.hpp"
#include "core/spec.hpp"
#include "mpi_world.hpp"
#include "scenario.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace dri::test;
namespace core = dri::core;

namespace {

Scenario make(const std::string& shape, const std::string& type, const std::string& send,
              const std::string& recv, std::vector<int> sranks, std::vector<int> rranks) {
    Scenario sc;
    sc.shape = core::Shape(core::parse_shape(shape), core::parse_type(type));
    sc.send_part = core::parse_partition(send);
    sc.recv_part = core::parse_partition(recv);
    sc.send_layout = core::Layout::packed(sc.shape.ndims());
    sc.recv_layout = core::Layout::packed(sc.shape.ndims());
    sc.send_ranks = std::move(sranks);
    sc.recv_ranks = std::move(rranks);
    return sc;
}

// Runs the scenario with every strategy; SHARED, HYBRID, NODES and AUTO once
// more with send buffers in node shared memory, each from another source
// (dri::allocator, OwnedRing, dri::SharedMemory); a forced strategy that the
// node layout rules out must refuse the commit (MEASURE over shared buffers,
// which times every candidate, is covered once, in the dri::SharedMemory case).
void check(Scenario sc) {
    using S = dri::Strategy;
    using M = Scenario::Memory;
    for (auto [s, memory] : {std::pair{S::alltoallw, M::heap},
                             {S::packed, M::heap},
                             {S::p2p, M::heap},
                             {S::automatic, M::heap},
                             {S::measure, M::heap},
                             {S::automatic, M::allocator},
                             {S::shared, M::owned},
                             {S::hybrid, M::shared_memory},
                             {S::nodes, M::heap},
                             {S::nodes, M::allocator}}) {
        sc.strategy = s;
        sc.memory = memory;
        const bool shared = memory != M::heap;
        CAPTURE(static_cast<int>(s));
        CAPTURE(shared);
        const ScenarioResult r = run_scenario(sc);
        CHECK_MESSAGE(r.error.empty(), r.error);
        CHECK(all_ok(r));
    }
}

// The same code on every rank?
bool same_everywhere(dri::Errc c) {
    return dri::test::same_everywhere(static_cast<int>(c));
}

// dri::corner_turn of an n x m matrix of doubles over every process of comm
// (collective over comm), 3 frames over a ring of 2 buffers each side: the
// number of elements of this process's receive blocks that came out wrong
// (every element is checked, the receive buffers poisoned before each frame).
long corner_turn_wrong(MPI_Comm comm, dri::Index n, dri::Index m) {
    const dri::CornerTurnBlocks b = dri::corner_turn_blocks(comm, n, m, dri::Type::float64);
    std::vector<std::vector<double>> s(2, std::vector<double>(b.send.elements()));
    std::vector<std::vector<double>> r(2, std::vector<double>(b.recv.elements()));
    dri::Transfer t = dri::corner_turn(comm, n, m, dri::Type::float64, s, r);
    CHECK(t.committed());
    long wrong = 0;
    for (int f = 0; f < 3; ++f) {
        auto& sb = s[static_cast<std::size_t>(f % 2)];
        for (dri::Index i = 0; i < b.send.local_extent[0]; ++i)
            for (dri::Index j = 0; j < m; ++j)
                sb[static_cast<std::size_t>(i * m + j)] =
                    static_cast<double>((b.send.owned_first[0] + i) * 100 + j + f * 10000);
        auto& rb = r[static_cast<std::size_t>(f % 2)];
        std::fill(rb.begin(), rb.end(), -1.0);
        t.execute();
        for (dri::Index j = 0; j < b.recv.local_extent[1]; ++j)
            for (dri::Index i = 0; i < n; ++i)
                wrong += rb[static_cast<std::size_t>(j * n + i)] !=
                         static_cast<double>(i * 100 + b.recv.owned_first[1] + j + f * 10000);
    }
    return wrong;
}

} // namespace

TEST_CASE("clique corner turn, rows contiguous -> columns contiguous, 3 buffers") {
    const int w = world_size();
    Scenario sc = make("37x23", "cfloat", "block,whole", "whole,block", range_of_ranks(0, w - 1),
                       range_of_ranks(0, w - 1));
    sc.recv_layout = core::Layout::ordered({1, 0});
    sc.nbuf_s = 3;
    sc.nbuf_r = 3;
    sc.frames = 5;
    check(sc);
    sc.nonblocking = true;
    sc.name = "clique nonblocking";
    check(sc);
}

TEST_CASE("bipartite pipeline: producers and consumers are different processes") {
    const int w = world_size();
    if (w < 2) return;
    Scenario sc = make("40x17", "double", "block,whole", "whole,block",
                       range_of_ranks(0, w / 2 - 1), range_of_ranks(w / 2, w - 1));
    sc.recv_layout = core::Layout::ordered({1, 0});
    sc.nonblocking = true;
    check(sc);
}

TEST_CASE("partly shared groups in reversed order") {
    const int w = world_size();
    std::vector<int> s = range_of_ranks(0, (w + 1) / 2), r = range_of_ranks(w / 2, w - 1);
    if (static_cast<int>(s.size()) > w) s.pop_back();
    std::reverse(r.begin(), r.end());
    Scenario sc = make("19x11x5", "float", "block,block,whole", "whole,block,block", s, r);
    sc.recv_layout = core::Layout::ordered({2, 0, 1}, {1, 0, 2});
    check(sc);
}

TEST_CASE("receive overlap with every edge policy") {
    const int w = world_size();
    for (const char* edge : {"truncate", "zero", "replicate", "wrap"}) {
        const std::string e = edge;
        Scenario sc = make("29x13", "int32", "block,whole", "block~2:3:" + e + ",whole~1:1:" + e,
                           range_of_ranks(0, w - 1), range_of_ranks(0, w - 1));
        sc.name = "halo " + e;
        CAPTURE(e);
        check(sc);
    }
}

TEST_CASE("block-cyclic records of 7 bytes with padded layouts") {
    const int w = world_size();
    // A cyclic block of 3 rows for every rank, from 31 x 9 up.
    const int n = std::max(31, 3 * w);
    const std::string shape = std::to_string(n) + "x9";
    Scenario sc = make(shape, "record7", "block,whole", "cyclic(3),whole", range_of_ranks(0, w - 1),
                       range_of_ranks(0, w - 1));
    sc.send_layout = core::Layout::ordered({0, 1}, {0, 3});
    sc.recv_layout = core::Layout::ordered({1, 0}, {2, 1});
    sc.frames = 4;
    check(sc);
    // And back, to explicit ranges that overlap on the receiving side (rows
    // 0-20 and 10-30 of 31).
    Scenario back =
        make(shape, "record7", "cyclic(2),whole",
             "ranges(0:" + std::to_string(n - 11) + "|10:" + std::to_string(n - 1) + "),whole",
             range_of_ranks(0, w - 1), {0, w - 1});
    if (w == 1)
        back.recv_part = core::parse_partition("ranges(3:" + std::to_string(n - 1) + "),whole");
    if (w == 1) back.recv_ranks = {0};
    back.name = "cyclic to ranges";
    check(back);
}

TEST_CASE("several transfers coexist and do not interfere") {
    const int w = world_size();
    const auto all = range_of_ranks(0, w - 1);
    // 24 x 10 and 10 x 24, or more where there are more ranks, so that every
    // rank owns a row and a column of each.
    const dri::Index L = std::max(24, w), S = std::max(10, w);
    const dri::GlobalData a({L, S}, dri::Type::int32), b({S, L}, dri::Type::int32);
    const dri::Group g(world());
    const dri::Distribution rows_a(
        a, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), g);
    const dri::Distribution cols_a(
        a, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), g);
    const dri::Distribution rows_b(
        b, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), g);
    const dri::Distribution cols_b(
        b, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), g);
    const dri::Layout packed = dri::Layout::packed(2), trans = dri::Layout::ordered({1, 0});
    auto make_bufs = [](const dri::BlockInfo& bi, int fill) {
        return std::vector<std::vector<int>>(
            1, std::vector<int>(static_cast<std::size_t>(bi.elements()), fill));
    };
    auto sa = make_bufs(rows_a.block(packed), 1), ra = make_bufs(cols_a.block(trans), 0);
    auto sb = make_bufs(rows_b.block(packed), 2), rb = make_bufs(cols_b.block(trans), 0);
    // Fill with the global index, negated for transfer b.
    const auto ba = rows_a.block(packed), bb = rows_b.block(packed);
    for (dri::Index i = 0; i < ba.local_extent[0]; ++i)
        for (dri::Index j = 0; j < S; ++j)
            sa[0][static_cast<std::size_t>(i * S + j)] =
                static_cast<int>((ba.owned_first[0] + i) * S + j);
    for (dri::Index i = 0; i < bb.local_extent[0]; ++i)
        for (dri::Index j = 0; j < L; ++j)
            sb[0][static_cast<std::size_t>(i * L + j)] =
                -static_cast<int>((bb.owned_first[0] + i) * L + j);
    dri::Transfer ta("alpha"), tb("beta");
    ta.send(rows_a, packed, sa);
    ta.recv(cols_a, trans, ra);
    tb.send(rows_b, packed, sb);
    tb.recv(cols_b, trans, rb);
    // Declared in different orders on different ranks: matched by name.
    if (world_rank() % 2)
        dri::commit(world(), {&tb, &ta});
    else
        dri::commit(world(), {&ta, &tb});
    tb.execute();
    ta.execute();
    const auto ca = cols_a.block(trans), cb = cols_b.block(trans);
    int wrong = 0;
    for (dri::Index j = 0; j < ca.local_extent[1]; ++j)
        for (dri::Index i = 0; i < L; ++i)
            wrong += ra[0][static_cast<std::size_t>(j * L + i)] !=
                     static_cast<int>(i * S + ca.owned_first[1] + j);
    for (dri::Index j = 0; j < cb.local_extent[1]; ++j)
        for (dri::Index i = 0; i < S; ++i)
            wrong += rb[0][static_cast<std::size_t>(j * S + i)] !=
                     -static_cast<int>(i * L + cb.owned_first[1] + j);
    CHECK(wrong == 0);
    // The cheap rule's choice for ordinary memory.
    const core::Shape shape_a({L, S}, core::ElementType::predefined(core::ElemKind::int32));
    const core::Distribution crows(shape_a, core::parse_partition("block,whole"), w),
        ccols(shape_a, core::parse_partition("whole,block"), w);
    CHECK(ta.chosen_strategy() ==
          auto_choice_heap(pairs_by_node({&crows, core::Layout::packed(2)},
                                         {&ccols, core::Layout::ordered({1, 0})}, all, all)));
}

TEST_CASE("errors are the same on every rank and leave nothing behind") {
    const int w = world_size();
    const int me = world_rank();
    const dri::Group g(world());
    // A row for every rank, from 12 x 8 up.
    const dri::Index R = std::max(12, w);
    const dri::GlobalData gd({R, 8}, dri::Type::float32);
    const dri::Layout packed = dri::Layout::packed(2);
    const dri::Distribution rows(gd, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}),
                                 g);
    std::vector<std::vector<float>> buf(
        2, std::vector<float>(static_cast<std::size_t>(rows.block(packed).elements())));

    SUBCASE("a name with senders but no receivers") {
        dri::Transfer t("lonely");
        t.send(rows, packed, buf);
        const dri::Errc c = api_code_of([&] { t.commit(); });
        CHECK(c == dri::Errc::no_partner);
        CHECK(same_everywhere(c));
        CHECK_FALSE(t.committed());
    }
    SUBCASE("a receiver group whose last process did not declare") {
        dri::Transfer t("half");
        t.send(rows, packed, buf);
        if (me != w - 1 || w == 1) t.recv(rows, packed, buf);
        dri::Errc c = api_code_of([&] { dri::commit(world(), {&t}); });
        CHECK(c == (w == 1 ? dri::Errc::success : dri::Errc::no_partner));
        CHECK(same_everywhere(c));
    }
    SUBCASE("the two sides disagree on the shape") {
        const dri::GlobalData other({8, R}, dri::Type::float32);
        const dri::Distribution cols(
            other, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), g);
        std::vector<std::vector<float>> rb(
            1, std::vector<float>(static_cast<std::size_t>(cols.block(packed).elements())));
        dri::Transfer t("mismatch");
        t.send(rows, packed, buf);
        t.recv(cols, packed, rb);
        const dri::Errc c = api_code_of([&] { t.commit(); });
        CHECK(c == dri::Errc::mismatch);
        CHECK(same_everywhere(c));
    }
    SUBCASE("distribution creation with different extents on different ranks") {
        const dri::GlobalData mine({R, me == 0 ? 8 : 9}, dri::Type::float32);
        const dri::Errc c = api_code_of([&] {
            dri::Distribution d(mine,
                                dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), g);
        });
        CHECK(c == (w == 1 ? dri::Errc::success : dri::Errc::inconsistent));
        CHECK(same_everywhere(c));
    }
    SUBCASE("a process set that cannot hold the partition") {
        const dri::GlobalData tiny({1, 8}, dri::Type::float32);
        const dri::Errc c = api_code_of([&] {
            dri::Distribution d(tiny,
                                dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}), g);
        });
        CHECK(c == (w == 1 ? dri::Errc::success : dri::Errc::grid));
        CHECK(same_everywhere(c));
    }
    SUBCASE("state errors: execute before commit, wait without start, start twice") {
        dri::Transfer t("states");
        t.send(rows, packed, buf);
        t.recv(rows, packed, buf);
        CHECK(api_code_of([&] { t.execute(); }) == dri::Errc::state);
        t.commit();
        CHECK(api_code_of([&] { t.wait(); }) == dri::Errc::state);
        t.start();
        CHECK(api_code_of([&] { t.start(); }) == dri::Errc::state);
        t.wait();
        CHECK(api_code_of([&] { t.send(rows, packed, buf); }) == dri::Errc::duplicate);
        CHECK(api_code_of([&] { t.commit(); }) == dri::Errc::state);
        CHECK(same_everywhere(dri::Errc::state));
    }
    SUBCASE("buffers: too small, none, duplicate role") {
        dri::Transfer t("buffers");
        std::vector<std::vector<float>> small(1, std::vector<float>(1));
        if (rows.block(packed).elements() > 1)
            CHECK(api_code_of([&] { t.send(rows, packed, small); }) == dri::Errc::buffer_size);
        std::vector<std::vector<float>> none;
        CHECK(api_code_of([&] { t.send(rows, packed, none); }) == dri::Errc::buffer_count);
        t.send(rows, packed, buf);
        CHECK(api_code_of([&] { t.send(rows, packed, buf); }) == dri::Errc::duplicate);
    }
}

TEST_CASE("the corner-turn convenience call: exact data over a buffer ring, errors everywhere") {
    const dri::Index n = 37, m = 23;
    const long wrong = corner_turn_wrong(world(), n, m);
    CHECK(wrong == 0);
    // Different matrix sizes on different ranks: the same error everywhere.
    const dri::Errc c = api_code_of([&] {
        (void)dri::corner_turn_blocks(world(), n + (world_rank() == 0 ? 1 : 0), m,
                                      dri::Type::float64);
    });
    CHECK(c == (world_size() == 1 ? dri::Errc::success : dri::Errc::inconsistent));
    CHECK(same_everywhere(c));
    // An unknown element type on one rank only.
    const dri::Errc c2 = api_code_of([&] {
        (void)dri::corner_turn_blocks(
            world(), n, m, world_rank() == 0 ? static_cast<dri::Type>(99) : dri::Type::float64);
    });
    CHECK(c2 == dri::Errc::type);
    CHECK(same_everywhere(c2));
}

// The transfers of dri::corner_turn were named "dri corner turn #k" after a
// per-process call counter: a corner turn on a sub-communicator advanced the
// counters of its members only, and the next corner turn on the whole
// communicator then matched no names. Meaningful at 3 ranks or more (at 1 and
// 2 the sub-communicator holds every process).
TEST_CASE("the corner-turn convenience call on ranks 0 and 1 alone, then on every rank") {
    const int me = world_rank();
    MPI_Comm pair = MPI_COMM_NULL;
    MPI_Comm_split(world(), me < 2 ? 0 : MPI_UNDEFINED, me, &pair);
    if (pair != MPI_COMM_NULL) { // the other processes skip the call
        long wrong = -1;
        const dri::Errc c = api_code_of([&] { wrong = corner_turn_wrong(pair, 31, 19); });
        CHECK(c == dri::Errc::success);
        CHECK(wrong == 0);
        MPI_Comm_free(&pair); // the transfer is gone
    }
    long wrong = -1;
    const dri::Errc c = api_code_of([&] { wrong = corner_turn_wrong(world(), 29, 17); });
    CHECK(c == dri::Errc::success);
    CHECK(wrong == 0);
    CHECK(same_everywhere(c));
}

TEST_CASE("dri::SharedMemory: moves, explicit free, and a SHARED transfer over a moved ring") {
    const int w = world_size(), me = world_rank();
    dri::SharedMemory a(4096), b(64 * static_cast<std::size_t>(me));
    CHECK(a.size() == 4096);
    CHECK(a.as<double>().size() == 512);
    std::byte* const pa = a.data();
    dri::SharedMemory c = std::move(a); // a is empty now
    CHECK((a.data() == nullptr && c.data() == pa));
    c = std::move(b); // frees c's old memory, takes b's
    CHECK(b.data() == nullptr);
    CHECK(c.size() == 64 * static_cast<std::size_t>(me));
    CHECK(api_code_of([&] { a.free(); }) == dri::Errc::arg); // freeing twice: as DRI_Free_mem
    c.free();
    CHECK(api_code_of([&] { c.free(); }) == dri::Errc::arg);

    // A 2-buffer ring in shared memory, moved into a vector, drives a clique
    // transfer, chosen by the cheap rule (SHARED only when processes read
    // each other) and by measuring (every candidate, SHARED included).
    // A row and a column for every rank, from 12 x 8 up.
    const dri::Index R = std::max(12, w), C = std::max(8, w);
    const dri::GlobalData gd({R, C}, dri::Type::int32);
    const dri::Group g(world());
    const dri::Distribution rows(gd, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}),
                                 g),
        cols(gd, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), g);
    const dri::Layout packed = dri::Layout::packed(2), trans = dri::Layout::ordered({1, 0});
    const auto sb = rows.block(packed), rb = cols.block(trans);
    std::vector<dri::SharedMemory> ring;
    for (int i = 0; i < 2; ++i)
        ring.emplace_back(static_cast<std::size_t>(sb.bytes));
    std::vector<std::vector<int>> out(2, std::vector<int>(static_cast<std::size_t>(rb.elements())));
    const core::Shape shape({R, C}, core::ElementType::predefined(core::ElemKind::int32));
    const core::Distribution crows(shape, core::parse_partition("block,whole"), w),
        ccols(shape, core::parse_partition("whole,block"), w);
    const PairsByNode pairs =
        pairs_by_node({&crows, core::Layout::packed(2)}, {&ccols, core::Layout::ordered({1, 0})},
                      range_of_ranks(0, w - 1), range_of_ranks(0, w - 1));
    for (dri::Strategy strategy : {dri::Strategy::automatic, dri::Strategy::measure}) {
        CAPTURE(static_cast<int>(strategy));
        dri::Transfer t("shared ring");
        t.strategy(strategy);
        t.send(rows, packed, ring);
        t.recv(cols, trans, out);
        t.commit();
        if (strategy == dri::Strategy::automatic) CHECK(t.chosen_strategy() == auto_choice(pairs));
        for (int f = 0; f < 4; ++f) {
            auto in = ring[static_cast<std::size_t>(f % 2)].as<int>();
            for (dri::Index i = 0; i < sb.local_extent[0]; ++i)
                for (dri::Index j = 0; j < C; ++j)
                    in[static_cast<std::size_t>(i * C + j)] =
                        static_cast<int>((sb.owned_first[0] + i) * C + j + 1000 * f);
            t.execute();
            int wrong = 0;
            const auto& o = out[static_cast<std::size_t>(f % 2)];
            for (dri::Index j = 0; j < rb.local_extent[1]; ++j)
                for (dri::Index i = 0; i < R; ++i)
                    wrong += o[static_cast<std::size_t>(j * R + i)] !=
                             static_cast<int>(i * C + rb.owned_first[1] + j + 1000 * f);
            CHECK(wrong == 0);
        }
    }
}

// Fan-out named transfers over MPI: one sending side and several receiving
// sides that declare only themselves ("transfer zebra" in the forum's
// minutes). Every strategy, blocking and non-blocking, over disjoint and
// overlapping groups; every byte of every receive buffer of every frame is
// checked against the in-memory oracle of its own receiving side.
#include "core/spec.hpp"
#include "mpi_world.hpp"
#include "nodes.hpp"
#include "sides.hpp"
#include "simulate.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>

using namespace dri::test;
namespace core = dri::core;

namespace {

struct Fanout {
    std::string shape, type;
    SideSpec send;
    std::vector<SideSpec> recv; // disjoint groups
    dri::Strategy strategy = dri::Strategy::automatic;
    bool shared_buffers = false;
    bool nonblocking = false;
    int frames = 3;
};

// Whether a forced strategy can apply to every pair of the fan-out.
bool applies(const Fanout& f, const std::vector<SideRun>& sides) {
    for (std::size_t k = 1; k < sides.size(); ++k) {
        const PairsByNode p =
            pairs_by_node({&sides[0].dist, sides[0].layout}, {&sides[k].dist, sides[k].layout},
                          f.send.ranks, f.recv[k - 1].ranks);
        if (!forced_applies(f.strategy, p, f.shared_buffers)) return false;
    }
    return true;
}

void run_frame(dri::Transfer& t, bool nonblocking, int f) {
    if (!nonblocking) return t.execute();
    t.start();
    if (f % 2)
        while (!t.test()) {
        }
    else
        t.wait();
}

// Collective over world(): this rank's first error, "" when none.
std::string run_fanout(const Fanout& f) {
    const core::Shape shape(core::parse_shape(f.shape), core::parse_type(f.type));
    std::vector<SideRun> sides;
    sides.emplace_back(shape, f.send);
    for (const SideSpec& s : f.recv)
        sides.emplace_back(shape, s);
    dri::Transfer t("zebra");
    t.strategy(f.strategy);
    sides[0].make_ring(2, f.shared_buffers);
    if (sides[0].api) t.send(*sides[0].api, to_api(f.send.layout), sides[0].ring);
    SideRun* mine = nullptr; // this process's receiving side
    for (std::size_t k = 1; k < sides.size(); ++k) {
        if (!sides[k].api) continue;
        mine = &sides[k];
        mine->make_ring(static_cast<int>(k) + 1, false); // rings of different lengths
        t.recv(*mine->api, to_api(mine->layout), mine->ring);
    }
    const bool part = sides[0].api || mine;
    try {
        part ? dri::commit(world(), {&t}) : dri::commit(world(), {});
    } catch (const dri::Error& e) {
        if (applies(f, sides) || e.code() != dri::Errc::strategy) throw;
        return {};
    }
    if (!applies(f, sides)) return "a forced strategy committed where it cannot apply";
    for (int fr = 0; fr < f.frames && part; ++fr) {
        if (sides[0].api) {
            auto& b = sides[0].ring[static_cast<std::size_t>(fr % 2)];
            fill_sender(sides[0].dist, sides[0].layout, sides[0].group.index(), b.data(),
                        static_cast<core::Index>(b.size()), fr);
        }
        std::span<std::byte> got;
        if (mine) {
            got = mine->ring[static_cast<std::size_t>(fr) % mine->ring.size()];
            std::fill(got.begin(), got.end(), std::byte{recv_poison});
        }
        run_frame(t, f.nonblocking, fr);
        if (!mine) continue;
        std::string err = check_receiver(mine->dist, mine->layout, mine->group.index(), got.data(),
                                         static_cast<core::Index>(got.size()), fr);
        if (!err.empty()) return "frame " + std::to_string(fr) + ": " + err;
    }
    return {};
}

// Every strategy, blocking and not; SHARED, HYBRID and AUTO once more with
// the producer's ring in node shared memory.
void check(Fanout f) {
    using S = dri::Strategy;
    int i = 0;
    for (auto [s, shared] : {std::pair{S::alltoallw, false},
                             {S::packed, false},
                             {S::p2p, false},
                             {S::automatic, false},
                             {S::measure, false},
                             {S::automatic, true},
                             {S::shared, true},
                             {S::hybrid, true},
                             {S::nodes, false}}) {
        // MEASURE times every candidate of every pair: at 3 ranks and on
        // simulated nodes, not on 7 oversubscribed ranks.
        if (s == S::measure && world_size() > 6) continue;
        f.strategy = s;
        f.shared_buffers = shared;
        f.nonblocking = ++i % 2 == 0;
        CAPTURE(static_cast<int>(s));
        CAPTURE(shared);
        const std::string err = run_fanout(f);
        CHECK_MESSAGE(err.empty(), err);
        int bad = err.empty() ? 0 : 1;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world());
        CHECK(bad == 0);
    }
}

// The ranks r of world() with r % k == i: k disjoint groups that cover it.
std::vector<int> every(int k, int i) {
    std::vector<int> v;
    for (int r = i; r < world_size(); r += k)
        v.push_back(r);
    return v;
}

std::vector<int> all_ranks() {
    return every(1, 0);
}

core::Layout col_major(int nd) {
    std::vector<int> order(static_cast<std::size_t>(nd));
    for (int d = 0; d < nd; ++d)
        order[static_cast<std::size_t>(d)] = nd - 1 - d;
    return core::Layout::ordered(order);
}

} // namespace

TEST_CASE("zebra: one producer rank, two consumer ranks with different layouts") {
    if (world_size() < 3) return; // the forum's example needs three processes
    Fanout f{"40x24", "cfloat", {"whole,whole", core::Layout::packed(2), {0}}, {}};
    f.recv = {{"whole,whole", col_major(2), {1}},                      // the beamformer: columns
              {"block~1:2:wrap,whole", core::Layout::packed(2), {2}}}; // the detector: halo rows
    check(f);
}

TEST_CASE("fan-out to 1-3 receiving sides over disjoint and overlapping groups") {
    const int k = std::min(3, world_size());
    SUBCASE("block rows to columns, cyclic blocks and halo rows; the producers consume too") {
        Fanout f{"30x22", "int32", {"block,whole", core::Layout::packed(2), all_ranks()}, {}};
        const char* parts[] = {"whole,block", "cyclic(3),whole", "block~2:1:replicate,whole"};
        for (int i = 0; i < k; ++i)
            f.recv.push_back(
                {parts[i], i == 1 ? col_major(2) : core::Layout::packed(2), every(k, i)});
        check(f);
    }
    SUBCASE("3-D with zero and wrap edges and padded layouts, producers apart") {
        const int half = std::max(1, world_size() / 2);
        std::vector<int> producers, consumers;
        for (int r = 0; r < world_size(); ++r)
            (r < half || world_size() == 1 ? producers : consumers).push_back(r);
        if (consumers.empty()) consumers = producers;
        Fanout f{"9x10x7", "double", {"block,block,whole", core::Layout::packed(3), producers}, {}};
        const char* parts[] = {"whole~1:1:zero,block,whole", "block(2),whole,whole~0:2:wrap",
                               "whole,whole,block"};
        const int kc = std::min(3, static_cast<int>(consumers.size()));
        for (int i = 0; i < kc; ++i) {
            std::vector<int> g;
            for (std::size_t j = static_cast<std::size_t>(i); j < consumers.size();
                 j += static_cast<std::size_t>(kc))
                g.push_back(consumers[j]);
            f.recv.push_back({parts[i], core::Layout::ordered({2, 0, 1}, {1, 0, 3}), g});
        }
        check(f);
    }
}

// The error a commit of t over the world throws (success and "" if none).
std::pair<dri::Errc, std::string> commit_error(dri::Transfer& t) {
    try {
        dri::commit(world(), {&t});
    } catch (const dri::Error& e) {
        return {e.code(), e.what()};
    }
    return {dri::Errc::success, ""};
}

TEST_CASE("fan-out: a process in two receiving sides is refused alike everywhere") {
    if (world_size() < 2) return;
    // Rank 1 declares (and, first in its group, publishes) a side {1, 0};
    // rank 0 declares the side {0}, so rank 0 is in two receiving sides.
    // A row for every sender, from 8 x 6 up.
    const core::Shape shape({std::max(8, world_size()), 6}, core::parse_type("int16"));
    const int me = world_rank();
    const std::vector<int> pair = {1, 0}, alone = {0};
    const dri::Group gs(world(), all_ranks()), g2(world(), pair), g1(world(), alone);
    const dri::Distribution ds(to_api(shape), to_api(core::parse_partition("block,whole")), gs);
    std::vector<std::byte> sbuf(static_cast<std::size_t>(ds.block(dri::Layout::packed(2)).bytes)),
        rbuf(static_cast<std::size_t>(shape.elements()) * 2);
    dri::Transfer t("twice");
    std::vector<std::span<std::byte>> sring{sbuf}, rring{rbuf};
    t.send(ds, dri::Layout::packed(2), sring);
    std::optional<dri::Distribution> dr, d2; // distributions are collective over their group
    if (me <= 1) d2.emplace(to_api(shape), to_api(core::parse_partition("whole,block")), g2);
    if (me == 0) dr.emplace(to_api(shape), to_api(core::parse_partition("whole,whole")), g1);
    if (me == 1) dr = std::move(d2);
    if (dr) t.recv(*dr, dri::Layout::packed(2), rring);
    const auto [code, msg] = commit_error(t);
    CHECK(code == dri::Errc::inconsistent);
    CHECK_MESSAGE(msg.find("rank 0 is in two receiving sides") != std::string::npos, msg);
}

TEST_CASE("fan-out: a process in two receiving sides, first in the one it did not declare") {
    if (world_size() < 3) return;
    // Ranks 0 and 1 declare a side {0, 1}; rank 2 declares a side {1, 2}
    // that rank 1, its first process, did not declare (rank 1 declared the
    // other). Before, rank 2 was told that rank 1 declared nothing. A row
    // for every sender, from 8 x 6 up.
    const core::Shape shape({std::max(8, world_size()), 6}, core::parse_type("int16"));
    const int me = world_rank();
    const std::vector<int> first = {0, 1}, second = {1, 2};
    const dri::Group gs(world(), all_ranks()), g1(world(), first), g2(world(), second);
    const dri::Distribution ds(to_api(shape), to_api(core::parse_partition("block,whole")), gs);
    std::vector<std::byte> sbuf(static_cast<std::size_t>(ds.block(dri::Layout::packed(2)).bytes)),
        rbuf(static_cast<std::size_t>(shape.elements()) * 2);
    dri::Transfer t("twice, other order");
    std::vector<std::span<std::byte>> sring{sbuf}, rring{rbuf};
    t.send(ds, dri::Layout::packed(2), sring);
    std::optional<dri::Distribution> d1, d2; // collective over their groups
    if (me <= 1) d1.emplace(to_api(shape), to_api(core::parse_partition("whole,block")), g1);
    if (me == 1 || me == 2)
        d2.emplace(to_api(shape), to_api(core::parse_partition("block,whole")), g2);
    if (me <= 1) t.recv(*d1, dri::Layout::packed(2), rring);
    if (me == 2) t.recv(*d2, dri::Layout::packed(2), rring);
    const auto [code, msg] = commit_error(t);
    CHECK_MESSAGE(code == dri::Errc::inconsistent, msg);
    CHECK_MESSAGE(msg.find("rank 1 is in two receiving sides") != std::string::npos, msg);
}

TEST_CASE("fan-out: two sending sides of one name are DRI_ERR_INCONSISTENT everywhere") {
    if (world_size() < 2) return;
    // Ranks 0 and 1 each declare a sending side over themselves alone.
    const core::Shape shape(core::parse_shape("8x64"), core::parse_type("int16"));
    const int me = world_rank();
    const dri::Group all(world(), all_ranks());
    const dri::Distribution dr(to_api(shape), to_api(core::parse_partition("whole,block")), all);
    std::vector<std::byte> sbuf(8 * 64 * 2),
        rbuf(static_cast<std::size_t>(dr.block(dri::Layout::packed(2)).bytes));
    dri::Transfer t("two senders");
    std::vector<std::span<std::byte>> sring{sbuf}, rring{rbuf};
    std::optional<dri::Group> mine;
    std::optional<dri::Distribution> ds;
    if (me <= 1) {
        mine.emplace(world(), std::vector<int>{me});
        ds.emplace(to_api(shape), to_api(core::parse_partition("whole,whole")), *mine);
        t.send(*ds, dri::Layout::packed(2), sring);
    }
    t.recv(dr, dri::Layout::packed(2), rring);
    const auto [code, msg] = commit_error(t);
    CHECK_MESSAGE(code == dri::Errc::inconsistent, msg);
    CHECK_MESSAGE(msg.find("a name has one sending side") != std::string::npos, msg);
}

// Box distributions over MPI: random box partitions (several boxes per
// member, empty boxes, members without boxes, receiving sides that do not
// cover) against box or ordinary partitions on the other side, created from
// each member's own boxes or from the one list of all, every strategy in
// turn, several frames; every byte of every receive buffer checked against
// the in-memory oracle. Where both sides are box sides and the receivers
// cover the array, the REPLACE reverse brings every element back.
// Then the errors: overlapping boxes, a sending side that does not cover,
// a padded layout. DRI_SEED replays a run, DRI_MPI_CASES sets the number of
// cases.
#include "case_replay.hpp"
#include "mpi_world.hpp"
#include "nodes.hpp"
#include "random_boxes.hpp"
#include "random_case.hpp"
#include "simulate.hpp"
#include "to_api.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <optional>

namespace {

using dri::Index;
namespace core = dri::core;
namespace test = dri::test;

// One side of a case: its core distribution (the oracle's) and, on its
// members, the API's, made from boxes (own or all) or from the partition.
struct SideCase {
    std::unique_ptr<core::Distribution> dist;
    core::Partition part; // when not boxes
    core::Layout layout = core::Layout::packed(1);
    std::vector<int> ranks;

    std::optional<dri::Distribution> make(const dri::GlobalData& gd, const dri::Group& g,
                                          bool all_scope) const {
        if (!g.contains_me()) return std::nullopt;
        if (!dist->boxes())
            return dri::Distribution(gd, test::to_api(part), g,
                                     static_cast<dri::GridOrder>(dist->grid_order()));
        std::vector<dri::Box> boxes;
        std::vector<int> owners;
        for (int m = 0; m < dist->nprocs(); ++m) {
            if (!all_scope && m != g.index()) continue;
            for (const core::Box& b : dist->boxes()->boxes(m)) {
                boxes.push_back({b.first, b.last});
                owners.push_back(m);
            }
        }
        return all_scope ? dri::Distribution::from_boxes(gd, g, boxes, owners)
                         : dri::Distribution::from_boxes(gd, g, boxes);
    }
    Index bytes(int index) const {
        return core::bind_layout(layout, dist->local_extents(index), dist->shape().elem_size())
            .bytes;
    }
};

using Ring = std::vector<std::vector<std::byte, dri::allocator<std::byte>>>;

std::vector<std::span<std::byte>> spans(Ring& ring) {
    std::vector<std::span<std::byte>> out;
    for (auto& b : ring)
        out.emplace_back(b.data(), b.size());
    return out;
}

// Collective over world(): this rank's first error, "" if none.
std::string run_case(const core::Shape& shape, const SideCase& snd, const SideCase& rcv,
                     dri::Strategy strategy, bool all_scope, int nbuf, bool reverse) {
    const dri::GlobalData gd = test::to_api(shape);
    const dri::Group sg(test::world(), snd.ranks), rg(test::world(), rcv.ranks);
    const std::optional<dri::Distribution> sd = snd.make(gd, sg, all_scope);
    const std::optional<dri::Distribution> rd = rcv.make(gd, rg, !all_scope);
    // The API's sizes agree with the oracle's.
    std::string err;
    if (sd && snd.dist->boxes()) {
        std::vector<dri::Box> given;
        for (const core::Box& b : snd.dist->boxes()->boxes(sg.index()))
            given.push_back({b.first, b.last});
        if (sd->boxes(sg.index()) != given) err = "the API lists other boxes than were given";
    }
    Ring sring, rring;
    const auto elem = static_cast<std::size_t>(shape.elem_size());
    for (int i = 0; i < nbuf && sd; ++i)
        sring.emplace_back(static_cast<std::size_t>(snd.bytes(sg.index())));
    for (int i = 0; i < nbuf && rd; ++i)
        rring.emplace_back(static_cast<std::size_t>(rcv.bytes(rg.index())));
    if (sd && snd.dist->boxes() &&
        static_cast<Index>(sd->cells(sg.index()) * static_cast<Index>(elem)) !=
            snd.bytes(sg.index()))
        err = "Distribution::cells differs from the oracle's buffer size";
    dri::Transfer t("boxes");
    t.strategy(strategy);
    if (sd) t.send(*sd, test::to_api(snd.layout), spans(sring));
    if (rd) t.recv(*rd, test::to_api(rcv.layout), spans(rring));
    const bool applies = test::forced_applies(strategy,
                                              test::pairs_by_node({snd.dist.get(), snd.layout},
                                                                  {rcv.dist.get(), rcv.layout},
                                                                  snd.ranks, rcv.ranks),
                                              true);
    try {
        if (sd || rd)
            dri::commit(test::world(), {&t});
        else
            dri::commit(test::world(), {});
    } catch (const dri::Error& e) {
        if (applies || e.code() != dri::Errc::strategy) throw;
        return err;
    }
    if (!sd && !rd) return err;
    for (int f = 0; f < 3; ++f) {
        if (sd) {
            auto& b = sring[static_cast<std::size_t>(f % nbuf)];
            test::fill_sender(*snd.dist, snd.layout, sg.index(), b.data(),
                              static_cast<Index>(b.size()), f);
        }
        if (rd) {
            auto& b = rring[static_cast<std::size_t>(f % nbuf)];
            std::fill(b.begin(), b.end(), std::byte{test::recv_poison});
        }
        t.execute();
        if (rd && err.empty()) {
            const auto& b = rring[static_cast<std::size_t>(f % nbuf)];
            err = test::check_receiver(*rcv.dist, rcv.layout, rg.index(), b.data(),
                                       static_cast<Index>(b.size()), f);
        }
    }
    if (!reverse) return err;
    // The receivers' owned cells (frame 7) back into the senders' boxes.
    dri::Transfer rev = t.reverse(dri::Combine::replace);
    if (rd)
        test::fill_sender(*rcv.dist, rcv.layout, rg.index(), rring[0].data(),
                          static_cast<Index>(rring[0].size()), 7);
    if (sd) std::fill(sring[0].begin(), sring[0].end(), std::byte{test::recv_poison});
    rev.execute();
    if (sd && err.empty())
        err = "reverse: " + test::check_receiver(*snd.dist, snd.layout, sg.index(), sring[0].data(),
                                                 static_cast<Index>(sring[0].size()), 7);
    return err == "reverse: " ? std::string() : err;
}

} // namespace

TEST_CASE("box distributions over MPI deliver every byte, every strategy, and reverse") {
    int rank = 0, world = 1;
    MPI_Comm_rank(test::world(), &rank);
    MPI_Comm_size(test::world(), &world);
    unsigned long long seed = test::env_u64("DRI_SEED", std::random_device{}());
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, test::world());
    const std::uint64_t cases = test::env_u64("DRI_MPI_CASES", 42);
    if (rank == 0)
        std::printf("box MPI test: seed %llu, %llu cases, %d ranks\n", seed,
                    (unsigned long long)cases, world);
    int failures = 0;
    for (std::uint64_t i = 0; i < cases && failures <= 3; ++i) {
        const std::uint64_t cs = test::mix_seed(seed ^ test::mix_seed(i ^ 0xB0C5));
        test::CaseGenerator gen(cs, std::min(world, 7), 2000);
        test::RandomCase c = gen.draw();
        std::mt19937_64 rng(test::mix_seed(cs));
        const int mode = static_cast<int>(i % 3); // 0 both boxes, 1 send boxes, 2 recv boxes
        SideCase snd, rcv;
        std::string desc;
        const int np = std::min(world, 7);
        if (mode != 2) {
            c.send_procs = std::uniform_int_distribution<int>(1, np)(rng);
            snd.dist = test::random_box_distribution(rng, c.shape, c.send_procs, true);
            snd.layout = test::random_box_layout(rng, c.shape.ndims());
            desc += "\n  send boxes:" + test::describe_boxes(*snd.dist);
        } else {
            snd.dist = std::move(c.send_dist);
            snd.part = c.send_part;
            snd.layout = c.send_layout;
        }
        const bool recv_covers = mode == 1 || i % 2 == 0;
        if (mode != 1) {
            c.recv_procs = std::uniform_int_distribution<int>(1, np)(rng);
            rcv.dist = test::random_box_distribution(rng, c.shape, c.recv_procs, recv_covers);
            rcv.layout = test::random_box_layout(rng, c.shape.ndims());
            desc += "\n  recv boxes:" + test::describe_boxes(*rcv.dist);
        } else {
            rcv.dist = std::move(c.recv_dist);
            rcv.part = c.recv_part;
            rcv.layout = c.recv_layout;
        }
        snd.ranks = test::random_ranks(rng, world, c.send_procs);
        rcv.ranks = test::random_ranks(rng, world, c.recv_procs);
        // Every strategy in turn (AUTO, ALLTOALLW, PACKED, P2P, MEASURE,
        // SHARED, HYBRID); send rings in node shared memory for the last two.
        const auto strategy = static_cast<dri::Strategy>(i % 8);
        // REPLACE needs one owner per element: box receivers that cover.
        const bool reverse = mode == 0 && recv_covers;
        INFO("case " << i << " (replay: DRI_SEED=" << seed << ")\n  " << c.describe() << desc);
        std::string err;
        try {
            err = run_case(c.shape, snd, rcv, strategy, i % 4 < 2, 1 + static_cast<int>(i % 2),
                           reverse);
        } catch (const dri::Error& e) {
            err = std::string("error: ") + e.what();
        }
        CHECK_MESSAGE(err.empty(), err);
        int bad = err.empty() ? 0 : 1;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, test::world());
        failures += bad;
    }
}

namespace {

// The code every rank got from f, the same on every rank.
dri::Errc code_everywhere(const std::function<void()>& f) {
    dri::Errc code = dri::Errc::success;
    try {
        f();
    } catch (const dri::Error& e) {
        code = e.code();
    }
    int c = static_cast<int>(code), lo = c, hi = c;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, test::world());
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, test::world());
    CHECK(lo == hi);
    return code;
}

} // namespace

TEST_CASE("box distributions: the same error on every member") {
    int rank = 0, world = 1;
    MPI_Comm_rank(test::world(), &rank);
    MPI_Comm_size(test::world(), &world);
    const dri::GlobalData gd({8, 5}, dri::Type::int32);
    // Rows for every rank's two boxes below (8 up to 7 ranks).
    const dri::GlobalData tall({std::max(8, world + 1), 5}, dri::Type::int32);
    std::vector<int> everyone(static_cast<std::size_t>(world));
    std::iota(everyone.begin(), everyone.end(), 0);
    const dri::Group all(test::world(), everyone);
    // Each member owns rows rank..rank+1: neighbours overlap by one row
    // (with one rank, its two boxes do).
    std::vector<dri::Box> mine{{{rank, 0}, {rank + 1, 4}}};
    if (world == 1) mine.push_back({{1, 0}, {1, 4}});
    CHECK(code_everywhere([&] { (void)dri::Distribution::from_boxes(tall, all, mine); }) ==
          dri::Errc::not_disjoint);
    // Outside the array, on the last rank only.
    std::vector<dri::Box> outside;
    if (rank == world - 1) outside.push_back({{0, 0}, {8, 4}});
    CHECK(code_everywhere([&] { (void)dri::Distribution::from_boxes(gd, all, outside); }) ==
          dri::Errc::partition);
    // A box of the wrong dimension count, on rank 0 only.
    std::vector<dri::Box> flat;
    if (rank == 0) flat.push_back({{0}, {7}});
    CHECK(code_everywhere([&] { (void)dri::Distribution::from_boxes(gd, all, flat); }) ==
          dri::Errc::ndims);
    // An owner outside the group.
    CHECK(code_everywhere([&] {
              (void)dri::Distribution::from_boxes(gd, all, {{{0, 0}, {7, 4}}}, {world});
          }) == dri::Errc::arg);
    // Rank 0 owns everything: a valid sending side. Rank 0 owning only the
    // first row: a receiving side that does not cover, refused as a sender.
    const dri::Distribution full = dri::Distribution::from_boxes(gd, all, {{{0, 0}, {7, 4}}}, {0});
    const dri::Distribution row = dri::Distribution::from_boxes(gd, all, {{{0, 0}, {0, 4}}}, {0});
    CHECK(full.cells(0) == 40);
    CHECK(row.cells(0) == 5);
    CHECK(row.boxes(0) == std::vector<dri::Box>{{{0, 0}, {0, 4}}});
    const dri::Layout packed = dri::Layout::ordered({0, 1});
    std::vector<std::byte> a(40 * 4), b(40 * 4);
    auto commit_code = [&](const dri::Distribution& s, const dri::Distribution& r,
                           const dri::Layout& l) {
        return code_everywhere([&] {
            dri::Transfer t("bad boxes");
            t.send(s, l, std::vector<std::span<std::byte>>{std::span(a)});
            t.recv(r, l, std::vector<std::span<std::byte>>{std::span(b)});
            dri::commit(test::world(), {&t});
        });
    };
    CHECK(commit_code(row, full, packed) == dri::Errc::not_covering);
    CHECK(commit_code(full, row, dri::Layout::ordered({0, 1}, {0, 1})) == dri::Errc::layout);
    CHECK(commit_code(full, row, packed) == dri::Errc::success);
}

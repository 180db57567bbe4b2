// Box partitions (core/box_partition.hpp) and planning by box intersection
// (core/box_plan.hpp): validation, storage, and seeded randomized property
// tests against the in-memory oracle with boxes on one side or both.
// DRI_SEED=<n> replays a run, DRI_CASE=<i> one case, DRI_CASES=<n> sets the
// number of cases (default 2500).
#include "random_boxes.hpp"
#include "random_case.hpp"
#include "simulate.hpp"

#include "core/box_plan.hpp"
#include "spec_options.hpp"

#include <cstdio>
#include <fstream>

#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>
#include <iostream>

using namespace dri;
using core::Box;
using core::Errc;
using core::Index;

namespace {

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

core::Shape shape2(Index a, Index b) {
    return core::Shape({a, b}, core::ElementType::predefined(core::ElemKind::int32));
}

Errc code_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const core::Error& e) {
        return e.code();
    }
    return Errc::success;
}

std::shared_ptr<const core::BoxPartition> boxes(core::Shape s,
                                                std::vector<std::vector<Box>> lists) {
    return std::make_shared<const core::BoxPartition>(std::move(s), std::move(lists));
}

} // namespace

TEST_CASE("box partition: validation names the box and the member") {
    const core::Shape s = shape2(4, 6);
    CHECK(code_of([&] { boxes(s, {{Box{{0, 0}, {3, 6}}}}); }) == Errc::partition);
    CHECK(code_of([&] { boxes(s, {{Box{{-1, 0}, {3, 5}}}}); }) == Errc::partition);
    CHECK(code_of([&] { boxes(s, {{Box{{2, 0}, {0, 5}}}}); }) == Errc::partition);
    CHECK(code_of([&] { boxes(s, {{Box{{0}, {3}}}}); }) == Errc::ndims);
    CHECK(code_of([&] { boxes(s, {}); }) == Errc::group);
    // Empty boxes: last = first - 1, first up to the extent.
    CHECK(code_of([&] {
              boxes(s, {{Box{{4, 0}, {3, 5}}}, {Box{{0, 0}, {3, 5}}}});
          }) == Errc::success);
    try {
        boxes(s, {{Box{{0, 0}, {1, 5}}}, {Box{{2, 0}, {3, 2}}, Box{{1, 3}, {3, 5}}}});
        FAIL("overlapping boxes accepted");
    } catch (const core::Error& e) {
        CHECK(e.code() == Errc::not_disjoint);
        CHECK(std::string(e.what()).find("box 0 (0:1,0:5) of member 0 and box 1 (1:3,3:5) of "
                                         "member 1") != std::string::npos);
    }
    // Within one member too.
    CHECK(code_of([&] {
              boxes(s, {{Box{{0, 0}, {3, 3}}, Box{{3, 3}, {3, 5}}}});
          }) == Errc::not_disjoint);
}

TEST_CASE("box partition: storage is the boxes one after another, each dense in layout order") {
    const auto bp = boxes(shape2(4, 6), {{Box{{0, 0}, {1, 2}}, Box{{2, 0}, {3, 5}}}, {}});
    CHECK(bp->cells(0) == 6 + 12);
    CHECK(bp->cells(1) == 0);
    CHECK(bp->box_offset(0, 1) == 6);
    const core::Distribution d(bp);
    CHECK(d.local_extents(0) == std::vector<Index>{18, 1});
    CHECK(core::box_strides(core::Layout::packed(2), {2, 3}) == std::vector<Index>{3, 1});
    CHECK(core::box_strides(core::Layout::ordered({1, 0}), {2, 3}) == std::vector<Index>{1, 2});
    CHECK(code_of([&] {
              core::check_box_layout(core::Layout::ordered({0, 1}, {0, 1}));
          }) == Errc::layout);
    CHECK(code_of([&] { core::check_box_layout(core::Layout::strided({6, 1})); }) == Errc::layout);
    // Per-process layouts on a box side: one order for every member.
    const core::Side own(&d, core::Layout::packed(2),
                         {core::Layout::packed(2), core::Layout::ordered({1, 0})});
    const core::Side same(&d, core::Layout::packed(2),
                          {core::Layout::packed(2), core::Layout::packed(2)});
    CHECK(code_of([&] { core::check_box_sides(own, same); }) == Errc::layout);
    CHECK(code_of([&] { core::check_box_sides(same, same); }) == Errc::success);
}

TEST_CASE("box plan: the sending side must cover, the receiving side need not") {
    const core::Shape s = shape2(4, 6);
    const core::Distribution part(boxes(s, {{Box{{0, 0}, {3, 2}}}, {Box{{0, 4}, {3, 5}}}}));
    const core::Distribution full(boxes(s, {{Box{{0, 0}, {3, 5}}}}));
    const core::Layout l = core::Layout::packed(2);
    CHECK(code_of([&] { core::plan_local({&part, l}, {&full, l}, 0, -1); }) == Errc::not_covering);
    const core::LocalPlan p = core::plan_local({&full, l}, {&part, l}, 0, -1);
    REQUIRE(p.sends.size() == 2);
    CHECK(p.sends[0].elements == 12);
    CHECK(p.sends[1].elements == 8);
    // Member 1's box is columns 4..5 of every row: 4 rows of 2 elements.
    REQUIRE(p.sends[1].regions.size() == 1);
    CHECK(p.sends[1].regions[0].s_off == 4 * 4);
    CHECK(p.sends[1].regions[0].r_off == 0);
    CHECK(p.sends[1].regions[0].axes == std::vector<core::Axis>{{4, 6 * 4, 2 * 4}, {2, 4, 4}});
    const core::Layout padded = core::Layout::ordered({0, 1}, {0, 1});
    CHECK(code_of([&] { core::plan_local({&full, padded}, {&part, l}, 0, -1); }) == Errc::layout);
}

TEST_CASE("property: random box reorganizations deliver every cell exactly") {
    const std::uint64_t seed = env_u64("DRI_SEED", std::random_device{}());
    const std::uint64_t cases = env_u64("DRI_CASES", 2500);
    const char* only = std::getenv("DRI_CASE");
    const std::uint64_t first = only ? env_u64("DRI_CASE", 0) : 0;
    const std::uint64_t last = only ? first + 1 : cases;
    std::cout << "box property test: seed " << seed << ", cases " << first << ".." << last - 1
              << '\n';
    long long cells = 0;
    std::uint64_t failures = 0;
    for (std::uint64_t i = first; i < last && failures < 5; ++i) {
        const std::uint64_t cs = test::mix_seed(seed ^ test::mix_seed(i ^ 0xB0C5));
        test::CaseGenerator gen(cs);
        std::mt19937_64 rng(test::mix_seed(cs));
        test::RandomCase c = gen.draw();
        // 0: boxes on both sides, 1: boxes send to a tensor partition, 2: the reverse.
        const int mode = static_cast<int>(i % 3);
        std::string desc;
        if (mode != 2) {
            c.send_procs = std::uniform_int_distribution<int>(1, 7)(rng);
            c.send_dist = test::random_box_distribution(rng, c.shape, c.send_procs, true);
            c.send_layout = test::random_box_layout(rng, c.shape.ndims());
            c.send_layouts.clear(); // the tensor partition's, which the boxes replace
            desc += "\n  send boxes:" + test::describe_boxes(*c.send_dist);
        }
        if (mode != 1) {
            c.recv_procs = std::uniform_int_distribution<int>(1, 7)(rng);
            c.recv_dist = test::random_box_distribution(rng, c.shape, c.recv_procs, i % 2 == 0);
            c.recv_layout = test::random_box_layout(rng, c.shape.ndims());
            c.recv_layouts.clear();
            desc += "\n  recv boxes:" + test::describe_boxes(*c.recv_dist);
        }
        const auto roles = test::make_roles(c.send_procs, c.recv_procs, c.shared);
        test::SimResult res;
        try {
            // The notation prints every box partition canonically and reads it back.
            for (const core::Distribution* d : {c.send_dist.get(), c.recv_dist.get()})
                if (d->boxes() &&
                    core::parse_boxes(core::to_string(*d->boxes())) != d->boxes()->all())
                    res = {false,
                           "\"" + core::to_string(*d->boxes()) + "\" parses back to other boxes", 0,
                           0};
            res = test::simulate(c.send(), c.recv(), roles);
            // pair_regions (the viewer's per-pair form) agrees with the plans.
            for (int s = 0; s < c.send_procs && res.ok; ++s) {
                const core::LocalPlan p = core::plan_local(c.send(), c.recv(), s, -1);
                for (const core::PeerRegions& pr : p.sends)
                    if (core::pair_regions(c.send(), c.recv(), s, pr.peer) != pr.regions)
                        res = {false, "pair_regions differs from plan_local", 0, 0};
            }
        } catch (const std::exception& e) {
            res.ok = false;
            res.error = std::string("exception: ") + e.what();
        }
        if (!res.ok) {
            ++failures;
            FAIL_CHECK("case " << i << " failed: " << res.error << "\n  " << c.describe() << desc
                               << "\n  replay: DRI_SEED=" << seed << " DRI_CASE=" << i);
        }
        cells += res.cells_checked;
    }
    std::cout << "box property test: checked " << cells << " receive cells\n";
    CHECK(failures == 0);
}

TEST_CASE("box notation: inline, from a file, and its errors") {
    const core::Shape s = shape2(8, 6);
    const std::string text = "boxes:0:3,0:5;4:7,0:1/-/4:7,2:5";
    const auto lists = core::parse_boxes(text);
    REQUIRE(lists.size() == 3);
    CHECK(lists[0] == std::vector<Box>{{{0, 0}, {3, 5}}, {{4, 0}, {7, 1}}});
    CHECK(lists[1].empty());
    CHECK(core::to_string(core::BoxPartition(s, lists)) == "boxes:0:3,0:5;4:7,0:1//4:7,2:5");
    CHECK(core::parse_boxes("boxes:").size() == 1);
    for (const char* bad : {"boxes:0:3,0", "boxes:0:3;", "boxes:a:3,0:5", "boxes:0:3:4,0:5",
                            "block,whole", "boxes:0:3,,0:5"})
        CHECK_MESSAGE(code_of([&] { core::parse_boxes(bad); }) == Errc::arg, bad);
    // A file: one member per line, comments and blank lines dropped.
    const std::string file = "test_box_plan_boxes.txt";
    std::ofstream(file) << "# two members\n0:3,0:5 ; 4:7,0:1\n\n4:7,2:5  # the rest\n";
    const core::Distribution d = tools::make_distribution(s, "boxes@" + file, 0);
    std::remove(file.c_str());
    REQUIRE(d.boxes());
    CHECK(d.boxes()->all() == core::parse_boxes("boxes:0:3,0:5;4:7,0:1/4:7,2:5"));
    CHECK(code_of([&] { tools::make_distribution(s, text, 2); }) == Errc::arg);
    CHECK(code_of([&] { tools::make_distribution(s, "boxes@no/such/file", 0); }) == Errc::arg);
    CHECK(tools::implied_procs(text) == 3);
    CHECK(tools::implied_procs("block,whole") == 0);
}

// With ordinary partitions on both sides each process is one tile, and the
// tile planner must give exactly the regions of the tensor planner (overlap,
// every edge policy, block-cyclic, layouts): the ordinary side of a mixed
// transfer is planned by the same code.
TEST_CASE("property: the tile planner equals the tensor planner on ordinary partitions") {
    const std::uint64_t seed = env_u64("DRI_SEED", std::random_device{}());
    const std::uint64_t cases = env_u64("DRI_CASES", 2500) / 2;
    std::uint64_t failures = 0;
    const auto same = [](const std::vector<core::PeerRegions>& a,
                         const std::vector<core::PeerRegions>& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t k = 0; k < a.size(); ++k)
            if (a[k].peer != b[k].peer || a[k].elements != b[k].elements ||
                a[k].regions != b[k].regions)
                return false;
        return true;
    };
    for (std::uint64_t i = 0; i < cases && failures < 5; ++i) {
        test::CaseGenerator gen(test::mix_seed(seed ^ test::mix_seed(i ^ 0x711E)));
        const test::RandomCase c = gen.draw();
        const auto roles = test::make_roles(c.send_procs, c.recv_procs, c.shared);
        std::string fault;
        for (std::size_t p = 0; p < roles.send_of.size() && fault.empty(); ++p)
            for (core::Cells cells : {core::Cells::all, core::Cells::owned}) {
                const int s = roles.send_of[p], r = roles.recv_of[p];
                const core::LocalPlan a = core::plan_local(c.send(), c.recv(), s, r, cells);
                const core::LocalPlan b = core::plan_local_boxes(c.send(), c.recv(), s, r, cells);
                if (!same(a.sends, b.sends) || !same(a.recvs, b.recvs) || a.self != b.self ||
                    a.fills != b.fills)
                    fault = "process " + std::to_string(p) + " plans differ";
            }
        if (!fault.empty()) {
            ++failures;
            FAIL_CHECK("case " << i << ": " << fault << "\n  " << c.describe()
                               << "\n  replay: DRI_SEED=" << seed);
        }
    }
    CHECK(failures == 0);
}

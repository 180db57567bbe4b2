#include "core/plan.hpp"
#include "errors.hpp"
#include "simulate.hpp"

#include <doctest/doctest.h>

using namespace dri::core;
using dri::test::code_of;

namespace {
const ElementType f32 = ElementType::predefined(ElemKind::float32);
}

TEST_CASE("corner turn 4x6: regions in both buffers") {
    const Shape s({4, 6}, f32);
    const Distribution rows(s, {DimPartition::block(), DimPartition::whole()}, 2);
    const Distribution cols(s, {DimPartition::whole(), DimPartition::block()}, 3);
    const Side send{&rows, Layout::packed(2)};
    const Side recv{&cols, Layout::ordered({1, 0})};

    // Sender 0 owns rows 0-1 (row-major, 6 floats a row); receiver 1 owns
    // columns 2-3 stored column-major (4 floats a column).
    const auto r01 = pair_regions(send, recv, 0, 1);
    REQUIRE(r01.size() == 1);
    CHECK(r01[0].s_off == 2 * 4);
    CHECK(r01[0].r_off == 0);
    CHECK(r01[0].axes == std::vector<Axis>{{2, 4, 16}, {2, 24, 4}});
    const auto r11 = pair_regions(send, recv, 1, 1);
    REQUIRE(r11.size() == 1);
    CHECK(r11[0].s_off == 2 * 4);
    CHECK(r11[0].r_off == 2 * 4);

    // Clique: process 0 is sender 0 and receiver 0; its own part is separate.
    const LocalPlan p0 = plan_local(send, recv, 0, 0);
    CHECK(p0.self.size() == 1);
    CHECK(p0.self[0].elements() == 4);
    REQUIRE(p0.sends.size() == 2);
    CHECK(p0.sends[0].peer == 1);
    CHECK(p0.sends[1].peer == 2);
    CHECK(p0.sends[0].elements == 4);
    REQUIRE(p0.recvs.size() == 1); // from sender 1 only
    CHECK(p0.recvs[0].peer == 1);
    CHECK(p0.send_layout.bytes == 2 * 6 * 4);
    CHECK(p0.recv_layout.bytes == 4 * 2 * 4);
    CHECK(p0.fills.empty());

    // A process that only receives (receiver 2) gets two messages.
    const LocalPlan p2 = plan_local(send, recv, -1, 2);
    CHECK(p2.sends.empty());
    CHECK(p2.self.empty());
    CHECK(p2.recvs.size() == 2);
}

TEST_CASE("contiguous pieces become one region with one axis") {
    const Shape s({8, 16}, f32);
    const Distribution a(s, {DimPartition::block(), DimPartition::whole()}, 2);
    const Distribution b(s, {DimPartition::block(), DimPartition::whole()}, 4);
    const auto regs = pair_regions({&a, Layout::packed(2)}, {&b, Layout::packed(2)}, 1, 3);
    REQUIRE(regs.size() == 1);
    CHECK(regs[0].axes == std::vector<Axis>{{2 * 16, 4, 4}});
    CHECK(regs[0].s_off == 2 * 16 * 4);
    CHECK(regs[0].r_off == 0);
}

TEST_CASE("block-cyclic receivers get one strided region, not one per block") {
    const Shape s({64}, f32);
    const Distribution a(s, {DimPartition::whole()}, 1);
    const Distribution b(s, {DimPartition::cyclic(2)}, 4);
    const auto regs = pair_regions({&a, Layout::packed(1)}, {&b, Layout::packed(1)}, 0, 1);
    REQUIRE(regs.size() == 1);
    // 8 blocks of 2, every 8 elements in the sender, back to back in the receiver.
    CHECK(regs[0].axes == std::vector<Axis>{{8, 8 * 4, 2 * 4}, {2, 4, 4}});
    CHECK(regs[0].s_off == 2 * 4);
    CHECK(code_of([&] { (void)regs[0].elements(); }) == Errc::success);
    const auto regs2 = pair_regions({&b, Layout::packed(1)}, {&a, Layout::packed(1)}, 1, 0);
    REQUIRE(regs2.size() == 1);
    CHECK(regs2[0].axes == std::vector<Axis>{{8, 2 * 4, 8 * 4}, {2, 4, 4}});
    CHECK(regs2[0].r_off == 2 * 4);
}

TEST_CASE("edge policies: zero padding is a fill, replicate repeats the edge") {
    const Shape s({4}, f32);
    const Distribution src(s, {DimPartition::block()}, 2);
    const Distribution zero(s, {DimPartition::whole(2, 2, EdgePolicy::zero)}, 1);
    const LocalPlan pz = plan_local({&src, Layout::packed(1)}, {&zero, Layout::packed(1)}, -1, 0);
    CHECK(pz.recv_layout.bytes == 8 * 4);
    REQUIRE(pz.fills.size() == 2);
    CHECK(pz.fills[0].r_off == 0);
    CHECK(pz.fills[1].r_off == 6 * 4);
    const Distribution rep(s, {DimPartition::whole(2, 2, EdgePolicy::replicate)}, 1);
    const auto regs = pair_regions({&src, Layout::packed(1)}, {&rep, Layout::packed(1)}, 0, 0);
    REQUIRE(regs.size() == 2);
    CHECK(regs[0].axes == std::vector<Axis>{{2, 0, 4}}); // element 0 twice
    for (auto e :
         {EdgePolicy::zero, EdgePolicy::replicate, EdgePolicy::wrap, EdgePolicy::truncate}) {
        const Distribution d(s, {DimPartition::whole(3, 4, e)}, 1);
        const auto res = dri::test::simulate({&src, Layout::packed(1)}, {&d, Layout::packed(1)},
                                             dri::test::make_roles(2, 1, false));
        CAPTURE(to_string(e));
        CHECK_MESSAGE(res.ok, res.error);
    }
}

TEST_CASE("check_sides: mismatched sides and bad senders are errors") {
    const Distribution a(Shape({4, 6}, f32), {DimPartition::block(), DimPartition::whole()}, 2);
    const Distribution b(Shape({6, 4}, f32), {DimPartition::block(), DimPartition::whole()}, 2);
    const Distribution c(Shape({4, 6}, ElementType::predefined(ElemKind::float64)),
                         {DimPartition::block(), DimPartition::whole()}, 2);
    const Distribution overlapping(
        Shape({4, 6}, f32),
        {DimPartition::explicit_ranges({{0, 2}, {2, 3}}), DimPartition::whole()}, 2);
    const Layout l2 = Layout::packed(2);
    CHECK(code_of([&] { check_sides({&a, l2}, {&b, l2}); }) == Errc::mismatch);
    CHECK(code_of([&] { check_sides({&a, l2}, {&c, l2}); }) == Errc::mismatch);
    CHECK(code_of([&] { check_sides({&overlapping, l2}, {&a, l2}); }) == Errc::not_disjoint);
    CHECK(code_of([&] {
              check_sides({&a, l2}, {&overlapping, l2});
          }) == Errc::success); // receivers may overlap
    CHECK(code_of([&] { check_sides({&a, Layout::packed(1)}, {&a, l2}); }) == Errc::layout);
    CHECK(code_of([&] { check_sides({nullptr, l2}, {&a, l2}); }) == Errc::null_pointer);
    CHECK(code_of([&] { plan_local({&a, l2}, {&a, l2}, 2, 0); }) == Errc::arg);
}

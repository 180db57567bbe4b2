#include "core/partition.hpp"
#include "errors.hpp"

#include <doctest/doctest.h>

#include <limits>

using namespace dri::core;
using dri::test::code_of;
using dri::test::thrown_by;

namespace {
const ElementType f32 = ElementType::predefined(ElemKind::float32);
}

TEST_CASE("partition validation: each malformed partition has its own error") {
    const Shape s({10, 8}, f32);
    auto check = [&](Partition p) { return code_of([&] { validate_partition(s, p); }); };
    CHECK(check({DimPartition::block(), DimPartition::whole()}) == Errc::success);
    CHECK(check({DimPartition::block()}) == Errc::partition); // wrong dimension count
    CHECK(check({DimPartition::block4(-1, 1, 5, 0), DimPartition::whole()}) == Errc::overlap);
    CHECK(check({DimPartition::block4(0, 1, 5, 11), DimPartition::whole()}) == Errc::overlap);
    CHECK(check({DimPartition::block4(0, 6, 5, 0), DimPartition::whole()}) == Errc::minmax);
    CHECK(check({DimPartition::block4(0, -1, 5, 0), DimPartition::whole()}) == Errc::minmax);
    CHECK(check({DimPartition::block4(0, 11, unbounded, 0), DimPartition::whole()}) ==
          Errc::minmax);
    CHECK(check({DimPartition::cyclic(0), DimPartition::whole()}) == Errc::partition);
    CHECK(check({DimPartition::explicit_ranges({}), DimPartition::whole()}) == Errc::partition);
    CHECK(check({DimPartition::explicit_ranges({{0, 4}, {5, 10}}), DimPartition::whole()}) ==
          Errc::partition);
    CHECK(check({DimPartition::explicit_ranges({{0, 4}, {6, 4}}), DimPartition::whole()}) ==
          Errc::partition);
    CHECK(check({DimPartition::explicit_ranges({{0, 4}, {5, 4}}), DimPartition::whole()}) ==
          Errc::success);
    DimPartition w = DimPartition::whole();
    w.nprocs = 2;
    CHECK(check({DimPartition::block(), w}) == Errc::partition);
    DimPartition bad_edge = DimPartition::block();
    bad_edge.edge = static_cast<EdgePolicy>(7);
    CHECK(check({bad_edge, DimPartition::whole()}) == Errc::partition);
    // Messages name the dimension.
    const auto t = thrown_by([&] {
        validate_partition(s, {DimPartition::whole(), DimPartition::block4(0, 3, 2, 0)});
    });
    CHECK(t.message.find("dimension 1") != std::string::npos);
}

TEST_CASE("grid: given counts are kept, the rest chosen by block shape") {
    const Shape s({60, 40}, f32);
    CHECK(choose_grid(s, {DimPartition::block(), DimPartition::block()}, 6) ==
          std::vector<int>{3, 2});
    CHECK(choose_grid(s, {DimPartition::block(), DimPartition::whole()}, 6) ==
          std::vector<int>{6, 1});
    CHECK(choose_grid(s, {DimPartition::whole(), DimPartition::block()}, 5) ==
          std::vector<int>{1, 5});
    CHECK(choose_grid(s, {DimPartition::block(2), DimPartition::block()}, 6) ==
          std::vector<int>{2, 3});
    CHECK(choose_grid(s, {DimPartition::cyclic(4), DimPartition::block()}, 4) ==
          std::vector<int>{2, 2});
    CHECK(choose_grid(s,
                      {DimPartition::explicit_ranges({{0, 29}, {30, 59}}), DimPartition::block()},
                      4) == std::vector<int>{2, 2});
    // A max constraint forces the split into the other dimension.
    CHECK(choose_grid(s, {DimPartition::block4(0, 1, 60, 0), DimPartition::block4(0, 1, 10, 0)},
                      4) == std::vector<int>{1, 4});
    // 3-D with 8 processes: a cube.
    CHECK(choose_grid(Shape({16, 16, 16}, f32),
                      {DimPartition::block(), DimPartition::block(), DimPartition::block()},
                      8) == std::vector<int>{2, 2, 2});
    CHECK(choose_grid(Shape({7}, f32), {DimPartition::block()}, 7) == std::vector<int>{7});
}

TEST_CASE("grid: unsatisfiable constraints are clear errors") {
    const Shape s({10, 8}, f32);
    // Fixed grid does not match the process count.
    auto t = thrown_by([&] { choose_grid(s, {DimPartition::block(2), DimPartition::whole()}, 3); });
    CHECK(t.code == Errc::grid);
    CHECK(t.message.find("2 x 1") != std::string::npos);
    // Every factorization violates min (more processes than elements).
    t = thrown_by([&] { choose_grid(Shape({3}, f32), {DimPartition::block()}, 5); });
    CHECK(t.code == Errc::grid);
    CHECK(t.message.find("below the minimum") != std::string::npos);
    // ... unless empty blocks are allowed.
    CHECK(choose_grid(Shape({3}, f32), {DimPartition::block4(0, 0, unbounded, 0)}, 5) ==
          std::vector<int>{5});
    // Max too small for the process count.
    CHECK(code_of([&] {
              choose_grid(s, {DimPartition::block4(0, 1, 2, 0), DimPartition::whole()}, 2);
          }) == Errc::grid);
    // Explicit count that violates min/max.
    CHECK(
        code_of([&] {
            choose_grid(
                s,
                {DimPartition::block4(0, 4, unbounded, 0).with_overlap(0, 0, EdgePolicy::truncate),
                 DimPartition::whole()},
                3);
        }) == Errc::grid);
    CHECK(code_of([&] {
              choose_grid(s, {DimPartition::cyclic(5), DimPartition::whole()}, 3);
          }) == Errc::grid);
    CHECK(code_of([&] {
              choose_grid(s, {DimPartition::block(), DimPartition::whole()}, 0);
          }) == Errc::group);
}

TEST_CASE("an extent of INT64_MAX is an extent: its overlap must still fit (found by fuzzing)") {
    const Index max = std::numeric_limits<Index>::max();
    const Shape s({max}, ElementType::predefined(ElemKind::byte));
    CHECK(code_of([&] { validate_partition(s, {DimPartition::whole(0, 1)}); }) == Errc::overflow);
    CHECK(code_of([&] {
              validate_partition(s, {DimPartition::block4(1, 1, unbounded, 0, EdgePolicy::zero)});
          }) == Errc::overflow);
    CHECK(code_of([&] { validate_partition(s, {DimPartition::block()}); }) == Errc::success);
    // Without an extent only the extent-free checks apply.
    CHECK(code_of([&] { validate_dim_partition(DimPartition::whole(0, 1), 0, std::nullopt); }) ==
          Errc::success);
}

#include "core/distribution.hpp"
#include "errors.hpp"

#include <doctest/doctest.h>

using namespace dri::core;
using dri::test::code_of;

namespace {
const ElementType f32 = ElementType::predefined(ElemKind::float32);

std::vector<std::pair<Index, Index>> owned(const Distribution& d, int dim, int c) {
    std::vector<std::pair<Index, Index>> out;
    for (Index k = 0; k < d.segment_count(dim, c); ++k) {
        const Segment s = d.segment(dim, c, k);
        out.emplace_back(s.own_lo, s.own_hi);
    }
    return out;
}
} // namespace

TEST_CASE("block rule: the first N mod p blocks get one more element") {
    const Distribution d(Shape({10}, f32), {DimPartition::block()}, 4);
    CHECK(owned(d, 0, 0) == std::vector<std::pair<Index, Index>>{{0, 3}});
    CHECK(owned(d, 0, 1) == std::vector<std::pair<Index, Index>>{{3, 6}});
    CHECK(owned(d, 0, 2) == std::vector<std::pair<Index, Index>>{{6, 8}});
    CHECK(owned(d, 0, 3) == std::vector<std::pair<Index, Index>>{{8, 10}});
    CHECK(d.local_extent(0, 0) == 3);
    CHECK(d.local_extent(0, 3) == 2);
}

TEST_CASE("empty blocks store nothing") {
    const Distribution d(Shape({2}, f32),
                         {DimPartition::block4(1, 0, unbounded, 1, EdgePolicy::zero)}, 3);
    CHECK(d.segment_count(0, 2) == 0);
    CHECK(d.local_extent(0, 2) == 0);
    CHECK(d.local_extent(0, 0) == 3); // owned 1 + overlap 1 + 1
}

TEST_CASE("process grid coordinates are row-major") {
    const Distribution d(Shape({6, 6}, f32), {DimPartition::block(2), DimPartition::block(3)}, 6);
    CHECK(d.coords(0) == std::vector<int>{0, 0});
    CHECK(d.coords(1) == std::vector<int>{0, 1});
    CHECK(d.coords(3) == std::vector<int>{1, 0});
    CHECK(d.coords(5) == std::vector<int>{1, 2});
    for (int i = 0; i < 6; ++i)
        CHECK(d.index_of(d.coords(i)) == i);
    CHECK(code_of([&] { (void)d.coords(6); }) == Errc::arg);
    CHECK(d.local_extents(4) == std::vector<Index>{3, 2});
}

TEST_CASE("process grid coordinates are column-major on request (BLACS 'C' order)") {
    const Distribution d(Shape({6, 6}, f32), {DimPartition::block(2), DimPartition::block(3)}, 6,
                         GridOrder::column_major);
    CHECK(d.grid_order() == GridOrder::column_major);
    CHECK(d.coords(0) == std::vector<int>{0, 0});
    CHECK(d.coords(1) == std::vector<int>{1, 0});
    CHECK(d.coords(2) == std::vector<int>{0, 1});
    CHECK(d.coords(5) == std::vector<int>{1, 2});
    CHECK(d.local_extents(1) == std::vector<Index>{3, 2});
    CHECK(code_of([&] { (void)d.coords(-1); }) == Errc::arg);
    CHECK(code_of([&] {
              (void)Distribution(Shape({6}, f32), {DimPartition::block()}, 2,
                                 static_cast<GridOrder>(2));
          }) == Errc::arg);
}

TEST_CASE("grid orders: coords and index_of are inverse, index = sum of coord * place value") {
    // Grids of 1 to 4 dimensions; the place value of a dimension is the
    // product of the extents of the dimensions that vary faster.
    const std::vector<std::vector<int>> grids{{5}, {2, 3}, {3, 1, 2}, {2, 2, 1, 3}};
    for (const auto& g : grids) {
        Partition part;
        std::vector<Index> ext;
        int p = 1;
        for (int n : g) {
            part.push_back(DimPartition::block(n));
            ext.push_back(6);
            p *= n;
        }
        for (GridOrder order : {GridOrder::row_major, GridOrder::column_major}) {
            const Distribution d(Shape(ext, f32), part, p, order);
            CHECK(d.grid() == g);
            for (int i = 0; i < p; ++i) {
                const std::vector<int> c = d.coords(i);
                int index = 0, place = 1;
                for (std::size_t k = 0; k < g.size(); ++k) {
                    const std::size_t dim = order == GridOrder::row_major ? g.size() - 1 - k : k;
                    index += c[dim] * place;
                    place *= g[dim];
                }
                CHECK(index == i);
                CHECK(d.index_of(c) == i);
            }
        }
    }
}

TEST_CASE("overlap: truncate clips at the bounds, the other policies store padding") {
    for (EdgePolicy e :
         {EdgePolicy::truncate, EdgePolicy::zero, EdgePolicy::replicate, EdgePolicy::wrap}) {
        const Distribution d(Shape({12}, f32), {DimPartition::block4(2, 1, unbounded, 3, e)}, 3);
        const Segment first = d.segment(0, 0, 0), mid = d.segment(0, 1, 0),
                      last = d.segment(0, 2, 0);
        CHECK(mid.lo == 2);
        CHECK(mid.hi == 11);
        if (e == EdgePolicy::truncate) {
            CHECK(first.lo == 0);
            CHECK(last.hi == 12);
            CHECK(d.local_extent(0, 0) == 7);
        } else {
            CHECK(first.lo == -2);
            CHECK(last.hi == 15);
            CHECK(d.local_extent(0, 0) == 9);
        }
    }
}

TEST_CASE("block-cyclic: segments and local offsets agree with a direct count") {
    // Compare the closed-form local offsets with a running sum for many cases,
    // including overlaps wider than a block (several truncated blocks).
    for (Index n : {1, 2, 7, 10, 13, 32}) {
        for (Index b : {1, 2, 3, 5}) {
            for (int p : {1, 2, 3, 4}) {
                for (Index l : {0, 1, 4}) {
                    for (Index r : {0, 2, 7}) {
                        for (EdgePolicy e : {EdgePolicy::truncate, EdgePolicy::zero}) {
                            if (l > n || r > n) continue;
                            DimPartition dp = DimPartition::cyclic(b, p).with_overlap(l, r, e);
                            dp.min_block = 0;
                            const Distribution d(Shape({n}, f32), {dp}, p);
                            Index total_owned = 0;
                            for (int c = 0; c < p; ++c) {
                                Index local = 0;
                                for (Index k = 0; k < d.segment_count(0, c); ++k) {
                                    const Segment s = d.segment(0, c, k);
                                    INFO("n " << n << " b " << b << " p " << p << " l " << l
                                              << " r " << r << " c " << c << " k " << k);
                                    const Index j = c + k * p;
                                    CHECK(s.own_lo == j * b);
                                    CHECK(s.own_hi == std::min(n, (j + 1) * b));
                                    CHECK(s.local == local);
                                    local += s.hi - s.lo;
                                    total_owned += s.own_hi - s.own_lo;
                                    CHECK(d.first_segment_ending_after(0, c, s.own_lo) == k);
                                    CHECK(d.first_segment_ending_after(0, c, s.own_hi - 1) == k);
                                }
                                CHECK(d.local_extent(0, c) == local);
                            }
                            CHECK(total_owned == n);
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("sending side must be disjoint and covering") {
    const Shape s({10}, f32);
    CHECK(code_of([&] { Distribution(s, {DimPartition::block()}, 3).check_disjoint_covering(); }) ==
          Errc::success);
    // Overlap cells are not owned: still disjoint.
    CHECK(code_of([&] {
              Distribution(s, {DimPartition::block4(2, 1, unbounded, 2, EdgePolicy::wrap)}, 3)
                  .check_disjoint_covering();
          }) == Errc::success);
    CHECK(code_of([&] {
              Distribution(s, {DimPartition::explicit_ranges({{0, 5}, {5, 9}})}, 2)
                  .check_disjoint_covering();
          }) == Errc::not_disjoint);
    CHECK(code_of([&] {
              Distribution(s, {DimPartition::explicit_ranges({{0, 3}, {5, 9}})}, 2)
                  .check_disjoint_covering();
          }) == Errc::not_covering);
    CHECK(code_of([&] {
              Distribution(s, {DimPartition::explicit_ranges({{0, 3}, {4, 8}})}, 2)
                  .check_disjoint_covering();
          }) == Errc::not_covering);
    CHECK(code_of([&] {
              Distribution(s, {DimPartition::explicit_ranges({{5, 9}, {0, 4}, {3, 2}})}, 3)
                  .check_disjoint_covering();
          }) == Errc::success);
}

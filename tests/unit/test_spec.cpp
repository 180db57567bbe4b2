#include "errors.hpp"
#include "spec.hpp"

#include <doctest/doctest.h>

using namespace dri::core;
using dri::test::code_of;

TEST_CASE("spec: shapes, types and lists") {
    CHECK(parse_shape("64x32x7") == std::vector<Index>{64, 32, 7});
    CHECK(parse_type("cfloat") == ElementType::predefined(ElemKind::complex_float));
    CHECK(parse_type("record7") == ElementType::record(7));
    CHECK(parse_list("1,0") == std::vector<Index>{1, 0});
    CHECK(code_of([] { parse_shape("64xx2"); }) == Errc::arg);
    CHECK(code_of([] { parse_type("quad"); }) == Errc::arg);
    CHECK(code_of([] { parse_list("1,a"); }) == Errc::arg);
}

TEST_CASE("spec: partitions") {
    const Partition p =
        parse_partition("block/2~1:2:wrap,whole,cyclic(4)/3,ranges(0:3|4:9),block[2:inf]");
    REQUIRE(p.size() == 5);
    CHECK(p[0].kind == PartKind::block);
    CHECK(p[0].nprocs == 2);
    CHECK(p[0].left == 1);
    CHECK(p[0].right == 2);
    CHECK(p[0].edge == EdgePolicy::wrap);
    CHECK(p[1].kind == PartKind::whole);
    CHECK(p[2].kind == PartKind::cyclic);
    CHECK(p[2].block_size == 4);
    CHECK(p[2].nprocs == 3);
    CHECK(p[3].ranges == std::vector<Range>{{0, 3}, {4, 9}});
    CHECK(p[4].min_block == 2);
    CHECK(p[4].max_block == unbounded);
    CHECK(code_of([] { parse_partition("blok"); }) == Errc::arg);
    CHECK(code_of([] { parse_partition("block~1"); }) == Errc::arg);
    CHECK(code_of([] { parse_partition("block~1:1:mirror"); }) == Errc::arg);
    CHECK(code_of([] { parse_partition("ranges(0-3)"); }) == Errc::arg);
    CHECK(code_of([] { parse_partition("block/-1"); }) == Errc::arg);
}

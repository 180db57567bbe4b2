#include "core/checked.hpp"
#include "core/shape.hpp"
#include "errors.hpp"

#include <doctest/doctest.h>

#include <limits>

using namespace dri::core;
using dri::test::code_of;

TEST_CASE("checked arithmetic reports overflow as an error") {
    CHECK(checked_mul(1LL << 31, 1LL << 31) == (1LL << 62));
    CHECK(code_of([] { checked_mul(1LL << 32, 1LL << 31); }) == Errc::overflow);
    CHECK(code_of([] { checked_add(std::numeric_limits<Index>::max(), 1); }) == Errc::overflow);
    CHECK(code_of([] { checked_sub(-std::numeric_limits<Index>::max() - 1, 1); }) ==
          Errc::overflow);
    CHECK(ceil_div(10, 4) == 3);
    CHECK(ceil_div(8, 4) == 2);
    CHECK(floor_mod(-1, 5) == 4);
    CHECK(floor_mod(7, 5) == 2);
}

TEST_CASE("shape: extents, element types and sizes") {
    Shape s({4, 6, 3}, ElementType::predefined(ElemKind::complex_float));
    CHECK(s.ndims() == 3);
    CHECK(s.elements() == 72);
    CHECK(s.bytes() == 72 * 8);
    CHECK(Shape({5}, ElementType::record(7)).bytes() == 35);
    CHECK(ElementType::predefined(ElemKind::complex_double).size == 16);
    CHECK(to_string(s) == "4x6x3 cfloat");
    // 8 dimensions are allowed, 0 and 9 are not.
    CHECK(Shape(std::vector<Index>(8, 2), ElementType::predefined(ElemKind::byte)).elements() ==
          256);
    CHECK(code_of([] { Shape({}, ElementType::predefined(ElemKind::byte)); }) == Errc::ndims);
    CHECK(code_of([] {
              Shape(std::vector<Index>(9, 2), ElementType::predefined(ElemKind::byte));
          }) == Errc::ndims);
}

TEST_CASE("shape: invalid extents, types and overflowing sizes are errors") {
    const auto f = ElementType::predefined(ElemKind::float32);
    CHECK(code_of([&] { Shape({4, 0}, f); }) == Errc::extent);
    CHECK(code_of([&] { Shape({-3}, f); }) == Errc::extent);
    CHECK(code_of([&] { Shape({1LL << 40, 1LL << 30}, f); }) == Errc::overflow);
    CHECK(code_of([&] {
              Shape({1LL << 31, 1LL << 31, 4}, ElementType::predefined(ElemKind::byte));
          }) == Errc::overflow);
    CHECK(code_of([] { ElementType::record(0); }) == Errc::type);
    CHECK(code_of([] { ElementType::predefined(ElemKind::record); }) == Errc::type);
    CHECK(code_of([&] { Shape({4}, ElementType{ElemKind::float32, 8}); }) == Errc::type);
    CHECK(code_of([&] { Shape({4}, ElementType{static_cast<ElemKind>(99), 8}); }) == Errc::type);
}

TEST_CASE("error names and descriptions cover every code") {
    for (int i = 0; i < errc_count; ++i) {
        CHECK(std::string(errc_name(static_cast<Errc>(i))).rfind("DRI_", 0) == 0);
        CHECK(std::string(errc_description(static_cast<Errc>(i))).size() > 3);
    }
    CHECK(std::string(errc_name(static_cast<Errc>(errc_count))) == "DRI_ERR_UNKNOWN");
}

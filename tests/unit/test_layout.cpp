#include "core/layout.hpp"
#include "errors.hpp"

#include <doctest/doctest.h>

using namespace dri::core;
using dri::test::code_of;

TEST_CASE("layout: row-major, transposed and padded strides") {
    const LocalLayout rm = bind_layout(Layout::packed(2), {3, 5}, 4);
    CHECK(rm.strides == std::vector<Index>{5, 1});
    CHECK(rm.bytes == 60);
    CHECK(rm.offset({2, 1}) == (2 * 5 + 1) * 4);

    const LocalLayout tr = bind_layout(Layout::ordered({1, 0}), {3, 5}, 4);
    CHECK(tr.strides == std::vector<Index>{1, 3});
    CHECK(tr.offset({2, 1}) == (1 * 3 + 2) * 4);

    // Leading dimension 8 instead of 5, and two spare rows at the end.
    const LocalLayout pad = bind_layout(Layout::ordered({0, 1}, {2, 3}), {3, 5}, 8);
    CHECK(pad.strides == std::vector<Index>{8, 1});
    CHECK(pad.bytes == 5 * 8 * 8);

    const LocalLayout l3 = bind_layout(Layout::ordered({2, 0, 1}), {2, 3, 4}, 1);
    CHECK(l3.strides == std::vector<Index>{3, 1, 6});
    CHECK(l3.bytes == 24);

    CHECK(bind_layout(Layout::packed(2), {0, 5}, 4).bytes == 0);
}

TEST_CASE("layout: explicit strides are checked against the local extents") {
    const Layout l = Layout::strided({1, 10});
    CHECK(l.order() == std::vector<int>{1, 0});
    const LocalLayout ok = bind_layout(l, {10, 4}, 2);
    CHECK(ok.bytes == (3 * 10 + 9 + 1) * 2);
    CHECK(ok.offset({3, 2}) == (3 + 20) * 2);
    CHECK(code_of([&] { bind_layout(l, {11, 4}, 2); }) == Errc::layout); // columns overlap
    CHECK(code_of([&] { bind_layout(Layout::strided({4, 4}), {2, 2}, 2); }) == Errc::layout);
    CHECK(bind_layout(Layout::strided({4, 4}), {1, 2}, 2).bytes == 10); // extent 1: stride unused
}

TEST_CASE("layout: malformed layouts are errors") {
    CHECK(code_of([] { Layout::ordered({0, 0}); }) == Errc::layout);
    CHECK(code_of([] { Layout::ordered({0, 2}); }) == Errc::layout);
    CHECK(code_of([] { Layout::ordered({1, 0}, {1}); }) == Errc::layout);
    CHECK(code_of([] { Layout::ordered({1, 0}, {0, -1}); }) == Errc::layout);
    CHECK(code_of([] { Layout::ordered({}); }) == Errc::ndims);
    CHECK(code_of([] { Layout::packed(9); }) == Errc::ndims);
    CHECK(code_of([] { Layout::strided({1, 0}); }) == Errc::layout);
    CHECK(code_of([] { bind_layout(Layout::packed(2), {3}, 4); }) == Errc::layout);
    CHECK(code_of([] {
              bind_layout(Layout::packed(2), {1LL << 40, 1LL << 30}, 4);
          }) == Errc::overflow);
    CHECK(code_of([] {
              bind_layout(Layout::ordered({0, 1}, {0, 1LL << 62}), {4, 4}, 4);
          }) == Errc::overflow);
}

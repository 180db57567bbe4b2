#include "kernels/combine.hpp"
#include "kernels/copy.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

using namespace dri::core;

namespace {

constexpr CombineOp all_ops[] = {CombineOp::sum, CombineOp::max, CombineOp::min,
                                 CombineOp::replace};

template <class T>
constexpr bool is_complex = false;
template <class T>
constexpr bool is_complex<std::complex<T>> = true;

template <class T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template <class T>
void store(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof(T));
}

template <class T>
T draw(std::mt19937_64& rng) {
    if constexpr (is_complex<T>) {
        std::uniform_real_distribution<double> d(-100, 100);
        return T(static_cast<typename T::value_type>(d(rng)),
                 static_cast<typename T::value_type>(d(rng)));
    } else if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(std::uniform_real_distribution<double>(-100, 100)(rng));
    } else if constexpr (std::is_signed_v<T>) {
        return static_cast<T>(std::uniform_int_distribution<int>(-1000, 1000)(rng));
    } else { // full range: sums wrap
        return static_cast<T>(rng());
    }
}

// op(a, b), the obvious way.
template <class T>
T oracle_op(CombineOp op, T a, T b) {
    switch (op) {
    case CombineOp::sum:
        return static_cast<T>(a + b);
    case CombineOp::max:
        if constexpr (!is_complex<T>) return a < b ? b : a;
        break;
    case CombineOp::min:
        if constexpr (!is_complex<T>) return b < a ? b : a;
        break;
    case CombineOp::replace:
        return b;
    }
    FAIL("oracle_op: undefined");
    return a;
}

// Calls f(source offset, destination offset) for every element of `reg` in
// axis order, by recursion over the axes.
template <class F>
void visit(const Region& reg, std::size_t a, Index so, Index ro, F&& f) {
    if (a == reg.axes.size()) return f(so, ro);
    const Axis& x = reg.axes[a];
    for (Index i = 0; i < x.n; ++i)
        visit(reg, a + 1, so + i * x.s, ro + i * x.r, f);
}

template <class T>
void oracle(const std::byte* src, std::byte* dst, const Region& reg, CombineOp op) {
    visit(reg, 0, reg.s_off, reg.r_off, [&](Index so, Index ro) {
        store<T>(dst + ro, oracle_op(op, load<T>(dst + ro), load<T>(src + so)));
    });
}

// Bytes a side of `reg` spans from the buffer start (strides are >= 0).
Index extent_of(const Region& reg, Index elem, bool sender) {
    Index end = (sender ? reg.s_off : reg.r_off) + elem;
    for (const Axis& a : reg.axes)
        end += (a.n - 1) * (sender ? a.s : a.r);
    return end;
}

// A buffer of `bytes` (plus slack) holding random T values at base, base +
// sizeof(T), ... and a fixed pattern in the bytes before base.
template <class T>
std::vector<std::byte> filled(Index base, Index bytes, std::mt19937_64& rng) {
    std::vector<std::byte> b(static_cast<std::size_t>(bytes + 16), std::byte{0xCD});
    for (Index o = base; o + static_cast<Index>(sizeof(T)) <= bytes + 16;
         o += static_cast<Index>(sizeof(T)))
        store<T>(b.data() + o, draw<T>(rng));
    return b;
}

// Every defined op on `reg`: combine_region and pack_region +
// combine_unpack_region against the oracle, byte for byte.
template <class T>
void check_region(ElemKind kind, const Region& reg, std::mt19937_64& rng) {
    const ElementType t = ElementType::predefined(kind);
    REQUIRE(t.size == static_cast<Index>(sizeof(T)));
    const auto src = filled<T>(reg.s_off, extent_of(reg, t.size, true), rng);
    const auto dst0 = filled<T>(reg.r_off, extent_of(reg, t.size, false), rng);
    for (CombineOp op : all_ops) {
        if (!combine_defined(op, t)) continue;
        INFO(to_string(t) << " " << std::string(to_string(op)) << ", s_off " << reg.s_off << ", "
                          << reg.axes.size() << " axes");
        auto want = dst0, got = dst0, unpacked = dst0;
        oracle<T>(src.data(), want.data(), reg, op);
        combine_region(src.data(), got.data(), reg, t, op);
        CHECK(got == want);
        std::vector<std::byte> stream(static_cast<std::size_t>(reg.elements() * t.size));
        pack_region(src.data(), reg, t.size, stream.data());
        CHECK(combine_unpack_region(stream.data(), reg, t, op, unpacked.data()) ==
              reg.elements() * t.size);
        CHECK(unpacked == want);
    }
}

// The fixed regions of the tests below in units of the element size e;
// offsets odd, so that the elements are unaligned.
std::vector<Region> regions(Index e) {
    return {
        {3, 5, {}},                                        // one element
        {1, 7, {{37, e, e}}},                              // contiguous (vectorised line)
        {3, 1, {{11, 3 * e, 2 * e}}},                      // strided
        {1, 3, {{7, e, 9 * e}, {9, 7 * e, e}}},            // 7 x 9 transpose
        {5, 1, {{7, 2 * e, 10 * e}, {9, 15 * e, e}}},      // transpose with gaps
        {1, 1, {{6, 5 * e, 0}, {5, e, e}}},                // 6 sources into each of 5 elements
        {3, 5, {{5, 6 * e, e}, {6, e, 0}}},                // the same along the inner axis
        {1, 3, {{4, e, 0}, {3, 0, 2 * e}, {5, 4 * e, 0}}}, // both strides 0 somewhere
        {7, 5, {{2, 30 * e, 12 * e}, {3, 10 * e, e}, {4, e, 3 * e}}}, // 3 axes, permuted
        // Transposes larger than the tiles, with ragged edges: 70 x 45, 9 x 300,
        // then PTRANS's block-cyclic one (the transposed axes not adjacent).
        {1, 3, {{70, e, 50 * e}, {45, 71 * e, e}}},
        {3, 1, {{9, e, 301 * e}, {300, 10 * e, e}}},
        {3, 1, {{3, 40 * e, 4000 * e}, {40, e, 100 * e}, {2, 8000 * e, 40 * e}, {37, 200 * e, e}}},
    };
}

template <class T>
void check_type(ElemKind kind, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const Index e = static_cast<Index>(sizeof(T));
    for (const Region& reg : regions(e))
        check_region<T>(kind, reg, rng);
}

} // namespace

TEST_CASE("combine_region and combine_unpack_region equal the oracle") {
    SUBCASE("int32") {
        check_type<std::int32_t>(ElemKind::int32, 1);
    }
    SUBCASE("uint8") {
        check_type<std::uint8_t>(ElemKind::uint8, 2);
    }
    SUBCASE("float64") {
        check_type<double>(ElemKind::float64, 3);
    }
    SUBCASE("complex_double") {
        check_type<std::complex<double>>(ElemKind::complex_double, 4);
    }
    SUBCASE("other kinds") {
        check_type<std::int8_t>(ElemKind::int8, 5);
        check_type<std::uint16_t>(ElemKind::uint16, 6);
        check_type<std::int64_t>(ElemKind::int64, 7);
        check_type<std::uint64_t>(ElemKind::uint64, 8);
        check_type<float>(ElemKind::float32, 9);
        check_type<std::complex<float>>(ElemKind::complex_float, 10);
    }
}

TEST_CASE("combine: a destination stride of 0 combines its sources in order") {
    // Five int32 sources into one element, then five doubles whose sum
    // depends on the order of the additions.
    Region reg{0, 0, {{5, 4, 0}}};
    const std::int32_t si[5] = {3, -7, 12, 5, -1};
    std::int32_t di = 100;
    combine_region(reinterpret_cast<const std::byte*>(si), reinterpret_cast<std::byte*>(&di), reg,
                   ElementType::predefined(ElemKind::int32), CombineOp::sum);
    CHECK(di == 112);
    di = 10;
    combine_region(reinterpret_cast<const std::byte*>(si), reinterpret_cast<std::byte*>(&di), reg,
                   ElementType::predefined(ElemKind::int32), CombineOp::max);
    CHECK(di == 12);
    di = 10;
    combine_region(reinterpret_cast<const std::byte*>(si), reinterpret_cast<std::byte*>(&di), reg,
                   ElementType::predefined(ElemKind::int32), CombineOp::min);
    CHECK(di == -7);

    reg.axes = {{5, 8, 0}};
    const double sd[5] = {1e16, 1.0, -1e16, 1.0, 0.5};
    double dd = 0;
    combine_region(reinterpret_cast<const std::byte*>(sd), reinterpret_cast<std::byte*>(&dd), reg,
                   ElementType::predefined(ElemKind::float64), CombineOp::sum);
    double want = 0;
    for (double v : sd)
        want += v; // ((((0 + 1e16) + 1) - 1e16) + 1) + 0.5 = 1.5
    CHECK(dd == want);
    CHECK(dd == 1.5);
}

TEST_CASE("combine: random regions with overlapping destinations equal the oracle") {
    // Destination strides drawn freely (0, repeats, overlaps): a kernel that
    // visits the elements in any other order than the oracle's differs.
    std::mt19937_64 rng(77);
    auto uni = [&](Index lo, Index hi) {
        return std::uniform_int_distribution<Index>(lo, hi)(rng);
    };
    for (int i = 0; i < 300; ++i) {
        Region reg;
        reg.s_off = uni(0, 9);
        reg.r_off = uni(0, 9);
        const Index k = uni(0, 3);
        for (Index a = 0; a < k; ++a)
            reg.axes.push_back({uni(1, 9), 8 * uni(0, 12), 8 * uni(0, 3)});
        if (k > 0 && uni(0, 1) == 1) reg.axes.back().s = reg.axes.back().r = 8; // dense line
        INFO("case " << i);
        const auto src = filled<double>(reg.s_off, extent_of(reg, 8, true), rng);
        const auto dst0 = filled<double>(reg.r_off, extent_of(reg, 8, false), rng);
        for (CombineOp op : {CombineOp::sum, CombineOp::max, CombineOp::min}) {
            auto want = dst0, got = dst0;
            oracle<double>(src.data(), want.data(), reg, op);
            combine_region(src.data(), got.data(), reg, ElementType::predefined(ElemKind::float64),
                           op);
            CHECK(got == want);
        }
    }
}

namespace {

// identity_region on a strided region: the r-side elements hold `want`, every
// other byte is untouched.
template <class T>
void check_identity(ElemKind kind, CombineOp op, T want) {
    const Index e = static_cast<Index>(sizeof(T));
    const Region reg{0, 3, {{3, 0, 5 * e}, {4, 0, e}}}; // 3 x 4 elements, rows 5 apart
    std::vector<std::byte> buf(static_cast<std::size_t>(3 + 15 * e + 8), std::byte{0xCD});
    const auto before = buf;
    identity_region(buf.data(), reg, ElementType::predefined(kind), op);
    auto expect = before;
    visit(reg, 0, 0, reg.r_off, [&](Index, Index ro) { store<T>(expect.data() + ro, want); });
    INFO(to_string(ElementType::predefined(kind)) << " " << std::string(to_string(op)));
    CHECK(buf == expect);
    visit(reg, 0, 0, reg.r_off, [&](Index, Index ro) {
        const T got = load<T>(buf.data() + ro);
        CHECK(std::memcmp(&got, &want, sizeof(T)) == 0);
    });
}

} // namespace

TEST_CASE("combine: identity_region") {
    constexpr double inf = std::numeric_limits<double>::infinity();
    constexpr float inff = std::numeric_limits<float>::infinity();
    check_identity<std::int32_t>(ElemKind::int32, CombineOp::sum, 0);
    check_identity<std::int32_t>(ElemKind::int32, CombineOp::max, INT32_MIN);
    check_identity<std::int32_t>(ElemKind::int32, CombineOp::min, INT32_MAX);
    check_identity<std::uint8_t>(ElemKind::uint8, CombineOp::sum, 0);
    check_identity<std::uint8_t>(ElemKind::uint8, CombineOp::max, 0);
    check_identity<std::uint8_t>(ElemKind::uint8, CombineOp::min, 255);
    check_identity<std::int8_t>(ElemKind::int8, CombineOp::max, -128);
    check_identity<std::int64_t>(ElemKind::int64, CombineOp::max, INT64_MIN);
    check_identity<std::uint64_t>(ElemKind::uint64, CombineOp::min, UINT64_MAX);
    check_identity<double>(ElemKind::float64, CombineOp::sum, 0.0);
    check_identity<double>(ElemKind::float64, CombineOp::max, -inf);
    check_identity<double>(ElemKind::float64, CombineOp::min, inf);
    check_identity<float>(ElemKind::float32, CombineOp::max, -inff);
    check_identity<float>(ElemKind::float32, CombineOp::min, inff);
    check_identity<std::complex<double>>(ElemKind::complex_double, CombineOp::sum, {0.0, 0.0});
    check_identity<std::complex<float>>(ElemKind::complex_float, CombineOp::sum, {0.0f, 0.0f});

    // replace writes nothing, on any type.
    for (const ElementType& t : {ElementType::predefined(ElemKind::float64), ElementType::record(5),
                                 ElementType::predefined(ElemKind::byte)}) {
        std::vector<std::byte> buf(64, std::byte{0xCD});
        const auto before = buf;
        identity_region(buf.data(), Region{1, 2, {{3, 0, t.size}}}, t, CombineOp::replace);
        CHECK(buf == before);
    }
}

TEST_CASE("combine: combine_defined, to_string and undefined operations") {
    for (int k = static_cast<int>(ElemKind::int8); k <= static_cast<int>(ElemKind::record); ++k) {
        const auto kind = static_cast<ElemKind>(k);
        const ElementType t =
            kind == ElemKind::record ? ElementType::record(12) : ElementType::predefined(kind);
        const bool numeric = kind != ElemKind::byte && kind != ElemKind::record;
        const bool complex = kind == ElemKind::complex_float || kind == ElemKind::complex_double;
        INFO(to_string(t));
        CHECK(combine_defined(CombineOp::replace, t));
        CHECK(combine_defined(CombineOp::sum, t) == numeric);
        CHECK(combine_defined(CombineOp::max, t) == (numeric && !complex));
        CHECK(combine_defined(CombineOp::min, t) == (numeric && !complex));
    }
    CHECK_FALSE(combine_defined(CombineOp::max, ElementType::predefined(ElemKind::complex_float)));
    CHECK_FALSE(combine_defined(CombineOp::sum, ElementType::record(8)));
    CHECK(combine_defined(CombineOp::replace, ElementType::record(8)));
    CHECK_FALSE(combine_defined(CombineOp::sum, ElementType{ElemKind::int32, 3})); // malformed

    CHECK(std::string(to_string(CombineOp::sum)) == "SUM");
    CHECK(std::string(to_string(CombineOp::max)) == "MAX");
    CHECK(std::string(to_string(CombineOp::min)) == "MIN");
    CHECK(std::string(to_string(CombineOp::replace)) == "REPLACE");

    std::byte buf[32] = {};
    const Region reg{0, 0, {{2, 8, 8}}};
    const auto expect_type_error = [](auto&& f) {
        try {
            f();
            FAIL("no error");
        } catch (const Error& e) {
            CHECK(e.code() == Errc::type);
        }
    };
    const ElementType cf = ElementType::predefined(ElemKind::complex_float);
    expect_type_error([&] { combine_region(buf, buf + 16, reg, cf, CombineOp::max); });
    expect_type_error([&] { combine_unpack_region(buf, reg, cf, CombineOp::min, buf + 16); });
    expect_type_error([&] { identity_region(buf, reg, ElementType::record(8), CombineOp::sum); });

    // replace on a record is a copy.
    std::byte src[24], dst[24] = {};
    for (int i = 0; i < 24; ++i)
        src[i] = static_cast<std::byte>(i + 1);
    combine_region(src, dst, Region{0, 0, {{2, 12, 12}}}, ElementType::record(12),
                   CombineOp::replace);
    CHECK(std::memcmp(src, dst, 24) == 0);
}

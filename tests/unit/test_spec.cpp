#include "core/spec.hpp"
#include "errors.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <random>

using namespace dri::core;
using dri::test::code_of;
using dri::test::thrown_by;

namespace {

constexpr Index lowest = std::numeric_limits<Index>::min();
constexpr int int_max = std::numeric_limits<int>::max();

DimPartition with(DimPartition dp, void (*set)(DimPartition&)) {
    set(dp);
    return dp;
}

// Malformed text: the error code and words its message must contain (the
// offending piece, quoted).
struct Malformed {
    std::string text;
    std::vector<std::string> words;
    Errc code = Errc::arg;
};

template <class Parse>
void check_malformed(const std::vector<Malformed>& table, Parse parse) {
    for (const Malformed& m : table) {
        CAPTURE(m.text);
        const dri::test::Thrown t = thrown_by([&] { parse(m.text); });
        CAPTURE(t.message);
        CHECK(t.code == m.code);
        for (const std::string& w : m.words)
            CHECK(t.message.find(w) != std::string::npos);
    }
}

} // namespace

TEST_CASE("spec: shapes, types and lists") {
    CHECK(parse_shape("64x32x7") == std::vector<Index>{64, 32, 7});
    CHECK(parse_type("cfloat") == ElementType::predefined(ElemKind::complex_float));
    CHECK(parse_type("record7") == ElementType::record(7));
    CHECK(parse_list("1,0") == std::vector<Index>{1, 0});
    CHECK(parse_list("").empty());
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

TEST_CASE("spec: block[min:] leaves the maximum unbounded") {
    const Partition p = parse_partition("block[0:],cyclic(2)[0:]");
    REQUIRE(p.size() == 2);
    CHECK(p[0] == DimPartition::block4(0, 0, unbounded, 0));
    CHECK(p[1].min_block == 0);
    CHECK(p[1].max_block == unbounded);
}

// Each printed form is the parser's notation in its canonical form, and
// parses back to the same partition: also the fields a kind ignores.
TEST_CASE("spec: partitions print in the parser's notation") {
    const struct {
        DimPartition dp;
        std::string text;
    } table[] = {
        {DimPartition::block(), "block"},
        {DimPartition::block(2), "block/2"},
        {DimPartition::block4(0, 0, unbounded, 0), "block[0:]"},
        {DimPartition::block4(1, 2, 5, 1, EdgePolicy::wrap), "block[2:5]~1:1:wrap"},
        {DimPartition::block4(1, 1, unbounded, 2), "block~1:2"},
        {DimPartition::whole(), "whole"},
        {DimPartition::whole(0, 2, EdgePolicy::wrap), "whole~0:2:wrap"},
        {DimPartition::whole(0, 0, EdgePolicy::zero), "whole~0:0:zero"},
        {with(DimPartition::whole(), [](DimPartition& d) { d.nprocs = 1; }), "whole/1"},
        {DimPartition::cyclic(4, 3), "cyclic(4)/3"},
        {with(DimPartition::cyclic(4), [](DimPartition& d) { d.min_block = 0; }), "cyclic(4)[0:]"},
        {DimPartition::explicit_ranges({{0, 3}, {4, 9}}), "ranges(0:3|4:9)"},
        {with(DimPartition::explicit_ranges({{0, 3}, {4, 3}}),
              [](DimPartition& d) { d.nprocs = 2; }),
         "ranges(0:3|4:3)/2"},
        {with(DimPartition::explicit_ranges({{0, 3}}),
              [](DimPartition& d) {
                  d.min_block = 0;
                  d.max_block = 5;
                  d.edge = EdgePolicy::replicate;
              }),
         "ranges(0:3)[0:5]~0:0:replicate"},
        {with(DimPartition::block(), [](DimPartition& d) { d.block_size = 3; }), "block(3)"},
        {with(DimPartition::whole(),
              [](DimPartition& d) {
                  d.ranges = {{-1, 5}};
              }),
         "whole(-1:5)"},
        {with(DimPartition::whole(),
              [](DimPartition& d) {
                  d.min_block = -5;
                  d.max_block = 7;
              }),
         "whole[-5:7]"},
        {with(DimPartition::explicit_ranges({{0, 3}}), [](DimPartition& d) { d.block_size = 2; }),
         "ranges(2)(0:3)"},
        {with(DimPartition::cyclic(4),
              [](DimPartition& d) {
                  d.ranges = {{1, 2}};
              }),
         "cyclic(4)(1:2)"},
        {with(DimPartition::block(int_max), [](DimPartition& d) { d.min_block = unbounded; }),
         "block[9223372036854775807:]/2147483647"},
        {with(DimPartition::block(), [](DimPartition& d) { d.block_size = lowest; }),
         "block(-9223372036854775808)"},
    };
    for (const auto& row : table) {
        CAPTURE(row.text);
        CHECK(to_string(row.dp) == row.text);
        CHECK(parse_partition(row.text) == Partition{row.dp});
    }
    const Partition two{DimPartition::cyclic(4, 3), DimPartition::whole()};
    CHECK(to_string(two) == "cyclic(4)/3,whole");
    CHECK(parse_partition(to_string(two)) == two);
}

TEST_CASE("spec: accepted spellings print canonically") {
    const struct {
        std::string text;
        std::string canonical;
    } table[] = {
        {"block[1:inf]", "block"},
        {"block[1:]", "block"},
        {"block[0:inf]", "block[0:]"},
        {"block[2:9223372036854775807]", "block[2:]"},
        {"block/0", "block"},
        {"block~0:0", "block"},
        {"block~0:0:truncate", "block"},
        {"block~1:2:truncate", "block~1:2"},
        {"cyclic(04)/003", "cyclic(4)/3"},
        {"whole(0)", "whole"},
        {"block[1:inf]/0~0:0:truncate,whole", "block,whole"},
    };
    for (const auto& row : table) {
        CAPTURE(row.text);
        CHECK(to_string(parse_partition(row.text)) == row.canonical);
        CHECK(to_string(parse_partition(row.canonical)) == row.canonical);
    }
}

TEST_CASE("spec: element types and shapes print in the parser's notation") {
    const struct {
        ElemKind kind;
        std::string text;
    } table[] = {{ElemKind::int8, "int8"},
                 {ElemKind::uint8, "uint8"},
                 {ElemKind::int16, "int16"},
                 {ElemKind::uint16, "uint16"},
                 {ElemKind::int32, "int32"},
                 {ElemKind::uint32, "uint32"},
                 {ElemKind::int64, "int64"},
                 {ElemKind::uint64, "uint64"},
                 {ElemKind::float32, "float"},
                 {ElemKind::float64, "double"},
                 {ElemKind::complex_float, "cfloat"},
                 {ElemKind::complex_double, "cdouble"},
                 {ElemKind::byte, "byte"}};
    for (const auto& row : table) {
        CAPTURE(row.text);
        CHECK(to_string(ElementType::predefined(row.kind)) == row.text);
        CHECK(parse_type(row.text) == ElementType::predefined(row.kind));
    }
    CHECK(to_string(ElementType::record(7)) == "record7");
    CHECK(parse_type("record07") == ElementType::record(7));
    const Shape s({4, 6, 3}, ElementType::predefined(ElemKind::complex_double));
    CHECK(to_string(s) == "4x6x3 cdouble");
    CHECK(parse_shape("4x6x3") == s.extents());
}

TEST_CASE("spec: malformed partitions are refused, quoting the piece at fault") {
    check_malformed(
        {
            {"", {"missing partition"}},
            {"blok", {"partition kind \"blok\"", "whole, block, cyclic or ranges"}},
            {"Block", {"partition kind \"Block\""}},
            {"block ", {"partition kind \"block \""}},
            {"(4)", {"missing partition kind"}},
            {",block", {"dimension 0", "empty item"}},
            {"block,", {"dimension 1", "empty item"}},
            {"block,,whole", {"dimension 1", "empty item"}},
            {"block,whole~x:1", {"dimension 1", "left overlap \"x\""}},
            {"block~", {"missing overlap", "left:right[:edge]"}},
            {"block~1", {"overlap \"1\"", "left:right[:edge]"}},
            {"block~1:", {"missing right overlap"}},
            {"block~:1", {"missing left overlap"}},
            {"block~-1:0", {"left overlap \"-1\""}},
            {"block~1:1:", {"missing edge policy"}},
            {"block~1:1:mirror", {"edge policy \"mirror\"", "truncate, zero, replicate or wrap"}},
            {"block~1:1:wrap:x", {"overlap \"1:1:wrap:x\""}},
            {"block/", {"missing process count"}},
            {"block/-1", {"process count \"-1\"", "0 to 2147483647"}},
            {"block/2147483648", {"process count \"2147483648\""}},
            {"block/2x", {"process count \"2x\""}},
            {"block/2/3", {"process count \"2/3\""}},
            {"block/2[1:3]", {"process count \"2[1:3]\""}},
            {"block[1]", {"block limits \"1\"", "[min:max] or [min:]"}},
            {"block[:5]", {"missing min block extent"}},
            {"block[inf:]", {"min block extent \"inf\""}},
            {"block[1:2:3]", {"block limits \"1:2:3\""}},
            {"block[1:2", {"missing \"]\"", "\"[1:2\""}},
            {"block[1:2]x", {"unexpected \"x\""}},
            {"block()", {"missing block size"}},
            {"cyclic", {"missing block size", "cyclic(b)"}},
            {"cyclic()", {"missing block size"}},
            {"cyclic(x)", {"block size \"x\""}},
            {"cyclic(0:3)", {"block size \"0:3\""}},
            {"cyclic(4", {"missing \")\"", "\"(4\""}},
            {"cyclic(4)x", {"unexpected \"x\""}},
            {"cyclic(4))", {"unexpected \")\""}},
            {"cyclic(4)(5)", {"range \"5\"", "first:last"}},
            {"ranges", {"missing range list"}},
            {"ranges()", {"missing range"}},
            {"ranges(0-3)", {"range \"0-3\"", "first:last"}},
            {"ranges(0:3|)", {"missing range"}},
            {"ranges(0:x)", {"range last \"x\""}},
            {"ranges(0:inf)", {"range last \"inf\""}},
            {"ranges(0:3)(2)", {"unexpected \"(2)\""}},
            {"block~1:1/2", {"right overlap \"1/2\""}},
        },
        [](const std::string& t) { parse_partition(t); });
    // Just the process count, not the whole item.
    const std::string msg = thrown_by([] { parse_partition("block/-1"); }).message;
    CHECK(msg == "dimension 0: cannot parse process count \"-1\" (expected 0 to 2147483647)");
}

TEST_CASE("spec: malformed shapes, types and lists are refused") {
    check_malformed({{"", {"missing extent"}},
                     {"64xx2", {"missing extent"}},
                     {"64x", {"missing extent"}},
                     {"infx3", {"extent \"inf\""}},
                     {"64x32 ", {"extent \"32 \""}}},
                    [](const std::string& t) { parse_shape(t); });
    check_malformed({{"quad", {"element type \"quad\"", "cfloat", "recordN"}},
                     {"complex_float", {"element type \"complex_float\""}},
                     {"record", {"missing record size"}},
                     {"recordinf", {"record size \"inf\""}},
                     {"record0", {"at least 1 byte"}, Errc::type}},
                    [](const std::string& t) { parse_type(t); });
    check_malformed({{"1,a", {"number \"a\""}}, {"1,,0", {"missing number"}}, {"inf", {"\"inf\""}}},
                    [](const std::string& t) { parse_list(t); });
}

// Field by field, including the values a kind ignores and the extremes:
// every partition that passes validation prints to text that parses back.
TEST_CASE("spec: every valid dimension partition round-trips") {
    const std::vector<Index> counts{0, 1, 2, 7, Index{1} << 40, unbounded};
    const std::vector<Index> values{lowest, -3, 0, 1, 2, 5, unbounded};
    const std::vector<int> procs{0, 1, 2, 3, int_max};
    std::mt19937_64 rng(12345);
    auto pick = [&](const auto& v) { return v[rng() % v.size()]; };
    int valid = 0;
    for (int i = 0; i < 20000; ++i) {
        DimPartition dp;
        dp.kind = static_cast<PartKind>(rng() % 4);
        dp.left = pick(counts);
        dp.right = pick(counts);
        dp.min_block = pick(values);
        dp.max_block = pick(values);
        dp.block_size = pick(values);
        dp.nprocs = pick(procs);
        dp.edge = static_cast<EdgePolicy>(rng() % 4);
        for (std::size_t n = rng() % 4; n > 0; --n)
            dp.ranges.push_back({pick(values), pick(values)});
        if (code_of([&] { validate_dim_partition(dp, 0, std::nullopt); }) != Errc::success)
            continue;
        ++valid;
        const std::string text = to_string(dp);
        CAPTURE(text);
        REQUIRE(parse_partition(text) == Partition{dp});
    }
    CHECK(valid > 5000);
}

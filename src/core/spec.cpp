#include "spec.hpp"

#include <charconv>

namespace dri::core {

namespace {

[[noreturn]] void bad(std::string_view what, std::string_view text) {
    fail(Errc::arg, "cannot parse " + std::string(what) + " \"" + std::string(text) + "\"");
}

Index parse_int(std::string_view t, std::string_view what) {
    if (t == "inf") return unbounded;
    Index v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || t.empty()) bad(what, t);
    return v;
}

std::vector<std::string_view> split(std::string_view t, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t pos = t.find(sep, start);
        out.push_back(
            t.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos) return out;
        start = pos + 1;
    }
}

EdgePolicy parse_edge(std::string_view t) {
    if (t == "truncate") return EdgePolicy::truncate;
    if (t == "zero") return EdgePolicy::zero;
    if (t == "replicate") return EdgePolicy::replicate;
    if (t == "wrap") return EdgePolicy::wrap;
    bad("edge policy", t);
}

bool starts_with(std::string_view t, std::string_view p) {
    return t.substr(0, p.size()) == p;
}

DimPartition parse_item(std::string_view item) {
    std::string_view kind = item, ovl;
    if (const std::size_t tilde = item.find('~'); tilde != std::string_view::npos) {
        kind = item.substr(0, tilde);
        ovl = item.substr(tilde + 1);
    }
    int nprocs = 0;
    if (const std::size_t slash = kind.find('/'); slash != std::string_view::npos) {
        const Index p = parse_int(kind.substr(slash + 1), "process count");
        if (p < 0 || p > std::numeric_limits<int>::max()) bad("process count", kind);
        nprocs = static_cast<int>(p);
        kind = kind.substr(0, slash);
    }
    DimPartition dp;
    if (kind == "whole") {
        dp = DimPartition::whole();
        dp.nprocs = nprocs;
    } else if (kind == "block") {
        dp = DimPartition::block(nprocs);
    } else if (starts_with(kind, "block[") && kind.back() == ']') {
        const auto mm = split(kind.substr(6, kind.size() - 7), ':');
        if (mm.size() != 2) bad("block constraints", kind);
        dp = DimPartition::block4(0, parse_int(mm[0], "min block"), parse_int(mm[1], "max block"),
                                  0);
        dp.nprocs = nprocs;
    } else if (starts_with(kind, "cyclic(") && kind.back() == ')') {
        dp = DimPartition::cyclic(parse_int(kind.substr(7, kind.size() - 8), "block size"), nprocs);
    } else if (starts_with(kind, "ranges(") && kind.back() == ')') {
        std::vector<Range> rs;
        for (std::string_view r : split(kind.substr(7, kind.size() - 8), '|')) {
            const auto fl = split(r, ':');
            if (fl.size() != 2) bad("range", r);
            rs.push_back({parse_int(fl[0], "range"), parse_int(fl[1], "range")});
        }
        dp = DimPartition::explicit_ranges(std::move(rs));
        dp.nprocs = nprocs;
    } else {
        bad("partition kind", kind);
    }
    if (!ovl.empty()) {
        const auto parts = split(ovl, ':');
        if (parts.size() < 2 || parts.size() > 3) bad("overlap", ovl);
        dp.left = parse_int(parts[0], "left overlap");
        dp.right = parse_int(parts[1], "right overlap");
        if (parts.size() == 3) dp.edge = parse_edge(parts[2]);
    }
    return dp;
}

} // namespace

std::vector<Index> parse_list(std::string_view text) {
    std::vector<Index> out;
    if (text.empty()) return out;
    for (std::string_view t : split(text, ','))
        out.push_back(parse_int(t, "number"));
    return out;
}

std::vector<Index> parse_shape(std::string_view text) {
    std::vector<Index> out;
    for (std::string_view t : split(text, 'x'))
        out.push_back(parse_int(t, "extent"));
    return out;
}

ElementType parse_type(std::string_view t) {
    static constexpr struct {
        const char* name;
        ElemKind kind;
    } names[] = {{"int8", ElemKind::int8},
                 {"uint8", ElemKind::uint8},
                 {"int16", ElemKind::int16},
                 {"uint16", ElemKind::uint16},
                 {"int32", ElemKind::int32},
                 {"uint32", ElemKind::uint32},
                 {"int64", ElemKind::int64},
                 {"uint64", ElemKind::uint64},
                 {"float", ElemKind::float32},
                 {"double", ElemKind::float64},
                 {"cfloat", ElemKind::complex_float},
                 {"cdouble", ElemKind::complex_double},
                 {"byte", ElemKind::byte}};
    for (const auto& n : names)
        if (t == n.name) return ElementType::predefined(n.kind);
    if (starts_with(t, "record")) return ElementType::record(parse_int(t.substr(6), "record size"));
    bad("element type", t);
}

Partition parse_partition(std::string_view text) {
    Partition p;
    for (std::string_view item : split(text, ','))
        p.push_back(parse_item(item));
    return p;
}

} // namespace dri::core

#include "core/spec.hpp"

#include <charconv>
#include <limits>

namespace dri::core {

namespace {

// Every parse error quotes the piece of text at fault, not the whole input,
// so that a long partition points at its mistake.
[[noreturn]] void bad(std::string_view what, std::string_view piece,
                      std::string_view expected = {}) {
    std::string msg = piece.empty()
                          ? "missing " + std::string(what)
                          : "cannot parse " + std::string(what) + " \"" + std::string(piece) + "\"";
    if (!expected.empty()) msg += " (expected " + std::string(expected) + ")";
    fail(Errc::arg, msg);
}

// A decimal integer, optionally negative: range checks belong to the
// validation of the object it ends up in, which knows the right error code.
Index parse_index(std::string_view t, std::string_view what) {
    Index v = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size()) bad(what, t, "an integer");
    return v;
}

// A count no valid partition can hold negative (process count, overlap).
Index parse_count(std::string_view t, std::string_view what, Index max) {
    const Index v = parse_index(t, what);
    if (v < 0 || v > max) bad(what, t, "0 to " + std::to_string(max));
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

// The names come from the printers, so that there is one notation.
EdgePolicy parse_edge(std::string_view t) {
    for (int e = 0; e <= static_cast<int>(EdgePolicy::wrap); ++e)
        if (t == to_string(static_cast<EdgePolicy>(e))) return static_cast<EdgePolicy>(e);
    bad("edge policy", t, "truncate, zero, replicate or wrap");
}

PartKind parse_kind(std::string_view t) {
    for (int k = 0; k <= static_cast<int>(PartKind::ranges); ++k)
        if (t == to_string(static_cast<PartKind>(k))) return static_cast<PartKind>(k);
    bad("partition kind", t, "whole, block, cyclic or ranges");
}

std::vector<Range> parse_ranges(std::string_view t) {
    std::vector<Range> rs;
    for (std::string_view r : split(t, '|')) {
        const auto fl = split(r, ':');
        if (fl.size() != 2) bad("range", r, "first:last");
        rs.push_back({parse_index(fl[0], "range first"), parse_index(fl[1], "range last")});
    }
    return rs;
}

// One item, left to right in the fixed order
// kind (b) (f:l|...) [min:max] /nprocs ~left:right:edge, each part optional
// except where the kind needs it; nothing may follow the last part.
class ItemParser {
  public:
    explicit ItemParser(std::string_view item) : rest_(item) {}

    DimPartition parse() {
        dp_.kind = parse_kind(take_until("([/~"));
        block_size();
        ranges();
        limits();
        nprocs();
        overlap();
        if (!rest_.empty())
            fail(Errc::arg, "unexpected \"" + std::string(rest_) +
                                "\" (an item is kind(b)(f:l|...)[min:max]/nprocs~left:right:edge, "
                                "in this order)");
        return dp_;
    }

  private:
    std::string_view rest_;
    DimPartition dp_;

    bool next_is(char c) const { return !rest_.empty() && rest_.front() == c; }

    std::string_view take_until(std::string_view stops) {
        const std::string_view piece = rest_.substr(0, rest_.find_first_of(stops));
        rest_.remove_prefix(piece.size());
        return piece;
    }

    // The text between `open` (the next character) and the first `close`.
    std::string_view enclosed(char close) {
        const std::size_t end = rest_.find(close);
        if (end == std::string_view::npos)
            fail(Errc::arg,
                 "missing \"" + std::string(1, close) + "\" in \"" + std::string(rest_) + "\"");
        const std::string_view inside = rest_.substr(1, end - 1);
        rest_.remove_prefix(end + 1);
        return inside;
    }

    // Up to two groups follow the kind: the block size (b), then the range
    // list (f:l|...). A group is the block size when the kind is cyclic, or
    // when it has no ':' and is not the only group of a ranges item; so the
    // error for "cyclic(0:3)" or "ranges(0-3)" names the field the kind needs.
    void block_size() {
        if (!next_is('(')) {
            if (dp_.kind == PartKind::cyclic) bad("block size", {}, "cyclic(b)");
            return;
        }
        const std::size_t close = rest_.find(')');
        const bool colon = rest_.substr(0, close).find(':') != std::string_view::npos;
        const bool two_groups =
            close != std::string_view::npos && rest_.substr(close + 1, 1) == std::string_view("(");
        const bool is_size = dp_.kind == PartKind::cyclic ||
                             (!colon && (dp_.kind != PartKind::ranges || two_groups));
        if (is_size) dp_.block_size = parse_index(enclosed(')'), "block size");
    }

    void ranges() {
        if (next_is('('))
            dp_.ranges = parse_ranges(enclosed(')'));
        else if (dp_.kind == PartKind::ranges)
            bad("range list", {}, "ranges(first:last|...)");
    }

    void limits() {
        if (!next_is('[')) return;
        const std::string_view inside = enclosed(']');
        const auto mm = split(inside, ':');
        if (mm.size() != 2) bad("block limits", inside, "[min:max] or [min:]");
        dp_.min_block = parse_index(mm[0], "min block extent");
        dp_.max_block =
            mm[1].empty() || mm[1] == "inf" ? unbounded : parse_index(mm[1], "max block extent");
    }

    void nprocs() {
        if (!next_is('/')) return;
        rest_.remove_prefix(1);
        dp_.nprocs = static_cast<int>(
            parse_count(take_until("~"), "process count", std::numeric_limits<int>::max()));
    }

    void overlap() {
        if (!next_is('~')) return;
        const std::string_view text = rest_.substr(1);
        rest_ = {};
        const auto parts = split(text, ':');
        if (parts.size() < 2 || parts.size() > 3) bad("overlap", text, "left:right[:edge]");
        dp_.left = parse_count(parts[0], "left overlap", unbounded);
        dp_.right = parse_count(parts[1], "right overlap", unbounded);
        if (parts.size() == 3) dp_.edge = parse_edge(parts[2]);
    }
};

} // namespace

std::vector<Index> parse_list(std::string_view text) {
    std::vector<Index> out;
    if (text.empty()) return out;
    for (std::string_view t : split(text, ','))
        out.push_back(parse_index(t, "number"));
    return out;
}

std::vector<Index> parse_shape(std::string_view text) {
    std::vector<Index> out;
    for (std::string_view t : split(text, 'x'))
        out.push_back(parse_index(t, "extent"));
    return out;
}

ElementType parse_type(std::string_view t) {
    std::string names;
    for (int k = static_cast<int>(ElemKind::int8); k <= static_cast<int>(ElemKind::byte); ++k) {
        const ElementType type = ElementType::predefined(static_cast<ElemKind>(k));
        if (t == to_string(type)) return type;
        names += to_string(type) + ", ";
    }
    if (t.substr(0, 6) == "record")
        return ElementType::record(parse_index(t.substr(6), "record size"));
    bad("element type", t, names + "or recordN");
}

Partition parse_partition(std::string_view text) {
    if (text.empty()) bad("partition", text, "one item per dimension, e.g. block,whole");
    Partition p;
    const auto items = split(text, ',');
    for (std::size_t d = 0; d < items.size(); ++d) {
        const std::string where = "dimension " + std::to_string(d);
        if (items[d].empty())
            fail(Errc::arg, where + ": empty item in \"" + std::string(text) + "\"");
        // The item's own message does not know its position: prefix it.
        try {
            p.push_back(ItemParser(items[d]).parse());
        } catch (const Error& e) {
            fail(e.code(), where + ": " + e.what());
        }
    }
    return p;
}

} // namespace dri::core

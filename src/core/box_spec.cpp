// The text notation of box partitions (docs/concepts.md, "Text notation"):
//   boxes:BOX;BOX/BOX/...   members separated by '/', a member's boxes by
//   ';', a box's dimensions by ',' each "first:last" (inclusive); an empty
//   member (or "-") owns no box.
#include "core/box_partition.hpp"

#include <charconv>

namespace dri::core {

namespace {

constexpr std::string_view prefix = "boxes:";

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    for (;;) {
        const std::size_t k = s.find(sep);
        out.push_back(s.substr(0, k));
        if (k == std::string_view::npos) return out;
        s.remove_prefix(k + 1);
    }
}

Index number(std::string_view t, std::string_view box) {
    Index v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size())
        fail(Errc::arg, "box '" + std::string(box) + "': '" + std::string(t) +
                            "' is not an integer (a box is first:last per dimension)");
    return v;
}

Box parse_box(std::string_view text) {
    Box b;
    for (std::string_view dim : split(text, ',')) {
        const std::vector<std::string_view> fl = split(dim, ':');
        if (fl.size() != 2)
            fail(Errc::arg,
                 "box '" + std::string(text) + "': '" + std::string(dim) + "' is not first:last");
        b.first.push_back(number(fl[0], text));
        b.last.push_back(number(fl[1], text));
    }
    return b;
}

} // namespace

bool is_box_text(std::string_view text) {
    return text.substr(0, prefix.size()) == prefix;
}

std::vector<std::vector<Box>> parse_boxes(std::string_view text) {
    if (!is_box_text(text))
        fail(Errc::arg, "'" + std::string(text) + "' is not a box partition (boxes:...)");
    text.remove_prefix(prefix.size());
    std::vector<std::vector<Box>> out;
    for (std::string_view member : split(text, '/')) {
        out.emplace_back();
        if (member.empty() || member == "-") continue;
        for (std::string_view box : split(member, ';'))
            out.back().push_back(parse_box(box));
    }
    return out;
}

std::string to_string(const BoxPartition& bp) {
    std::string s(prefix);
    for (int m = 0; m < bp.nprocs(); ++m) {
        if (m) s += '/';
        const std::vector<Box>& list = bp.boxes(m);
        for (std::size_t k = 0; k < list.size(); ++k)
            s += (k ? ";" : "") + to_string(list[k]);
    }
    return s;
}

} // namespace dri::core

// The learned file's text (core/learned_routes.hpp): written and read back
// whole; refused whole when damaged (cut short, a byte changed, a line
// that is no entry), when written by another dri or under another MPI
// library; entries found only for the same transfer, node layout and routes.
#include "core/learned_routes.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using namespace dri::core;

namespace {

const LearnedOrigin here{"1.0.0", "MPICH Version:\t4.0.2\nMPICH Release date: ..."};

LearnedEntry entry(std::uint64_t transfer, std::uint64_t nodes, int current,
                   std::vector<int> strategies, std::vector<double> seconds) {
    LearnedEntry e;
    e.transfer = transfer;
    e.nodes = nodes;
    e.current = current;
    e.strategies = std::move(strategies);
    e.seconds = std::move(seconds);
    return e;
}

std::vector<LearnedEntry> two_entries() {
    return {entry(0x0123456789abcdefull, 42, 1, {3, 2, 1}, {0.00125, 0.000875, -1}),
            entry(7, 8, 0, {5, 3}, {1e-6, 2.5})};
}

} // namespace

TEST_CASE("a learned file reads back what was written") {
    const std::string text = format_learned(here, two_entries());
    // The MPI library's description is kept to one printable line.
    CHECK(text.find("mpi MPICH Version:?4.0.2\n") != std::string::npos);
    const LearnedRead r = parse_learned(text, here);
    CHECK(r.problem.empty());
    CHECK(r.entries == two_entries());
    const LearnedRead none = parse_learned(format_learned(here, {}), here);
    CHECK(none.problem.empty());
    CHECK(none.entries.empty());
}

TEST_CASE("a damaged learned file is refused whole") {
    const std::string text = format_learned(here, two_entries());
    // Cut short anywhere.
    for (std::size_t n = 0; n < text.size(); ++n) {
        CAPTURE(n);
        const LearnedRead r = parse_learned(text.substr(0, n), here);
        CHECK_FALSE(r.problem.empty());
        CHECK(r.entries.empty());
    }
    // Any one byte changed.
    for (std::size_t i = 0; i < text.size(); ++i) {
        CAPTURE(i);
        std::string bad = text;
        bad[i] = static_cast<char>(bad[i] ^ 0x01);
        const LearnedRead r = parse_learned(bad, here);
        CHECK_FALSE(r.problem.empty());
        CHECK(r.entries.empty());
    }
    CHECK_FALSE(parse_learned("", here).problem.empty());
    CHECK_FALSE(parse_learned(std::string(3 << 20, 'x'), here).problem.empty());
    CHECK_FALSE(parse_learned(std::string("\0\0\0", 3), here).problem.empty());
}

TEST_CASE("entries that do not make sense are refused, even with a right checksum") {
    // The file as dri would write it around one entry line: the checksum,
    // FNV-1a (64 bits) of everything before the last line, made here.
    auto file_with = [](const std::string& line) {
        const std::string empty = format_learned(here, {});
        const std::string body = empty.substr(0, empty.rfind("end ")) + line + "\n";
        std::uint64_t h = 14695981039346656037ull;
        for (const char c : body)
            h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
        char sum[17];
        std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(h));
        return body + "end 1 " + sum + "\n";
    };
    const std::string good = "route 0000000000000001 0000000000000002 1 2 3 0.5 2 -1";
    const LearnedRead ok = parse_learned(file_with(good), here);
    CHECK(ok.problem.empty());
    REQUIRE(ok.entries.size() == 1);
    CHECK(ok.entries[0] == entry(1, 2, 1, {3, 2}, {0.5, -1}));
    for (const char* line : {
             "route 0000000000000001 0000000000000002 2 2 3 1 2 1",         // current >= routes
             "route 0000000000000001 0000000000000002 0 4 3 1 2 1 1 1 5 1", // 4 routes
             "route 0000000000000001 0000000000000002 0 2 3 nan 2 1",       // not a time
             "route 0000000000000001 0000000000000002 0 2 3 inf 2 1",       // not a time
             "route 0000000000000001 0000000000000002 0 2 3 0 2 1",         // a time of 0
             "route 0000000000000001 0000000000000002 0 2 3 1e9 2 1",       // 30 years
             "route 0000000000000001 0000000000000002 0 2 99 1 2 1",        // no such strategy
             "route 0000000000000001 0000000000000002 -1 2 3 1 2 1",        // no such route
             "route 1 2 0 2 3 1 2 1",                                       // short keys
             "route 0000000000000001 0000000000000002 0 2 3 1 2 1 extra",   // a word too many
             "route 0000000000000001 0000000000000002 0 2 3 1 2",           // a word too few
             "route 0000000000000001  0000000000000002 0 2 3 1 2 1",        // an empty word
             "routes 0000000000000001 0000000000000002 0 2 3 1 2 1",        // not an entry
         }) {
        CAPTURE(line);
        const LearnedRead r = parse_learned(file_with(line), here);
        CHECK(r.problem.find("line 4") != std::string::npos);
        CHECK(r.entries.empty());
    }
}

TEST_CASE("a learned file of another dri or another MPI library is not trusted") {
    const std::string text = format_learned(here, two_entries());
    const LearnedRead older = parse_learned(text, {"0.9.0", here.mpi_library});
    CHECK(older.problem.find("another version of dri") != std::string::npos);
    CHECK(older.entries.empty());
    const LearnedRead other = parse_learned(text, {here.dri_version, "Open MPI v4.1.4, ..."});
    CHECK(other.problem.find("another MPI library") != std::string::npos);
    CHECK(other.entries.empty());
    CHECK_FALSE(parse_learned("dri learned routes 2\n", here).problem.empty());
}

TEST_CASE("entries are found for the same transfer, node layout and routes only") {
    const std::vector<LearnedEntry> e = two_entries();
    std::string why;
    CHECK(find_learned(e, 0x0123456789abcdefull, 42, {3, 2, 1}, why) == 0);
    CHECK(find_learned(e, 7, 8, {5, 3}, why) == 1);
    CHECK(find_learned(e, 7, 9, {5, 3}, why) == -1);
    CHECK(why.find("node layout") != std::string::npos);
    CHECK(find_learned(e, 7, 8, {5, 2}, why) == -1);
    CHECK(why.find("other routes") != std::string::npos);
    CHECK(find_learned(e, 6, 8, {5, 3}, why) == -1);
    CHECK(why == "no entry for this transfer");
    // Merging replaces the entry of the same transfer and node layout.
    const std::vector<LearnedEntry> merged =
        merge_learned(e, {entry(7, 8, 1, {5, 3}, {3, 2}), entry(9, 9, 0, {2, 3}, {1, 1})});
    REQUIRE(merged.size() == 3);
    CHECK(merged[0] == e[0]);
    CHECK(merged[1].current == 1);
    CHECK(merged[2].transfer == 9);
}

TEST_CASE("the transfer's key follows its plan") {
    LocalPlan a;
    a.elem_size = 8;
    PeerRegions to;
    to.peer = 1;
    to.elements = 4;
    to.regions = {Region{0, 0, {{4, 8, 8}}}};
    a.sends.push_back(to);
    LocalPlan b = a;
    CHECK(plan_key(a) == plan_key(b));
    b.sends[0].regions[0].axes[0].r = 16;
    CHECK(plan_key(a) != plan_key(b));
    b = a;
    b.sends[0].peer = 2;
    CHECK(plan_key(a) != plan_key(b));
    b = a;
    b.recvs = b.sends;
    b.sends.clear();
    CHECK(plan_key(a) != plan_key(b));
    CHECK(mix_key(1, 2) != mix_key(2, 1));
}

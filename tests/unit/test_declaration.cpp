// The commit's side records and their checks (core/declaration), without
// MPI: what the first process of a group publishes, what every process
// concludes from the records alone, and what each checks of its own
// declaration.
#include "core/box_partition.hpp"
#include "core/declaration.hpp"
#include "core/spec.hpp"
#include "errors.hpp"

#include <doctest/doctest.h>

#include <numeric>

using namespace dri::core;
using dri::test::code_of;

namespace {

// A side of a 12 x 8 float array over `ranks`, partition `part`, row-major.
SideRecord side(const std::string& name, int role, std::vector<int> ranks, const char* part,
                int strategy = 0) {
    const Shape shape(parse_shape("12x8"), parse_type("float"));
    SideRecord s;
    s.name = name;
    s.role = role;
    s.strategy = strategy;
    s.desc = side_description(ranks, shape, parse_partition(part), GridOrder::row_major);
    s.layout = Layout::packed(2);
    s.ranks = std::move(ranks);
    s.rank = s.ranks.front();
    return s;
}

// The records as the processes publish them: each its rank, its byte count,
// then its records; then matched by name.
std::map<std::string, Match> published(const std::vector<SideRecord>& recs) {
    std::vector<std::byte> all;
    for (const SideRecord& r : recs) {
        Writer part, head;
        part.i64(1);
        write_side_record(part, r);
        head.i64(r.rank);
        head.i64(static_cast<Index>(part.bytes().size()));
        all.insert(all.end(), head.bytes().begin(), head.bytes().end());
        all.insert(all.end(), part.bytes().begin(), part.bytes().end());
    }
    return match_sides(all.data(), all.size());
}

MemberDeclaration member(const SideRecord& s, int index, Index bytes) {
    MemberDeclaration d{s.name,          s.role,        s.ranks[static_cast<std::size_t>(index)],
                        s.strategy,      s.desc,        index,
                        s.ranks.front(), {bytes, bytes}};
    d.layout = s.layout;
    return d;
}

} // namespace

TEST_CASE("side records: groups travel as runs of evenly spaced ranks and come back exact") {
    std::vector<int> all(64), odd, mixed = {5, 6, 7, 20, 18, 16, 3, 9};
    std::iota(all.begin(), all.end(), 0);
    for (int r = 1; r < 64; r += 2)
        odd.push_back(r);
    for (const std::vector<int>& ranks : {all, odd, mixed, std::vector<int>{4}}) {
        SideRecord s = side("t", 1, ranks, "block,whole");
        s.rank = 17;
        Writer w;
        write_side_record(w, s);
        Reader r(w.bytes().data(), w.bytes().size());
        const SideRecord back = read_side_record(r, 17);
        CHECK(r.done());
        CHECK(back.ranks == ranks);
        CHECK(back.desc == s.desc);
        CHECK(back.role == 1);
        if (ranks.size() == 64) { // one run of three numbers, not 64 ranks
            SideRecord none = s;
            none.ranks.clear();
            Writer v;
            write_side_record(v, none);
            CHECK(w.bytes().size() - v.bytes().size() == 3 * sizeof(Index));
        }
    }
}

TEST_CASE("side records: a complete transfer validates; the group, plan sides and participants") {
    auto names =
        published({side("t", 0, {0, 1, 2}, "block,whole"), side("t", 1, {3, 1}, "whole,block")});
    REQUIRE(names.count("t"));
    Match& m = names.at("t");
    validate("t", m);
    CHECK(m.send.ranks == std::vector<int>{0, 1, 2});
    REQUIRE(m.recv.size() == 1);
    CHECK(m.recv[0].ranks == std::vector<int>{3, 1});
    CHECK(m.participants == std::vector<std::vector<int>>{{0, 1, 2, 3}});
    CHECK(m.recv[0].dist->nprocs() == 2);
}

TEST_CASE("side records: a fan-out has one pair per receiving side") {
    // "zebra": rank 0 produces; ranks 1 and 2 consume with other layouts,
    // and 3 and 4 as one more side; they need not know of each other.
    auto names = published({side("z", 0, {0}, "whole,whole"), side("z", 1, {1}, "whole,whole"),
                            side("z", 1, {2}, "block,whole"), side("z", 1, {3, 4}, "whole,block")});
    Match& m = names.at("z");
    validate("z", m);
    REQUIRE(m.recv.size() == 3);
    CHECK(m.participants == std::vector<std::vector<int>>{{0, 1}, {0, 2}, {0, 3, 4}});
    CHECK(m.find_recv(side("z", 1, {3, 4}, "whole,block").desc) == 2);
    CHECK(m.find_recv(side("z", 1, {3, 4}, "block,whole").desc) == -1);
    const Index whole = 12 * 8 * 4;
    CHECK(code_of([&] {
              check_member(names, member(side("z", 1, {2}, "block,whole"), 0, whole));
          }) == Errc::success);
    SUBCASE("a process in two receiving sides is an error naming the ranks") {
        auto bad = published({side("z", 0, {0}, "whole,whole"), side("z", 1, {1, 2}, "whole,block"),
                              side("z", 1, {2}, "block,whole")});
        const dri::test::Thrown e = dri::test::thrown_by([&] { validate("z", bad.at("z")); });
        CHECK(e.code == Errc::inconsistent);
        CHECK(e.message.find("rank 2 is in two receiving sides, declared by ranks 1 and 2") !=
              std::string::npos);
    }
    SUBCASE("a member whose group leader published another description") {
        MemberDeclaration d = member(side("z", 1, {3, 4}, "whole,block"), 1, whole);
        d.desc = side("z", 1, {3, 4}, "block,whole").desc;
        const dri::test::Thrown e = dri::test::thrown_by([&] { check_member(names, d); });
        CHECK(e.code == Errc::inconsistent);
        CHECK(e.message.find("ranks 3 and 4 declared the receiving side") != std::string::npos);
    }
    SUBCASE("each receiving side must match the sending side") {
        auto bad = published({side("z", 0, {0}, "whole,whole"), side("z", 1, {1}, "whole,whole"),
                              side("z", 1, {2}, "block,whole")});
        bad.at("z").side[1][1].desc =
            side_description({2}, Shape(parse_shape("12x9"), parse_type("float")),
                             parse_partition("block,whole"), GridOrder::row_major);
        const dri::test::Thrown e = dri::test::thrown_by([&] { validate("z", bad.at("z")); });
        CHECK(e.code == Errc::mismatch);
        CHECK(e.message.find("the receiving side of rank 2") != std::string::npos);
    }
}

TEST_CASE("side records: what every process finds from the records alone") {
    SUBCASE("a side nobody's group leader declared") {
        auto names = published({side("t", 0, {0, 1}, "block,whole")});
        CHECK(code_of([&] { validate("t", names.at("t")); }) == Errc::no_partner);
    }
    SUBCASE("two groups declared the same side") {
        auto names =
            published({side("t", 0, {0, 1}, "block,whole"), side("t", 0, {2, 3}, "block,whole"),
                       side("t", 1, {0, 1, 2, 3}, "whole,block")});
        CHECK(code_of([&] { validate("t", names.at("t")); }) == Errc::inconsistent);
    }
    SUBCASE("the sides chose different strategies") {
        auto names = published(
            {side("t", 0, {0, 1}, "block,whole", 3), side("t", 1, {0, 1}, "whole,block", 2)});
        CHECK(code_of([&] { validate("t", names.at("t")); }) == Errc::inconsistent);
    }
}

TEST_CASE("side records: what each process checks of its own declaration") {
    const SideRecord send = side("t", 0, {0, 1}, "block,whole"),
                     recv = side("t", 1, {0, 1}, "whole,block");
    auto names = published({send, recv});
    validate("t", names.at("t"));
    const Index need = 6 * 8 * 4; // a 6 x 8 float row block
    CHECK(code_of([&] { check_member(names, member(send, 1, need)); }) == Errc::success);
    SUBCASE("another description") {
        MemberDeclaration d = member(send, 1, need);
        d.desc = side("t", 0, {0, 1}, "cyclic(2),whole").desc;
        CHECK(code_of([&] { check_member(names, d); }) == Errc::inconsistent);
    }
    SUBCASE("another strategy") {
        MemberDeclaration d = member(send, 1, need);
        d.strategy = 3;
        CHECK(code_of([&] { check_member(names, d); }) == Errc::inconsistent);
    }
    SUBCASE("a receiver combining otherwise than its side's record") {
        const Index cols = 12 * 4 * 4; // a 12 x 4 float column block
        MemberDeclaration d = member(recv, 1, cols);
        CHECK(code_of([&] { check_member(names, d); }) == Errc::success);
        d.combine = 0; // SUM where the first process published REPLACE
        CHECK(code_of([&] { check_member(names, d); }) == Errc::inconsistent);
        SideRecord summing = recv;
        summing.combine = 0; // the record travels with its operation
        auto again = published({send, summing});
        validate("t", again.at("t"));
        CHECK(again.at("t").recv[0].combine == 0);
        CHECK(code_of([&] { check_member(again, d); }) == Errc::success);
    }
    SUBCASE("not where the group says") {
        MemberDeclaration d = member(send, 1, need);
        d.rank = 5;
        CHECK(code_of([&] { check_member(names, d); }) == Errc::group);
    }
    SUBCASE("a buffer too small for the block") {
        CHECK(code_of([&] { check_member(names, member(send, 1, need - 1)); }) ==
              Errc::buffer_size);
    }
    SUBCASE("a member's own layout sizes its buffers") {
        MemberDeclaration d = member(send, 1, need);
        d.layout = Layout::ordered({1, 0}, {3, 0}); // column-major, leading dimension 9
        CHECK(code_of([&] { check_member(names, d); }) == Errc::buffer_size);
        d.sizes = {9 * 8 * 4};
        CHECK(code_of([&] { check_member(names, d); }) == Errc::success);
        d.layout = Layout::packed(3); // its own dimension count is wrong
        CHECK(code_of([&] { check_member(names, d); }) == Errc::layout);
    }
    SUBCASE("the side's record carries its first process's layout") {
        SideRecord padded = send;
        padded.layout = Layout::ordered({1, 0}, {2, 1});
        auto again = published({padded, recv});
        validate("t", again.at("t"));
        CHECK(again.at("t").send.layout == padded.layout);
        CHECK(again.at("t").send.layouts.empty());
        SideRecord strided = recv;
        strided.layout = Layout::strided({40, 4});
        again = published({send, strided});
        validate("t", again.at("t"));
        CHECK(again.at("t").recv[0].layout == strided.layout);
    }
    SUBCASE("a process's own layout joins its side's list and is checked with the pair") {
        Match& m = names.at("t");
        set_own_layout(m.recv[0], 1, Layout::ordered({1, 0}));
        REQUIRE(m.recv[0].layouts.size() == 2);
        CHECK(m.recv[0].layouts[0] == Layout::packed(2));
        CHECK(m.recv[0].side().layout_of(1) == Layout::ordered({1, 0}));
        CHECK(code_of([&] { check_own_layouts("t", m); }) == Errc::success);
        set_own_layout(m.send, 0, Layout::packed(1));
        const dri::test::Thrown e = dri::test::thrown_by([&] { check_own_layouts("t", m); });
        CHECK(e.code == Errc::layout);
        CHECK(e.message.find("transfer 't': ") == 0);
        CHECK(code_of([&] { set_own_layout(m.send, 2, Layout::packed(2)); }) == Errc::internal);
    }
    SUBCASE("a name or side nobody's group leader published") {
        MemberDeclaration d = member(send, 1, need);
        d.name = "u";
        CHECK(code_of([&] { check_member(names, d); }) == Errc::no_partner);
    }
    SUBCASE("a member that did not declare is named") {
        const std::string msg =
            dri::test::thrown_by([&] {
                fail_missing_member("t", names.at("t").recv[0], 1, {true, false});
            }).message;
        CHECK(msg.find("rank 1 is in the receiving group but did not declare") !=
              std::string::npos);
    }
}

// Box sides travel with their boxes: every process rebuilds the same box
// distribution from the records, and the checks of the pair apply to it.
TEST_CASE("side records: a box side comes back with its boxes, checked as a pair") {
    const Shape shape(parse_shape("12x8"), parse_type("float"));
    const auto boxed = [&](int role, std::vector<int> ranks, const char* text) {
        const auto bp = std::make_shared<const BoxPartition>(shape, parse_boxes(text));
        SideRecord s;
        s.name = "boxes";
        s.role = role;
        s.desc = side_description(ranks, shape, Partition(2, DimPartition::whole()),
                                  GridOrder::row_major, bp.get());
        s.layout = Layout::packed(2);
        s.ranks = std::move(ranks);
        s.rank = s.ranks.front();
        return s;
    };
    {
        auto names = published({boxed(0, {0, 1}, "boxes:0:5,0:7/6:11,0:7"),
                                boxed(1, {2, 3, 4}, "boxes:0:3,0:7//4:11,0:3;4:11,4:7")});
        validate("boxes", names.at("boxes"));
        const Match& m = names.at("boxes");
        REQUIRE(m.send.dist->boxes());
        REQUIRE(m.recv[0].dist->boxes());
        CHECK(m.recv[0].dist->boxes()->all() == parse_boxes("boxes:0:3,0:7//4:11,0:3;4:11,4:7"));
        CHECK(m.recv[0].dist->local_extents(2) == std::vector<Index>{64, 1});
    }
    // Boxes and an ordinary partition on the other side.
    {
        auto names =
            published({side("boxes", 0, {0, 1}, "block,whole"), boxed(1, {2}, "boxes:2:5,1:3")});
        validate("boxes", names.at("boxes"));
        CHECK(names.at("boxes").recv[0].dist->boxes()->cells(0) == 12);
    }
    // A sending side of boxes that does not cover the array.
    auto names = published({boxed(0, {0}, "boxes:0:5,0:7"), side("boxes", 1, {1}, "block,whole")});
    CHECK(code_of([&] { validate("boxes", names.at("boxes")); }) == Errc::not_covering);
}

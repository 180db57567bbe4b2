// The declarations of a named transfer at commit, and their validation, in a
// form whose exchange does not grow with the number of processes: each side
// of a transfer is published once, by the first process of its group (a
// side record: its description and its group), and every other process
// checks its own declaration against that record. Pure functions: every
// process runs the global checks on the same records and reaches the same
// verdict (the same error code and message) without further communication;
// the unit tests run them without MPI.
#pragma once

#include "core/distribution.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"
#include "core/wire.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dri::core {

// What every process of one side must agree on, in canonical form: the
// group's size and a hash of its ranks, the global data, the partition, the
// grid order, and a box distribution's boxes (core/box_partition.hpp). Not
// the layout: each process stores its block in its own.
std::string side_description(const std::vector<int>& group_ranks, const Shape& shape,
                             const Partition& part, GridOrder order,
                             const BoxPartition* boxes = nullptr);

// A layout on the wire (side records and the exchange of the layouts that
// differ from their side's).
void write_layout(Writer& w, const Layout& layout);
Layout read_layout(Reader& r);

// One side of one named transfer, as the first process of its group
// publishes it.
struct SideRecord {
    std::string name;
    int role = 0; // 0 sender, 1 receiver
    int strategy = 0;
    std::string desc;                  // side_description
    Layout layout = Layout::packed(1); // the publishing process's: the side's unless told
    std::vector<int> ranks; // the group, in group order (ranks of the commit communicator)
    int rank = 0;           // the publishing process (filled in by the reader)
    // A receiving side: how arriving elements meet the cells they land in,
    // as a DRI_Combine value (3, REPLACE, stores them). 3 on a sending side.
    int combine = 3;
    // The side's split into pieces (core/pieces.hpp): dimension (-1: none)
    // and count, which every process of the side must repeat.
    int piece_dim = -1;
    int piece_count = 1;
};

// The group travels as runs of evenly spaced ranks: a few numbers for the
// groups programs use (every process, a range, every other one).
void write_side_record(Writer& w, const SideRecord& s);
SideRecord read_side_record(Reader& r, int rank);

// What one process declared for one role of a transfer.
struct MemberDeclaration {
    std::string name;
    int role = 0;
    int rank = 0; // in the commit communicator
    int strategy = 0;
    std::string desc;
    int index = -1;                    // in the side's group
    int first = -1;                    // the rank of the group's first process
    std::vector<Index> sizes;          // of its ring's buffers
    int combine = 3;                   // as SideRecord::combine
    Layout layout = Layout::packed(1); // its own, which sizes its buffers
    int piece_dim = -1;                // as SideRecord
    int piece_count = 1;
};

// One side of a transfer as validation rebuilds it from its record. The
// distribution is shared: a committed transfer keeps its sides (to plan its
// reverse) after the commit's records are gone.
struct MatchedSide {
    std::vector<int> ranks; // the group, in group order
    std::shared_ptr<const Distribution> dist;
    Layout layout = Layout::packed(1);
    std::vector<Layout> layouts; // each process's own, when they differ (plan.hpp, Side)
    std::string desc;
    int combine = 3; // as SideRecord::combine
    // Its pieces: the record's dimension and count, and the explicit
    // boundaries of the processes that gave their own (set_own_bounds).
    PieceSplit split;
    Side side() const { return {dist.get(), layout, layouts, split}; }
};

// Everything known about one name after the exchange; `validate` fills in
// what follows the records. A name has one sending side and one or more
// receiving sides (fan-out): each receiving side is planned with the
// sending side as its own pair.
struct Match {
    std::vector<SideRecord> side[2]; // as published; receiving sides by publishing rank
    MatchedSide send;
    std::vector<MatchedSide> recv; // one per receiving side, in side[1]'s order
    int strategy = 0;
    // Per receiving side: the sorted ranks of its pair (sending group and
    // that receiving group), in the commit communicator.
    std::vector<std::vector<int>> participants;
    // The receiving side whose description is `desc`, or -1.
    int find_recv(const std::string& desc) const;
    // The side a role of description `desc` belongs to: the sending side, or
    // its receiving side (which must exist).
    const MatchedSide& of(int role, const std::string& desc) const;
};

// The place of `rank` in a sorted list of ranks (such as participants[k]):
// its rank in the communicator built over that list.
int position_in(const std::vector<int>& sorted, int rank);

// Groups the published side records by name: `all` holds the parts of the
// processes that published, each its rank, its byte count and then a count
// followed by that many records. Throws Errc::internal on corrupt bytes.
std::map<std::string, Match> match_sides(const std::byte* all, std::size_t bytes);

// The checks every process makes alike on one name: one sending side, at
// least one receiving side, no process in two receiving sides, one
// strategy, each receiving side compatible with the sending side. Throws
// core::Error with the transfer's name in the message.
void validate(const std::string& name, Match& m);

// One process's own checks of its declaration against its side's record
// (`names` after validate): published, the same description, strategy and
// (receiving) combine operation, at its place in the group, buffers large
// enough.
void check_member(const std::map<std::string, Match>& names, const MemberDeclaration& d);

// Records that process `index` of a side stores its block in `own`, not in
// the side's layout (the first such call makes the side's layout list).
void set_own_layout(MatchedSide& side, int index, const Layout& own);

// Records that process `index` of a side splits its block at `bounds`
// (DRI_Transfer_set_piece_bounds), checked against its block (Errc::internal:
// the process checked them when it set them).
void set_own_bounds(MatchedSide& side, int index, std::vector<Index> bounds);

// The pair checks of validate again, after set_own_layout: the same lists on
// every process, the same verdict.
void check_own_layouts(const std::string& name, const Match& m);

// The error when a side's group has members that did not declare: `declared`
// holds, per group index, whether that member declared.
[[noreturn]] void fail_missing_member(const std::string& name, const MatchedSide& side, int role,
                                      const std::vector<bool>& declared);

} // namespace dri::core

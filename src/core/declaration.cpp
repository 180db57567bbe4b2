#include "core/declaration.hpp"

#include "core/box_partition.hpp"
#include "core/plan.hpp"

#include <algorithm>
#include <climits>
#include <tuple>

namespace dri::core {

namespace {

// What every process of one side must agree on, in canonical form.

struct SideData {
    Index group_size = 0;
    std::uint64_t group_hash = 0;
    Shape shape{{1}, ElementType::predefined(ElemKind::byte)};
    Partition part;
    GridOrder order = GridOrder::row_major;
    std::shared_ptr<const BoxPartition> boxes; // a box distribution's
};

const char* role_name(int role) {
    return role == 0 ? "sending" : "receiving";
}

std::string split_text(int dim, int count) {
    return dim < 0 ? "no pieces"
                   : std::to_string(count) + " pieces along dimension " + std::to_string(dim);
}

SideData parse_description(const std::string& desc) {
    Reader r(reinterpret_cast<const std::byte*>(desc.data()), desc.size());
    SideData s;
    s.group_size = r.i64();
    s.group_hash = static_cast<std::uint64_t>(r.i64());
    std::tie(s.shape, s.part) = read_shape_partition(r);
    const Index grid_order = r.i64();
    if (grid_order != 0 && grid_order != 1) fail(Errc::internal, "corrupt transfer declaration");
    s.order = static_cast<GridOrder>(grid_order);
    if (!r.done())
        s.boxes = std::make_shared<const BoxPartition>(s.shape, read_box_lists(r, s.shape.ndims()));
    return s;
}

} // namespace

void write_layout(Writer& w, const Layout& layout) {
    w.i64(layout.has_explicit_strides() ? 1 : 0);
    if (layout.has_explicit_strides()) {
        w.vec(layout.strides());
    } else {
        w.vec(layout.order());
        w.vec(layout.pad());
    }
}

Layout read_layout(Reader& r) {
    if (r.i64()) return Layout::strided(r.vec<Index>());
    std::vector<int> order = r.vec<int>();
    return Layout::ordered(std::move(order), r.vec<Index>());
}

// Ranks as runs of evenly spaced values: (first, step, count) each.
void write_ranks(Writer& w, const std::vector<int>& ranks) {
    std::vector<Index> runs;
    for (std::size_t i = 0; i < ranks.size();) {
        const Index first = ranks[i];
        const Index step = i + 1 < ranks.size() ? ranks[i + 1] - first : 1;
        std::size_t n = 1;
        while (i + n < ranks.size() && ranks[i + n] == first + step * static_cast<Index>(n))
            ++n;
        runs.insert(runs.end(), {first, step, static_cast<Index>(n)});
        i += n;
    }
    w.vec(runs);
}

std::vector<int> read_ranks(Reader& r) {
    const std::vector<Index> runs = r.vec<Index>();
    if (runs.size() % 3) fail(Errc::internal, "corrupt transfer declaration");
    std::vector<int> ranks;
    for (std::size_t i = 0; i < runs.size(); i += 3) {
        if (runs[i + 2] < 1 || runs[i + 2] > (Index{1} << 31))
            fail(Errc::internal, "corrupt transfer declaration");
        for (Index k = 0; k < runs[i + 2]; ++k)
            ranks.push_back(static_cast<int>(runs[i] + runs[i + 1] * k));
    }
    return ranks;
}

void write_side_record(Writer& w, const SideRecord& s) {
    w.str(s.name);
    w.i64(s.role);
    w.i64(s.strategy);
    w.str(s.desc);
    write_layout(w, s.layout);
    write_ranks(w, s.ranks);
    w.i64(s.combine);
    w.i64(s.piece_dim);
    w.i64(s.piece_count);
}

SideRecord read_side_record(Reader& r, int rank) {
    SideRecord s;
    s.rank = rank;
    s.name = r.str();
    s.role = static_cast<int>(r.i64());
    if (s.role != 0 && s.role != 1) fail(Errc::internal, "corrupt transfer declaration");
    s.strategy = static_cast<int>(r.i64());
    s.desc = r.str();
    s.layout = read_layout(r);
    s.ranks = read_ranks(r);
    s.combine = static_cast<int>(r.i64());
    const Index dim = r.i64(), count = r.i64();
    if (dim < -1 || dim >= max_dims || count < 1 || count > max_pieces || (dim < 0 && count != 1))
        fail(Errc::internal, "corrupt transfer declaration");
    s.piece_dim = static_cast<int>(dim);
    s.piece_count = static_cast<int>(count);
    return s;
}

int position_in(const std::vector<int>& sorted, int rank) {
    return static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), rank) - sorted.begin());
}

int Match::find_recv(const std::string& desc) const {
    for (std::size_t k = 0; k < recv.size(); ++k)
        if (recv[k].desc == desc) return static_cast<int>(k);
    return -1;
}

const MatchedSide& Match::of(int role, const std::string& desc) const {
    if (role == 0) return send;
    const int k = find_recv(desc);
    if (k < 0) fail(Errc::internal, "a receiving role matches no receiving side");
    return recv[static_cast<std::size_t>(k)];
}

namespace {

// A side rebuilt from its record, with the record's own consistency checked.
MatchedSide rebuild(const std::string& what, const SideRecord& rec) {
    const SideData data = parse_description(rec.desc);
    if (static_cast<Index>(rec.ranks.size()) != data.group_size ||
        fnv1a(rec.ranks) != data.group_hash || rec.ranks.front() != rec.rank)
        fail(Errc::internal, what + "corrupt group description");
    if (data.boxes && data.boxes->nprocs() != data.group_size)
        fail(Errc::internal, what + "corrupt box description");
    return {rec.ranks,
            data.boxes ? std::make_shared<const Distribution>(data.boxes)
                       : std::make_shared<const Distribution>(
                             data.shape, data.part, static_cast<int>(data.group_size), data.order),
            rec.layout,
            {},
            rec.desc,
            rec.combine,
            {rec.piece_dim, rec.piece_count, {}}};
}

// Pieces move only between one sending and one receiving side of tensor
// distributions (docs/api.md, "Pieces"): the same verdict everywhere.
void check_pieces(const std::string& what, const Match& n) {
    bool split = n.send.split.split();
    bool boxes = n.send.dist->boxes() != nullptr;
    for (const MatchedSide& r : n.recv) {
        split = split || r.split.split();
        boxes = boxes || r.dist->boxes() != nullptr;
    }
    if (!split) return;
    if (n.recv.size() > 1)
        fail(Errc::strategy, what + "pieces (DRI_Transfer_set_pieces) are not available on a "
                                    "transfer with several receiving sides (fan-out)");
    if (boxes)
        fail(Errc::strategy,
             what + "pieces (DRI_Transfer_set_pieces) are not available on box distributions");
    for (const MatchedSide* side : {&n.send, &n.recv.front()})
        if (side->split.dim >= side->dist->ndims())
            fail(Errc::internal, what + "corrupt piece split");
}

// A process takes part in at most one receiving side of a name: otherwise
// one DRI_Do could not say which of its receive rings it fills.
void check_receivers_disjoint(const std::string& what, const Match& m) {
    std::vector<std::pair<int, std::size_t>> member; // (rank, receiving side)
    for (std::size_t k = 0; k < m.recv.size(); ++k)
        for (int r : m.recv[k].ranks)
            member.emplace_back(r, k);
    std::sort(member.begin(), member.end());
    for (std::size_t i = 1; i < member.size(); ++i)
        if (member[i].first == member[i - 1].first)
            fail(Errc::inconsistent,
                 what + "rank " + std::to_string(member[i].first) +
                     " is in two receiving sides, declared by ranks " +
                     std::to_string(m.side[1][member[i - 1].second].rank) + " and " +
                     std::to_string(m.side[1][member[i].second].rank) +
                     " with different global data, partition or group (a process "
                     "takes part in at most one receiving side of a name)");
}

// The checks of the sending side against receiving side k.
void check_pair(const std::string& what, const Match& n, std::size_t k) {
    try {
        check_sides(n.send.side(), n.recv[k].side());
    } catch (const Error& e) {
        const std::string which = n.recv.size() > 1 ? "the receiving side of rank " +
                                                          std::to_string(n.side[1][k].rank) + ": "
                                                    : "";
        fail(e.code(), what + which + e.what());
    }
}

} // namespace

void set_own_layout(MatchedSide& side, int index, const Layout& own) {
    if (index < 0 || static_cast<std::size_t>(index) >= side.ranks.size())
        fail(Errc::internal, "corrupt layout exchange");
    if (side.layouts.empty()) side.layouts.assign(side.ranks.size(), side.layout);
    side.layouts[static_cast<std::size_t>(index)] = own;
}

void set_own_bounds(MatchedSide& side, int index, std::vector<Index> bounds) {
    if (index < 0 || static_cast<std::size_t>(index) >= side.ranks.size() || !side.split.split())
        fail(Errc::internal, "corrupt piece exchange");
    const Index extent = side.dist->local_extents(index)[static_cast<std::size_t>(side.split.dim)];
    try {
        check_split(side.dist->ndims(), side.split.dim, side.split.count, bounds, extent);
    } catch (const Error&) {
        fail(Errc::internal, "corrupt piece exchange");
    }
    if (side.split.bounds.empty()) side.split.bounds.resize(side.ranks.size());
    side.split.bounds[static_cast<std::size_t>(index)] = std::move(bounds);
}

void check_own_layouts(const std::string& name, const Match& m) {
    for (std::size_t k = 0; k < m.recv.size(); ++k)
        if (!m.send.layouts.empty() || !m.recv[k].layouts.empty())
            check_pair("transfer '" + name + "': ", m, k);
}

// Same records, same code on every process: same verdict everywhere.
void validate(const std::string& name, Match& n) {
    const std::string what = "transfer '" + name + "': ";
    for (int s = 0; s < 2; ++s)
        if (n.side[s].empty())
            fail(Errc::no_partner, what + "has a " + role_name(1 - s) + " side but no " +
                                       role_name(s) +
                                       " side (the first process of its group "
                                       "declares it)");
    const std::vector<SideRecord>& senders = n.side[0];
    if (senders.size() > 1)
        fail(Errc::inconsistent, what + "ranks " + std::to_string(senders[0].rank) + " and " +
                                     std::to_string(senders[1].rank) +
                                     " declared the sending side with different global data, "
                                     "partition, group or layout (a name has one sending side)");
    n.strategy = senders.front().strategy;
    for (const std::vector<SideRecord>& recs : n.side)
        for (const SideRecord& rec : recs)
            if (rec.strategy != n.strategy)
                fail(Errc::inconsistent, what + "ranks " + std::to_string(senders.front().rank) +
                                             " and " + std::to_string(rec.rank) +
                                             " chose different strategies");
    n.send = rebuild(what, senders.front());
    for (const SideRecord& rec : n.side[1])
        n.recv.push_back(rebuild(what, rec));
    check_receivers_disjoint(what, n);
    check_pieces(what, n);
    for (std::size_t k = 0; k < n.recv.size(); ++k) {
        check_pair(what, n, k);
        std::vector<int> pair = n.send.ranks;
        pair.insert(pair.end(), n.recv[k].ranks.begin(), n.recv[k].ranks.end());
        std::sort(pair.begin(), pair.end());
        pair.erase(std::unique(pair.begin(), pair.end()), pair.end());
        n.participants.push_back(std::move(pair));
    }
}

void check_member(const std::map<std::string, Match>& names, const MemberDeclaration& d) {
    const std::string what = "transfer '" + d.name + "': ";
    const auto it = names.find(d.name);
    const auto published_by = [&](int rank) {
        if (it == names.end()) return false;
        const std::vector<SideRecord>& recs = it->second.side[d.role];
        return std::any_of(recs.begin(), recs.end(),
                           [&](const SideRecord& r) { return r.rank == rank; });
    };
    // The first process of a receiving group that declared another
    // receiving side of the name is in two of them (the other member order
    // is found by check_receivers_disjoint): the same code either way.
    if (!published_by(d.first) && d.role == 1 && it != names.end())
        for (std::size_t k = 0; k < it->second.recv.size(); ++k) {
            const std::vector<int>& ranks = it->second.recv[k].ranks;
            if (std::find(ranks.begin(), ranks.end(), d.first) != ranks.end())
                fail(Errc::inconsistent,
                     what + "rank " + std::to_string(d.first) +
                         " is in two receiving sides, declared by ranks " +
                         std::to_string(it->second.side[1][k].rank) + " and " +
                         std::to_string(d.rank) +
                         " with different global data, partition or group (a process "
                         "takes part in at most one receiving side of a name)");
        }
    if (!published_by(d.first))
        fail(Errc::no_partner, what + "the first process of the " + std::string(role_name(d.role)) +
                                   " group (rank " + std::to_string(d.first) +
                                   ") did not declare its role");
    const Match& m = it->second;
    const bool found = d.role == 0 ? d.desc == m.send.desc : m.find_recv(d.desc) >= 0;
    if (!found)
        fail(Errc::inconsistent, what + "ranks " + std::to_string(d.first) + " and " +
                                     std::to_string(d.rank) + " declared the " + role_name(d.role) +
                                     " side with different global data, partition or group");
    if (d.strategy != m.strategy)
        fail(Errc::inconsistent, what + "ranks " + std::to_string(m.side[0].front().rank) +
                                     " and " + std::to_string(d.rank) +
                                     " chose different strategies");
    const MatchedSide& side = m.of(d.role, d.desc);
    if (d.combine != side.combine)
        fail(Errc::inconsistent, what + "ranks " + std::to_string(d.first) + " and " +
                                     std::to_string(d.rank) +
                                     " asked for different combine operations on their receiving "
                                     "side (DRI_Transfer_set_combine)");
    if (d.piece_dim != side.split.dim || d.piece_count != side.split.count)
        fail(Errc::inconsistent,
             what + "ranks " + std::to_string(d.first) + " and " + std::to_string(d.rank) +
                 " split the " + role_name(d.role) + " side differently (" +
                 split_text(side.split.dim, side.split.count) + " against " +
                 split_text(d.piece_dim, d.piece_count) +
                 "): every process of a side splits along the same dimension into as many "
                 "pieces (DRI_Transfer_set_pieces)");
    if (d.index < 0 || static_cast<std::size_t>(d.index) >= side.ranks.size() ||
        side.ranks[static_cast<std::size_t>(d.index)] != d.rank)
        fail(Errc::group, what + "rank " + std::to_string(d.rank) + " is not where the " +
                              role_name(d.role) + " group says it is");
    const Distribution& dist = *side.dist;
    const LocalLayout ll =
        bind_layout(d.layout, dist.local_extents(d.index), dist.shape().elem_size());
    for (std::size_t b = 0; b < d.sizes.size(); ++b)
        if (d.sizes[b] < ll.bytes)
            fail(Errc::buffer_size, what + "rank " + std::to_string(d.rank) + "'s " +
                                        role_name(d.role) + " buffer " + std::to_string(b) +
                                        " has " + std::to_string(d.sizes[b]) +
                                        " bytes but its block needs " + std::to_string(ll.bytes));
}

void fail_missing_member(const std::string& name, const MatchedSide& side, int role,
                         const std::vector<bool>& declared) {
    const auto missing = std::find(declared.begin(), declared.end(), false) - declared.begin();
    const std::vector<int>& ranks = side.ranks;
    if (static_cast<std::size_t>(missing) >= ranks.size())
        fail(Errc::internal, "transfer '" + name + "': more declarations than group members");
    fail(Errc::no_partner, "transfer '" + name + "': rank " +
                               std::to_string(ranks[static_cast<std::size_t>(missing)]) +
                               " is in the " + role_name(role) +
                               " group but did not declare its role");
}

std::string side_description(const std::vector<int>& group_ranks, const Shape& shape,
                             const Partition& part, GridOrder order, const BoxPartition* boxes) {
    Writer w;
    w.i64(static_cast<Index>(group_ranks.size()));
    w.i64(static_cast<Index>(fnv1a(group_ranks)));
    write_shape_partition(w, shape, part);
    w.i64(static_cast<Index>(order));
    if (boxes) write_boxes(w, *boxes);
    return w.str_bytes();
}

std::map<std::string, Match> match_sides(const std::byte* all, std::size_t bytes) {
    std::map<std::string, Match> names;
    Reader parts(all, bytes);
    while (!parts.done()) {
        const Index rank = parts.i64(), size = parts.i64();
        if (rank < 0 || rank > INT_MAX || size < 0 || static_cast<std::size_t>(size) > bytes)
            fail(Errc::internal, "corrupt transfer declaration");
        Reader rd(parts.take(static_cast<std::size_t>(size)), static_cast<std::size_t>(size));
        const Index n = rd.i64();
        for (Index i = 0; i < n; ++i) {
            SideRecord s = read_side_record(rd, static_cast<int>(rank));
            names[s.name].side[s.role].push_back(std::move(s));
        }
        if (!rd.done()) fail(Errc::internal, "corrupt transfer declaration");
    }
    return names;
}

} // namespace dri::core

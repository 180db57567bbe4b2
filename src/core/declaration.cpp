#include "core/declaration.hpp"

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
    Layout layout = Layout::packed(1);
};

const char* role_name(int role) {
    return role == 0 ? "sending" : "receiving";
}

SideData parse_description(const std::string& desc) {
    Reader r(reinterpret_cast<const std::byte*>(desc.data()), desc.size());
    SideData s;
    s.group_size = r.i64();
    s.group_hash = static_cast<std::uint64_t>(r.i64());
    std::tie(s.shape, s.part) = read_shape_partition(r);
    if (r.i64()) {
        s.layout = Layout::strided(r.vec<Index>());
    } else {
        std::vector<int> order = r.vec<int>();
        s.layout = Layout::ordered(std::move(order), r.vec<Index>());
    }
    return s;
}

} // namespace

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
    write_ranks(w, s.ranks);
}

SideRecord read_side_record(Reader& r, int rank) {
    SideRecord s;
    s.rank = rank;
    s.name = r.str();
    s.role = static_cast<int>(r.i64());
    if (s.role != 0 && s.role != 1) fail(Errc::internal, "corrupt transfer declaration");
    s.strategy = static_cast<int>(r.i64());
    s.desc = r.str();
    s.ranks = read_ranks(r);
    return s;
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
    for (int s = 0; s < 2; ++s) {
        const std::vector<SideRecord>& recs = n.side[s];
        if (recs.size() > 1)
            fail(Errc::inconsistent,
                 what + "ranks " + std::to_string(recs[0].rank) + " and " +
                     std::to_string(recs[1].rank) + " declared the " + role_name(s) +
                     " side with different global data, partition, group or layout");
        const SideRecord& rec = recs.front();
        if (rec.strategy != n.side[0].front().strategy)
            fail(Errc::inconsistent, what + "ranks " + std::to_string(n.side[0].front().rank) +
                                         " and " + std::to_string(rec.rank) +
                                         " chose different strategies");
        const SideData data = parse_description(rec.desc);
        if (static_cast<Index>(rec.ranks.size()) != data.group_size ||
            fnv1a(rec.ranks) != data.group_hash || rec.ranks.front() != rec.rank)
            fail(Errc::internal, what + "corrupt group description");
        n.ranks[s] = rec.ranks;
        n.dist[s] = std::make_unique<Distribution>(data.shape, data.part,
                                                   static_cast<int>(data.group_size));
        n.layout[s] = data.layout;
    }
    n.strategy = n.side[0].front().strategy;
    const Side send{n.dist[0].get(), n.layout[0]}, recv{n.dist[1].get(), n.layout[1]};
    try {
        check_sides(send, recv);
    } catch (const Error& e) {
        fail(e.code(), what + e.what());
    }
    for (int s = 0; s < 2; ++s)
        for (int r : n.ranks[s])
            n.participants.push_back(r);
    std::sort(n.participants.begin(), n.participants.end());
    n.participants.erase(std::unique(n.participants.begin(), n.participants.end()),
                         n.participants.end());
}

void check_member(const std::map<std::string, Match>& names, const MemberDeclaration& d) {
    const std::string what = "transfer '" + d.name + "': ";
    const auto it = names.find(d.name);
    if (it == names.end() || it->second.side[d.role].empty())
        fail(Errc::no_partner, what + "the first process of the " + std::string(role_name(d.role)) +
                                   " group (rank " + std::to_string(d.first) +
                                   ") did not declare its role");
    const Match& m = it->second;
    const SideRecord& rec = m.side[d.role].front();
    if (d.desc != rec.desc)
        fail(Errc::inconsistent, what + "ranks " + std::to_string(rec.rank) + " and " +
                                     std::to_string(d.rank) + " declared the " + role_name(d.role) +
                                     " side with different global data, partition, group or "
                                     "layout");
    if (d.strategy != m.strategy)
        fail(Errc::inconsistent, what + "ranks " + std::to_string(m.side[0].front().rank) +
                                     " and " + std::to_string(d.rank) +
                                     " chose different strategies");
    const std::vector<int>& ranks = m.ranks[d.role];
    if (d.index < 0 || static_cast<std::size_t>(d.index) >= ranks.size() ||
        ranks[static_cast<std::size_t>(d.index)] != d.rank)
        fail(Errc::group, what + "rank " + std::to_string(d.rank) + " is not where the " +
                              role_name(d.role) + " group says it is");
    const Distribution& dist = *m.dist[d.role];
    const LocalLayout ll =
        bind_layout(m.layout[d.role], dist.local_extents(d.index), dist.shape().elem_size());
    for (std::size_t b = 0; b < d.sizes.size(); ++b)
        if (d.sizes[b] < ll.bytes)
            fail(Errc::buffer_size, what + "rank " + std::to_string(d.rank) + "'s " +
                                        role_name(d.role) + " buffer " + std::to_string(b) +
                                        " has " + std::to_string(d.sizes[b]) +
                                        " bytes but its block needs " + std::to_string(ll.bytes));
}

void fail_missing_member(const std::string& name, const Match& m, int role,
                         const std::vector<bool>& declared) {
    const auto missing = std::find(declared.begin(), declared.end(), false) - declared.begin();
    const std::vector<int>& ranks = m.ranks[role];
    if (static_cast<std::size_t>(missing) >= ranks.size())
        fail(Errc::internal, "transfer '" + name + "': more declarations than group members");
    fail(Errc::no_partner, "transfer '" + name + "': rank " +
                               std::to_string(ranks[static_cast<std::size_t>(missing)]) +
                               " is in the " + role_name(role) +
                               " group but did not declare its role");
}

std::string side_description(const std::vector<int>& group_ranks, const Shape& shape,
                             const Partition& part, const Layout& layout) {
    Writer w;
    w.i64(static_cast<Index>(group_ranks.size()));
    w.i64(static_cast<Index>(fnv1a(group_ranks)));
    write_shape_partition(w, shape, part);
    w.i64(layout.has_explicit_strides() ? 1 : 0);
    if (layout.has_explicit_strides()) {
        w.vec(layout.strides());
    } else {
        w.vec(layout.order());
        w.vec(layout.pad());
    }
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

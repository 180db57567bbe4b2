#include "core/declaration.hpp"

#include "core/plan.hpp"

#include <algorithm>
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

void write_declaration(Writer& w, const Declaration& d) {
    w.str(d.name);
    w.i64(d.role);
    w.i64(d.strategy);
    w.str(d.desc);
    w.i64(d.index);
    w.vec(d.ranks);
    w.vec(d.sizes);
}

Declaration read_declaration(Reader& r, int rank) {
    Declaration d;
    d.rank = rank;
    d.name = r.str();
    d.role = static_cast<int>(r.i64());
    if (d.role != 0 && d.role != 1) fail(Errc::internal, "corrupt transfer declaration");
    d.strategy = static_cast<int>(r.i64());
    d.desc = r.str();
    d.index = static_cast<int>(r.i64());
    d.ranks = r.vec<int>();
    d.sizes = r.vec<Index>();
    return d;
}

// Same data, same code on every process: same verdict everywhere.
void validate(const std::string& name, Match& n) {
    const std::string what = "transfer '" + name + "': ";
    for (int s = 0; s < 2; ++s)
        if (n.side[s].empty())
            fail(Errc::no_partner, what + "has a " + role_name(1 - s) +
                                       " side but no process declared the " + role_name(s) +
                                       " role");
    for (int s = 0; s < 2; ++s) {
        auto& decls = n.side[s];
        std::sort(decls.begin(), decls.end(),
                  [](const Declaration& a, const Declaration& b) { return a.rank < b.rank; });
        for (std::size_t i = 1; i < decls.size(); ++i)
            if (decls[i].rank == decls[i - 1].rank)
                fail(Errc::duplicate, what + "rank " + std::to_string(decls[i].rank) +
                                          " declared the " + role_name(s) + " role twice");
        for (const Declaration& d : decls)
            if (d.desc != decls.front().desc)
                fail(Errc::inconsistent,
                     what + "ranks " + std::to_string(decls.front().rank) + " and " +
                         std::to_string(d.rank) + " declared the " + role_name(s) +
                         " side with different global data, partition, group or layout");
        for (const Declaration& d : decls)
            if (d.strategy != n.side[0].front().strategy)
                fail(Errc::inconsistent, what + "ranks " + std::to_string(n.side[0].front().rank) +
                                             " and " + std::to_string(d.rank) +
                                             " chose different strategies");
        const SideData data = parse_description(decls.front().desc);
        const auto leader = std::find_if(decls.begin(), decls.end(),
                                         [](const Declaration& d) { return d.index == 0; });
        if (leader == decls.end())
            fail(Errc::no_partner, what + "the first process of the " + std::string(role_name(s)) +
                                       " group did not declare its role");
        n.ranks[s] = leader->ranks;
        if (static_cast<Index>(n.ranks[s].size()) != data.group_size ||
            fnv1a(n.ranks[s]) != data.group_hash)
            fail(Errc::internal, what + "corrupt group description");
        if (static_cast<Index>(decls.size()) != data.group_size) {
            std::vector<bool> seen(n.ranks[s].size(), false);
            for (const Declaration& d : decls)
                if (d.index >= 0 && static_cast<std::size_t>(d.index) < seen.size())
                    seen[static_cast<std::size_t>(d.index)] = true;
            const auto missing = std::find(seen.begin(), seen.end(), false) - seen.begin();
            fail(Errc::no_partner,
                 what + "rank " + std::to_string(n.ranks[s][static_cast<std::size_t>(missing)]) +
                     " is in the " + role_name(s) + " group but did not declare its role");
        }
        for (const Declaration& d : decls)
            if (d.index < 0 || static_cast<std::size_t>(d.index) >= n.ranks[s].size() ||
                n.ranks[s][static_cast<std::size_t>(d.index)] != d.rank)
                fail(Errc::group, what + "rank " + std::to_string(d.rank) + " is not where the " +
                                      role_name(s) + " group says it is");
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
    for (int s = 0; s < 2; ++s) {
        const Side& side = s == 0 ? send : recv;
        for (const Declaration& d : n.side[s]) {
            const LocalLayout ll = bind_layout(side.layout, side.dist->local_extents(d.index),
                                               side.dist->shape().elem_size());
            for (std::size_t b = 0; b < d.sizes.size(); ++b)
                if (d.sizes[b] < ll.bytes)
                    fail(Errc::buffer_size,
                         what + "rank " + std::to_string(d.rank) + "'s " + role_name(s) +
                             " buffer " + std::to_string(b) + " has " + std::to_string(d.sizes[b]) +
                             " bytes but its block needs " + std::to_string(ll.bytes));
        }
    }
    for (int s = 0; s < 2; ++s)
        for (int r : n.ranks[s])
            n.participants.push_back(r);
    std::sort(n.participants.begin(), n.participants.end());
    n.participants.erase(std::unique(n.participants.begin(), n.participants.end()),
                         n.participants.end());
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

std::map<std::string, Match> match_declarations(const std::byte* all,
                                                const std::vector<Index>& sizes) {
    std::map<std::string, Match> names;
    std::size_t off = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
        Reader rd(all + off, static_cast<std::size_t>(sizes[r]));
        const Index n = rd.i64();
        for (Index i = 0; i < n; ++i) {
            Declaration d = read_declaration(rd, static_cast<int>(r));
            names[d.name].side[d.role].push_back(std::move(d));
        }
        if (!rd.done()) fail(Errc::internal, "corrupt transfer declaration");
        off += static_cast<std::size_t>(sizes[r]);
    }
    return names;
}

} // namespace dri::core

#include "mpi/commit/rendezvous.hpp"

#include "mpi/runtime/collectives.hpp"

#include <climits>

namespace dri::detail {

namespace {

using Names = std::map<std::string, core::Match>;

std::string description(const Role& role) {
    const core::Distribution& d = role.dist->dist;
    return core::side_description(role.dist->group->ranks, d.shape(), d.partition(), d.grid_order(),
                                  d.boxes());
}

// How a role's arriving elements are combined, as published (REPLACE for a
// sending role).
int combine_of(const TransferImpl& t, int role) {
    return static_cast<int>(role == 1 ? t.combine : core::CombineOp::replace);
}

// The roles this process declared, each as (transfer, role id, role).
template <class F>
void for_each_role(std::span<TransferImpl* const> xfers, F&& f) {
    for (const TransferImpl* t : xfers) {
        if (t->send) f(*t, 0, *t->send);
        if (t->recv) f(*t, 1, *t->recv);
    }
}

// 1. The first process of each side's group publishes the side; everyone
// receives every record (a few hundred bytes per side, whatever the
// number of processes) and checks each name alike.
Names publish_sides(MPI_Comm comm, std::span<TransferImpl* const> xfers) {
    core::Writer w;
    std::vector<core::SideRecord> mine;
    for_each_role(xfers, [&](const TransferImpl& t, int id, const Role& role) {
        const GroupImpl& g = *role.dist->group;
        if (g.my_index != 0) return;
        mine.push_back({t.name, id, static_cast<int>(t.strategy), description(role), role.layout,
                        g.ranks, 0, combine_of(t, id), role.piece_dim, role.piece_count});
    });
    w.i64(static_cast<core::Index>(mine.size()));
    for (const core::SideRecord& s : mine)
        core::write_side_record(w, s);
    const std::vector<std::byte> all =
        gather_sparse(comm, mine.empty() ? std::vector<std::byte>{} : w.bytes());
    Names names = core::match_sides(all.data(), all.size());
    for (auto& [name, m] : names)
        core::validate(name, m);
    return names;
}

// 2. Every process checks its own roles against their sides (agreed: the
// lowest failing rank's error everywhere).
void check_members(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Names& names) {
    int me = 0;
    check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    agree(comm, capture([&] {
              for_each_role(xfers, [&](const TransferImpl& t, int id, const Role& role) {
                  const GroupImpl& g = *role.dist->group;
                  core::MemberDeclaration d{t.name,
                                            id,
                                            me,
                                            static_cast<int>(t.strategy),
                                            description(role),
                                            g.my_index,
                                            g.ranks.front(),
                                            {},
                                            combine_of(t, id),
                                            role.layout,
                                            role.piece_dim,
                                            role.piece_count};
                  for (const auto& b : role.buffers)
                      d.sizes.push_back(static_cast<core::Index>(b.size()));
                  core::check_member(names, d);
              });
          }));
}

// Whether a role's own layout differs from its side's (the first process's),
// or it splits its block at boundaries of its own: what exchange_own spreads.
bool own_layout(const TransferImpl& t, int id, const Role& role, const Names& names) {
    const core::Match& m = names.at(t.name);
    return !(role.layout == m.of(id, description(role)).layout);
}
bool has_own(const TransferImpl& t, int id, const Role& role, const Names& names) {
    return own_layout(t, id, role, names) || !role.piece_bounds.empty();
}

// 3. Every member declared: the declarations per side, summed. Each passed
// its own check, so a side whose count is its group's size is complete.
// Only when one is not do the processes say which index they hold, to name
// the missing one. One more count, in the same reduction: the roles whose
// layout differs from their side's or that split at their own boundaries,
// which exchange_own then spreads.
long long count_members(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Names& names) {
    std::map<std::string, std::size_t> first; // the name's first slot: its sending side
    std::size_t slots = 0;
    for (const auto& [name, m] : names) {
        first[name] = slots;
        slots += 1 + m.recv.size();
    }
    const auto slot = [&](const TransferImpl& t, int id, const Role& role) {
        const core::Match& m = names.at(t.name);
        return first.at(t.name) +
               (id == 0 ? 0 : 1 + static_cast<std::size_t>(m.find_recv(description(role))));
    };
    std::vector<long long> count(slots + 1, 0);
    for_each_role(xfers, [&](const TransferImpl& t, int id, const Role& role) {
        ++count[slot(t, id, role)];
        if (has_own(t, id, role, names)) ++count[slots];
    });
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, count.data(), static_cast<int>(count.size()),
                            MPI_LONG_LONG, MPI_SUM, comm),
              "MPI_Allreduce");
    for (const auto& [name, m] : names)
        for (std::size_t k = 0; k <= m.recv.size(); ++k) {
            const core::MatchedSide& side = k == 0 ? m.send : m.recv[k - 1];
            if (count[first.at(name) + k] == static_cast<long long>(side.ranks.size())) continue;
            std::vector<int> held(side.ranks.size(), 0);
            for_each_role(xfers, [&](const TransferImpl& t, int id, const Role& role) {
                if (t.name == name && slot(t, id, role) == first.at(name) + k)
                    held[static_cast<std::size_t>(role.dist->group->my_index)] = 1;
            });
            check_mpi(MPI_Allreduce(MPI_IN_PLACE, held.data(), static_cast<int>(held.size()),
                                    MPI_INT, MPI_MAX, comm),
                      "MPI_Allreduce");
            core::fail_missing_member(name, side, k == 0 ? 0 : 1,
                                      std::vector<bool>(held.begin(), held.end()));
        }
    return count[slots];
}

// 4. Only when some process stores its block in a layout other than its
// side's, or splits it at boundaries of its own: every such role says so
// (name, side, index, what it has of its own), every process records them
// on the sides and checks each pair again with them (the same lists
// everywhere, the same verdict).
void exchange_own(MPI_Comm comm, std::span<TransferImpl* const> xfers, Names& names) {
    core::Writer w;
    for_each_role(xfers, [&](const TransferImpl& t, int id, const Role& role) {
        if (!has_own(t, id, role, names)) return;
        w.str(t.name);
        w.i64(id == 0 ? -1 : names.at(t.name).find_recv(description(role)));
        w.i64(role.dist->group->my_index);
        const bool layout = own_layout(t, id, role, names);
        w.i64(layout ? 1 : 0);
        if (layout) core::write_layout(w, role.layout);
        w.i64(static_cast<core::Index>(role.piece_bounds.size()));
        for (core::Index b : role.piece_bounds)
            w.i64(b);
    });
    const std::vector<std::byte> all = gather_sparse(comm, w.bytes());
    core::Reader parts(all.data(), all.size());
    const auto corrupt = [] { core::fail(core::Errc::internal, "corrupt layout exchange"); };
    while (!parts.done()) {
        parts.i64(); // the contributing rank
        const core::Index size = parts.i64();
        if (size < 0 || static_cast<std::size_t>(size) > all.size()) corrupt();
        core::Reader rd(parts.take(static_cast<std::size_t>(size)), static_cast<std::size_t>(size));
        while (!rd.done()) {
            const auto it = names.find(rd.str());
            const core::Index k = rd.i64(), index = rd.i64();
            if (it == names.end() || k < -1 ||
                k >= static_cast<core::Index>(it->second.recv.size()) || index > INT_MAX)
                corrupt();
            core::Match& m = it->second;
            core::MatchedSide& side = k < 0 ? m.send : m.recv[static_cast<std::size_t>(k)];
            if (rd.i64() != 0)
                core::set_own_layout(side, static_cast<int>(index), core::read_layout(rd));
            const core::Index nb = rd.i64();
            if (nb < 0 || nb > core::max_pieces + 1) corrupt();
            std::vector<core::Index> bounds(static_cast<std::size_t>(nb));
            for (core::Index& b : bounds)
                b = rd.i64();
            if (nb > 0) core::set_own_bounds(side, static_cast<int>(index), std::move(bounds));
        }
    }
    for (const auto& [name, m] : names)
        core::check_own_layouts(name, m);
}

} // namespace

int receiving_side(const TransferImpl& t, const core::Match& m) {
    return t.recv ? m.find_recv(description(*t.recv)) : -1;
}

Names exchange_declarations(MPI_Comm comm, std::span<TransferImpl* const> xfers) {
    Names names = publish_sides(comm, xfers);
    check_members(comm, xfers, names);
    if (count_members(comm, xfers, names) > 0) exchange_own(comm, xfers, names);
    return names;
}

} // namespace dri::detail

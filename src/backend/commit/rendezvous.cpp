#include "backend/commit/rendezvous.hpp"

#include "backend/runtime/collectives.hpp"

#include <cstring>

namespace dri::detail {

namespace {

core::Declaration declaration(const TransferImpl& t, int role_id, const Role& role) {
    const GroupImpl& g = *role.dist->group;
    const core::Distribution& d = role.dist->dist;
    core::Declaration decl;
    decl.name = t.name;
    decl.role = role_id;
    decl.strategy = static_cast<int>(t.strategy);
    decl.desc = core::side_description(g.ranks, d.shape(), d.partition(), role.layout);
    decl.index = g.my_index;
    if (g.my_index == 0) decl.ranks = g.ranks; // one copy of the group suffices
    for (const auto& b : role.buffers)
        decl.sizes.push_back(static_cast<core::Index>(b.size()));
    return decl;
}

} // namespace

std::map<std::string, core::Match> exchange_declarations(MPI_Comm comm,
                                                         std::span<TransferImpl* const> xfers) {
    core::Writer w;
    core::Index count = 0;
    for (const TransferImpl* t : xfers)
        count += (t->send ? 1 : 0) + (t->recv ? 1 : 0);
    w.i64(count);
    for (const TransferImpl* t : xfers) {
        if (t->send) core::write_declaration(w, declaration(*t, 0, *t->send));
        if (t->recv) core::write_declaration(w, declaration(*t, 1, *t->recv));
    }
    std::vector<core::Index> sizes;
    const std::vector<std::byte> all = allgather_bytes(comm, w.bytes(), sizes);
    return core::match_declarations(all.data(), sizes);
}

} // namespace dri::detail
